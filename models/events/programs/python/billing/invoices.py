import logging

log = logging.getLogger("invoices")


class Item:
    def __init__(self, name, amount, quantity, children=()):
        self.name = name
        self.amount = amount
        self.quantity = quantity
        self.children = list(children)


class Invoices:
    def __init__(self, rnd):
        self.rnd = rnd

    def number(self):
        return "INV-%d-%05d" % (self.rnd.choice([2025, 2026]), self.rnd.randrange(1, 99999))

    def rendered(self):
        log.info("Invoice %s rendered in %d ms", self.number(), self.rnd.randrange(2, 800))

    def render(self):
        inv = self.number()
        depth = self.rnd.randrange(1, 9)
        leaf = Item("sku-%d" % self.rnd.randrange(1000), self.rnd.randrange(1, 500), 0)
        node = leaf
        for i in range(depth):
            node = Item("group-%d" % i, 0, 1, [node])
        try:
            self._render(node, [])
        except ZeroDivisionError:
            log.exception("Invoice rendering failed for invoice %s", inv)

    def _render(self, item, lines):
        if item.children:
            for child in item.children:
                self._render(child, lines)
            return lines
        unit_price = item.amount / item.quantity
        lines.append("%s %.2f" % (item.name, unit_price))
        return lines
