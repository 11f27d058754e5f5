'use strict';
const log = require('./log');

const PATHS = ['/v1/orders', '/v1/orders/:id/items', '/v1/carts', '/v2/payments/intents', '/v1/users/me', '/v1/search'];

class Upstream {
  constructor(rnd) {
    this.rnd = rnd;
  }

  path() {
    return this.rnd.pick(PATHS).replace(':id', String(this.rnd.int(10000, 99999)));
  }

  healthy() {
    log.info('upstream', `Upstream ${this.rnd.pick(['orders', 'carts', 'payments', 'search'])}-${this.rnd.int(1, 9)} healthy (${this.rnd.int(1, 90)} ms)`);
  }

  slow() {
    log.warn('upstream', `Slow upstream response from 10.2.${this.rnd.int(0, 4)}.${this.rnd.int(1, 250)}:8080: ${this.rnd.int(800, 9000)} ms`);
  }

  async forward() {
    const path = this.path();
    const port = this.rnd.int(20000, 29000);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'GET' });
      return res.status;
    } catch (err) {
      log.error('upstream', `Upstream request failed for ${path}:`, err);
      return 502;
    }
  }
}

module.exports = Upstream;
