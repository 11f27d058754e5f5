class PayoutRejected(Exception):
    """The bank gateway refused a payout; the cause says why."""
