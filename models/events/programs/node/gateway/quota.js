'use strict';
// Per-tenant request quotas. QuotaError is an old-style error constructor (util.inherits,
// Error.captureStackTrace), as many libraries still define them.
const util = require('util');
const log = require('./log');

function QuotaError(message, details) {
  this.name = 'QuotaError';
  this.message = message;
  Object.assign(this, details);
  Error.captureStackTrace(this, QuotaError);
}
util.inherits(QuotaError, Error);

function enforce(tenant, used, limit, window) {
  if (used > limit) {
    throw new QuotaError(`Tenant ${tenant} exceeded its quota`, { tenant, limit, used, window });
  }
}

module.exports = function admit(rnd) {
  const tenant = `t-${rnd.int(100, 9999)}`;
  const limit = rnd.pick([100, 500, 1000, 5000]);
  const request = `req-${rnd.int(0, 0xffffff).toString(16)}`;
  try {
    enforce(tenant, limit + rnd.int(1, 300), limit, rnd.pick(['1m', '1h', '1d']));
  } catch (err) {
    log.error('quota', `Request ${request} rejected`, err);
  }
};
