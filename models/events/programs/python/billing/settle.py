import asyncio
import logging

log = logging.getLogger("settlement")


class Settlement:
    def __init__(self, rnd):
        self.rnd = rnd

    def settle_batch(self):
        n = self.rnd.randrange(3, 12)
        merchants = ["m-%d" % self.rnd.randrange(1000, 9999) for _ in range(n)]
        failing = set(self.rnd.sample(range(n), self.rnd.randrange(1, 4)))
        try:
            asyncio.run(self._settle_all(merchants, failing))
        except* (ValueError, ConnectionResetError):
            log.exception("Batch settlement failed for %d merchants", n)

    async def _settle_all(self, merchants, failing):
        async with asyncio.TaskGroup() as tg:
            for i, m in enumerate(merchants):
                tg.create_task(self._settle_one(m, i in failing, i))

    async def _settle_one(self, merchant, fail, i):
        if fail:  # before the first await: every failing task fails before the group cancels the rest
            if i % 2:
                raise ConnectionResetError("ledger connection reset while settling %s" % merchant)
            raise ValueError("negative balance %d.%02d for %s" % (-(i * 37 + 5), i * 7 % 100, merchant))
        await asyncio.sleep(0.001 * (i + 1))
        return merchant
