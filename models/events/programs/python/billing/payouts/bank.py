from payouts import iban
from payouts.errors import PayoutRejected

GATEWAYS = ["sepa-ct", "sepa-inst", "target2"]


class Payouts:
    def __init__(self, rnd):
        self.rnd = rnd

    def send_next(self):
        payout = "po_%08x" % self.rnd.getrandbits(32)
        self._send(payout, self._account_with_typo(), self.rnd.choice(GATEWAYS))

    def _account_with_typo(self):
        """A German IBAN as the merchant typed it: valid check digits, then one digit of the account mistyped."""
        bban = "37040044%010d" % self.rnd.randrange(10 ** 10)
        check = 98 - iban.mod97(bban + "DE00")
        pos = self.rnd.randrange(8, len(bban))
        typo = bban[:pos] + str((int(bban[pos]) + self.rnd.randrange(1, 10)) % 10) + bban[pos + 1:]
        s = "DE%02d%s" % (check, typo)
        return " ".join(s[i:i + 4] for i in range(0, len(s), 4))

    def _send(self, payout, account, gateway):
        try:
            target = iban.check(account)
        except iban.InvalidIban as e:
            raise PayoutRejected("payout %s to %s rejected by %s" % (payout, account, gateway)) from e
        return target
