import logging
import urllib.request

log = logging.getLogger("webhooks")


class Webhooks:
    def __init__(self, rnd):
        self.rnd = rnd

    def retrying(self):
        log.warning("Retrying webhook wh_%06d in %.1f s", self.rnd.randrange(999999), self.rnd.choice([0.5, 1, 2, 4, 8, 16]))

    def deliver(self):
        url = "http://127.0.0.1:%d/hooks/%s" % (self.rnd.randrange(20000, 29000),
                                                 self.rnd.choice(["orders", "refunds", "payouts", "disputes"]))
        try:
            self._post(url, b'{"event": "charge.succeeded"}')
        except OSError:
            log.exception("Webhook delivery to %s failed", url)

    def _post(self, url, body):
        req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=2) as resp:
            return resp.status
