import concurrent.futures
import logging

log = logging.getLogger("workers")


def parse_amount(raw):
    return int(raw)


class Workers:
    def __init__(self, rnd):
        self.rnd = rnd
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="billing")

    def run_batch(self):
        worker = "w-%d" % self.rnd.randrange(1, 16)
        task = "task-%d" % self.rnd.randrange(1, 500000)
        raw = self.rnd.choice(["12a", "1.5", "", "ten", "0x1f", "1,000", " 7 x"])
        fut = self.pool.submit(parse_amount, raw)
        try:
            fut.result()
        except ValueError:
            log.exception("Worker %s crashed in task %s", worker, task)
