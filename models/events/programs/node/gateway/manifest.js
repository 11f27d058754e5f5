'use strict';
// Route manifests: a manifest's routes are checked when they are first read (a getter), and all the
// problems found go into one error whose message has a line per problem.
const path = require('path');
const log = require('./log');

const PROBLEMS = [
  (i) => `routes[${i}].path is required`,
  (i) => `routes[${i}].upstream "ledger-v1" is not defined`,
  (i) => `routes[${i}].timeout must be a duration, got "30"`,
  (i) => `routes[${i}].methods contains "FETCH"`,
];

class ManifestError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ManifestError';
  }
}

class RouteManifest {
  constructor(file, problems) {
    this.file = file;
    this.problems = problems;
  }

  get routes() {
    if (this.problems.length) {
      throw new ManifestError(`${this.file}: invalid routes (${this.problems.length}):\n  ${this.problems.join('\n  ')}`);
    }
    return [];
  }
}

module.exports = function reloadManifest(rnd, dir) {
  const file = path.join(dir, 'routes.d', `${rnd.pick(['billing', 'catalog', 'checkout', 'search'])}.json`);
  const problems = [];
  for (let n = rnd.int(1, 5); n > 0; n--) {
    problems.push(rnd.pick(PROBLEMS)(rnd.int(0, 40)));
  }
  const manifest = new RouteManifest(file, problems);
  try {
    return manifest.routes.length;
  } catch (err) {
    log.error('routes', `Manifest ${path.basename(file)} rejected`, err);
    return 0;
  }
};
