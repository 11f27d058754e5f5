import logging
from decimal import Decimal

log = logging.getLogger("ledger")

BAD = ["12,50", "1.234,00", "EUR 40", "n/a", "", "7.5.1", "--3"]


class Ledger:
    """Imports bank statement lines; amounts come out of a generator that parses them lazily."""

    def __init__(self, rnd):
        self.rnd = rnd

    def import_statement(self):
        name = "stmt-%d-%04d.csv" % (self.rnd.randrange(2024, 2027), self.rnd.randrange(1, 9999))
        n = self.rnd.randrange(3, 40)
        bad = self.rnd.randrange(n)
        lines = []
        for i in range(n):
            amount = self.rnd.choice(BAD) if i == bad else "%d.%02d" % (self.rnd.randrange(1, 5000), self.rnd.randrange(100))
            lines.append("%d;DE89370400440532013%03d;%s" % (i + 1, self.rnd.randrange(1000), amount))
        total = Decimal(0)
        row = 0
        try:
            for row, amount in self._amounts(lines):
                total += amount
        except ArithmeticError:
            log.error("Ledger import of %s stopped at row %d", name, row + 1, exc_info=True)

    def _amounts(self, lines):
        for line in lines:
            no, _iban, raw = line.split(";")
            yield int(no), Decimal(raw)
