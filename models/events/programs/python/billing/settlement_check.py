import logging

log = logging.getLogger("settlement")


class BatchCheck:
    """Closes a settlement batch after checking that its transfers add up to the batch total."""

    def __init__(self, rnd):
        self.rnd = rnd

    def close_batch(self):
        batch = "sb-%d-%05d" % (self.rnd.randrange(2024, 2027), self.rnd.randrange(100000))
        transfers = [self.rnd.randrange(100, 500000) for _ in range(self.rnd.randrange(2, 30))]
        total = sum(transfers) + self.rnd.choice([-1, 1]) * self.rnd.randrange(1, 100)  # off by some cents
        try:
            self._verify(transfers, total)
        except AssertionError:
            log.exception("Settlement batch %s not closed: invariant failed", batch)

    def _verify(self, transfers, total):
        settled = 0
        for cents in transfers:
            settled += cents
        assert settled == total
