import os

DECIMALS = {"EUR": 2, "USD": 2, "GBP": 2, "JPY": 0, "PLN": 2}


class SettingsError(Exception):
    pass


class Settings:
    def __init__(self, rnd, home):
        self.rnd = rnd
        self.home = home

    def settlement_currency(self):
        raw = self.rnd.choice(["eur", "EURO", "US$", "\u20ac", "GBP ", "CHF", "pln"])
        return self._decimals(raw, os.path.join(self.home, "conf", "billing.ini"))

    def _decimals(self, currency, path):
        try:
            return DECIMALS[currency]
        except KeyError:
            raise SettingsError("unknown currency %r in %s" % (currency, path)) from None
