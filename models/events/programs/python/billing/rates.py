import json
import logging
import os

log = logging.getLogger("rates")

BROKEN = [
    '{"EUR": 1.0, "USD": 1.08,}',
    '{"EUR": 1.0, "GBP": 0.86',
    '{"EUR": 1.0 "CHF": 0.97}',
    "{'EUR': 1.0}",
    '{"EUR": 1.0, "JPY": 16O.2}',
    '',
    '{"rates": [1.0, 1.08, ]}',
]


class ConfigError(Exception):
    pass


class Rates:
    def __init__(self, rnd, home):
        self.rnd = rnd
        self.home = home

    def loaded(self):
        log.info("Loaded %d currency rates from %s", self.rnd.randrange(20, 180),
                 self.rnd.choice(["ecb", "openexchangerates", "cache", "fixer.io"]))

    def reload_config(self):
        path = os.path.join(self.home, "conf", "rates-%d.json" % self.rnd.randrange(1, 40))
        text = self.rnd.choice(BROKEN)
        try:
            self._parse(path, text)
        except ConfigError:
            log.exception("Could not parse config %s", path)

    def _parse(self, path, text):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError("%s: invalid JSON at line %d column %d" % (path, e.lineno, e.colno))
