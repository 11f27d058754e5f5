"""Partner feeds, payout batches, bank payouts and FX conversion (the final actions K1-K4).

Kept out of app.py, like backoffice.py, so that the line numbers the other actions' tracebacks show stay.
"""

import feeds
import fx
import payouts
import settlement_check


def actions(rnd, home):
    return {
        "K1": feeds.Feeds(rnd).validate_upload,
        "K2": settlement_check.BatchCheck(rnd).close_batch,
        "K3": payouts.Payouts(rnd).send_next,        # uncaught, chained across modules: ends the process
        "K4": fx.Converter(rnd).convert_invoice,     # warnings.warn: 'file:line: Category: msg' + source line
    }
