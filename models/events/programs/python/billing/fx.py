import warnings

MAX_AGE_H = 24
PAIRS = ["EUR/CHF", "EUR/GBP", "EUR/PLN", "EUR/USD", "EUR/SEK", "EUR/JPY"]


class StaleRateWarning(UserWarning):
    pass


class Rates:
    def __init__(self, rnd):
        self.rnd = rnd

    def rate(self, pair):
        age = self.rnd.randrange(MAX_AGE_H + 1, 96)
        if age > MAX_AGE_H:
            warnings.warn("%s rate is %d h old (max %d h); converting with it anyway" % (pair, age, MAX_AGE_H),
                          StaleRateWarning, stacklevel=2)
        return 1 + self.rnd.randrange(1, 5000) / 10000


class Converter:
    def __init__(self, rnd):
        self.rnd = rnd
        self.rates = Rates(rnd)
        self.filtered = False

    def convert_invoice(self):
        if not self.filtered:  # every stale conversion is reported, not only the first one per call site
            warnings.simplefilter("always", StaleRateWarning)
            self.filtered = True
        pair = self.rnd.choice(PAIRS)
        amount = self.rnd.randrange(100, 10 ** 6) / 100
        converted = round(amount * self.rates.rate(pair), 2)
        return converted
