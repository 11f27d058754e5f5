"""Billing service: charges cards, renders invoices, settles merchants, delivers webhooks.

    python3 app.py SEED PLAN        (PLAN: one action code per line, run in order)

Logs through the logging module to stderr, "%(asctime)s %(levelname)s %(name)s: %(message)s". LOGSIFT_LOG /
LOGSIFT_MARKS: before each action, the log file's size and the action code go to the marks file (the labels).
"""

import logging
import os
import random
import sys

import backoffice, finals  # H1-H4, K1-K4: their own modules
import charges
import exports
import invoices
import rates
import settle
import webhooks
import workers

log = logging.getLogger("billing")


def mark(action):
    for h in logging.getLogger().handlers:
        h.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    with open(os.environ["LOGSIFT_MARKS"], "a") as f:
        f.write("%d\t%s\n" % (os.path.getsize(os.environ["LOGSIFT_LOG"]), action))


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    rnd = random.Random(int(sys.argv[1]))
    with open(sys.argv[2]) as f:
        plan = [line.strip() for line in f if line.strip()]
    home = os.path.dirname(os.path.abspath(__file__))
    svc = {
        "charges": charges.Charges(rnd),
        "invoices": invoices.Invoices(rnd),
        "rates": rates.Rates(rnd, home),
        "settle": settle.Settlement(rnd),
        "webhooks": webhooks.Webhooks(rnd),
        "exports": exports.Exports(rnd, home),
        "workers": workers.Workers(rnd),
    }
    actions = backoffice.actions(rnd, home) | finals.actions(rnd, home) | {  # H1-H4 backoffice.py, K1-K4 finals.py
        "L1": svc["charges"].charged,
        "L2": svc["invoices"].rendered,
        "L3": svc["charges"].rate_limit_close,
        "L4": svc["rates"].loaded,
        "L5": svc["webhooks"].retrying,
        "F1": svc["charges"].charge,
        "F2": svc["rates"].reload_config,
        "F3": svc["invoices"].render,
        "F4": svc["settle"].settle_batch,
        "F5": svc["exports"].export_day,       # uncaught: ends the process
        "F6": svc["charges"].apply_discounts,
        "T1": svc["webhooks"].deliver,
        "T2": svc["charges"].refund,
        "T3": svc["workers"].run_batch,
        "T4": svc["exports"].close_period,    # uncaught: ends the process
    }
    for action in plan:
        mark(action)
        actions[action]()


if __name__ == "__main__":
    main()
