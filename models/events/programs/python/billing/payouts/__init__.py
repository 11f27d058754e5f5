"""Bank payouts: a payout goes to the merchant's IBAN through the bank gateway."""

from payouts.bank import Payouts

__all__ = ["Payouts"]
