"""Back-office jobs: VAT reports, ledger imports, payout reconciliation, settings (the holdout actions H1-H4).

Kept out of app.py so that its line numbers, which the other actions' tracebacks show, stay as they were.
"""

import ledger
import reconcile
import reports
import settings


def actions(rnd, home):
    return {
        "H1": reports.TaxReports(rnd).quarterly,
        "H2": ledger.Ledger(rnd).import_statement,
        "H3": reconcile.Reconciler(rnd).reconcile,       # uncaught in a thread: threading.excepthook's report
        "H4": settings.Settings(rnd, home).settlement_currency,  # uncaught: ends the process
    }
