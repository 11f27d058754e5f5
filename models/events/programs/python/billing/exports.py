import logging
import os

log = logging.getLogger("exports")


class Exports:
    def __init__(self, rnd, home):
        self.rnd = rnd
        self.home = home

    def export_day(self):
        day = "2026-%02d-%02d" % (self.rnd.randrange(1, 13), self.rnd.randrange(1, 29))
        path = os.path.join(self.home, "exports", day, "batch-%d.csv" % self.rnd.randrange(1, 200))
        with open(path) as f:
            return f.read()

    def close_period(self):
        subtotal = self.rnd.randrange(100, 100000)
        fee = self.rnd.choice(["2.50", "0", "1.99", "N/A"])
        return self._close(subtotal, fee)

    def _close(self, subtotal, fee):
        total = subtotal + fee
        return total
