'use strict';
const fs = require('fs');
const path = require('path');
const log = require('./log');

const ROUTES = ['/v1/orders', '/v1/carts', '/v2/payments', '/v1/users', '/admin', '/v1/search', '/internal/metrics'];

function loadRoute(dir, route, depth) {
  if (depth > 0) {
    return loadRoute(dir, `${route}/sub${depth}`, depth - 1);
  }
  const file = path.join(dir, 'routes.d', `${route.split('/').filter(Boolean).join('-')}.json`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Route ${route} could not be loaded`, { cause: e });
  }
}

module.exports = function rebuild(rnd, dir) {
  const route = rnd.pick(ROUTES);
  try {
    loadRoute(dir, route, rnd.int(0, 7));
  } catch (err) {
    log.error('routes', `Route table rebuild failed for ${route}`, err);
  }
};
