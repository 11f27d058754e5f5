import logging

log = logging.getLogger("feeds")

PARTNERS = ["acme-eu", "globex", "initech", "umbrella-retail", "hooli-pay"]
CHECKS = [
    ("row %d: amount %r is not a decimal number", ["12,50", "n/a", "1.2.3", "EUR 40", ""]),
    ("row %d: currency %r is not ISO 4217", ["EURO", "XBT", "eur ", "\u20ac"]),
    ("row %d: merchant id %r unknown", ["m-00", "m-1029x", "M-77", "-"]),
    ("row %d: booking date %r is in the future", ["2031-02-28", "2099-01-01", "2030-12-31"]),
]


class FeedError(Exception):
    """All the problems of one partner upload, one per line of the message."""


class Feeds:
    def __init__(self, rnd):
        self.rnd = rnd

    def validate_upload(self):
        partner = self.rnd.choice(PARTNERS)
        upload = "up-%06d" % self.rnd.randrange(10 ** 6)
        try:
            self._check(partner, upload, self.rnd.randrange(1, 5))
        except FeedError:
            log.error("Upload %s of partner %s rejected", upload, partner, exc_info=True)

    def _check(self, partner, upload, n):
        problems = []
        for _ in range(n):
            check, values = self.rnd.choice(CHECKS)
            problems.append((self.rnd.randrange(2, 5000), check, self.rnd.choice(values)))
        lines = [check % (row, value) for row, check, value in sorted(problems)]
        raise FeedError("%s: %d invalid row%s in %s:\n  %s" % (partner, n, "" if n == 1 else "s", upload, "\n  ".join(lines)))
