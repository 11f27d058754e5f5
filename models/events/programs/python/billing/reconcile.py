import collections
import threading


class Reconciler:
    """Drains the payouts queued for a merchant in a background thread, one payout per settled transfer."""

    def __init__(self, rnd):
        self.rnd = rnd
        self.runs = 0

    def reconcile(self):
        self.runs += 1
        n = self.rnd.randrange(0, 12)
        pending = collections.deque("po_%08x" % self.rnd.getrandbits(32) for _ in range(n))
        transfers = n + self.rnd.randrange(1, 4)  # the bank reports more transfers than queued payouts
        worker = threading.Thread(target=self._drain, args=(pending, transfers), name="reconciler-%d" % self.runs)
        worker.start()
        worker.join()

    def _drain(self, pending, transfers):
        settled = []
        for _ in range(transfers):
            settled.append(pending.popleft())
        return settled
