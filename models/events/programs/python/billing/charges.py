import logging

log = logging.getLogger("orders")
limits = logging.getLogger("ratelimit")

USERS = ["u263", "u1029", "alice.w", "bob_k", "u77", "carol-92", "dave", "u5012", "erin.m", "frank"]


class ChargeError(Exception):
    pass


class RefundError(Exception):
    pass


class Refund:
    def __init__(self, rid, amount):
        self.rid = rid
        self.amount = amount


class Charges:
    def __init__(self, rnd):
        self.rnd = rnd
        self.cards = {"alice.w": "4242", "dave": "0005", "u77": "1881"}
        self.refunds = {}

    def user(self):
        r = self.rnd.random()
        return "u%d" % self.rnd.randrange(100, 99999) if r < 0.5 else self.rnd.choice(USERS)

    def charged(self):
        log.info("Charged %d.%02d EUR to card ending %04d for user %s", self.rnd.randrange(1, 900),
                 self.rnd.randrange(100), self.rnd.randrange(10000), self.user())

    def rate_limit_close(self):
        cap = self.rnd.choice([100, 250, 500, 1000])
        limits.warning("Rate limit close for merchant m-%d: %d/%d requests", self.rnd.randrange(1000, 9999),
                       cap - self.rnd.randrange(1, 20), cap)

    def charge(self):
        user = self.user()
        while user in self.cards:
            user = self.user()
        try:
            self._charge(user, self.rnd.randrange(100, 90000) / 100)
        except ChargeError:
            log.exception("Failed to charge card for user %s", user)

    def _charge(self, user_id, amount):
        try:
            card = self.cards[user_id]
        except KeyError as e:
            raise ChargeError("no card on file for %s (amount %.2f)" % (user_id, amount)) from e
        return card

    # -- discounts: rules may refer to each other; a cycle recurses until the interpreter gives up
    def apply_discounts(self):
        plan = self.rnd.choice(["basic", "pro", "team-2026", "enterprise", "edu"])
        rules = {plan: ["seasonal"], "seasonal": ["loyalty"], "loyalty": [plan]}
        try:
            self._flatten(rules, plan)
        except RecursionError:
            log.exception("Failed to flatten discount rules for plan %s", plan)

    def _flatten(self, rules, name):
        out = [name]
        for child in rules.get(name, []):
            out.extend(self._flatten(rules, child))
        return out

    # -- refunds
    def refund(self):
        rid = "rf_%08x" % self.rnd.getrandbits(32)
        try:
            self._refund(rid)
        except RefundError:
            log.exception("Refund %s rejected", rid)

    def _refund(self, rid):
        original = self.refunds.get(rid)
        try:
            return original.amount * -1
        except AttributeError as e:
            raise RefundError("refund %s has no original charge" % rid) from e
