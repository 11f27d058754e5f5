import logging

log = logging.getLogger("reports")

VAT = {"DE": 0.19, "AT": 0.20, "FR": 0.20, "NL": 0.21, "BE": 0.21, "PL": 0.23, "ES": 0.21, "IT": 0.22}
NEW_MARKETS = ["HR", "SI", "EE", "LV", "CY", "MT"]


class TaxReports:
    """Quarterly VAT reports: net sales per country times that country's rate."""

    def __init__(self, rnd):
        self.rnd = rnd

    def quarterly(self):
        region = self.rnd.choice(["eu-central", "eu-west", "eu-south", "eu-east"])
        report = "vat-2026-q%d" % self.rnd.randrange(1, 5)
        try:
            self.build(region)
        except KeyError:
            log.exception("Failed to build tax report %s for region %s", report, region)

    def build(self, region):
        totals = self._collect(region)
        return self._tax_by_country(totals)

    def _collect(self, region):
        countries = self.rnd.sample(sorted(VAT), self.rnd.randrange(2, 6)) + [self.rnd.choice(NEW_MARKETS)]
        self.rnd.shuffle(countries)
        return {c: self.rnd.randrange(1000, 10 ** 7) / 100 for c in countries}

    def _tax_by_country(self, totals):
        return {country: round(net * VAT[country], 2) for country, net in totals.items()}
