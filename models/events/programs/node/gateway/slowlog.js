'use strict';
// Request timing: a handler over its budget is reported with console.trace, so that the log shows
// which code path was slow (a common "where was I called from" debugging aid left in production).
const ROUTES = ['GET /v1/carts', 'POST /v1/checkout', 'GET /v1/catalog/search', 'PUT /v1/profile', 'GET /v1/orders'];

class SlowLog {
  constructor(budget) {
    this.budget = budget;
  }

  observe(route, ms) {
    if (ms > this.budget) {
      console.trace(`Slow handler ${route}: ${ms} ms (budget ${this.budget} ms)`);
    }
  }
}

function timed(slowlog, route, handler) {
  return (ms) => {
    handler();
    slowlog.observe(route, ms);
  };
}

module.exports = function traceSlow(rnd) {
  const slowlog = new SlowLog(rnd.pick([100, 200, 250, 500]));
  const route = rnd.pick(ROUTES);
  timed(slowlog, route, () => {})(slowlog.budget + rnd.int(1, 3000));
};
