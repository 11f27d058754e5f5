'use strict';
// Price subscriptions: every retry of a quote request adds a 'price' listener to the feed and never
// removes it, so Node warns (MaxListenersExceededWarning). The gateway logs process warnings itself,
// through a process.on('warning') handler, instead of Node's own one-line printer.
const EventEmitter = require('events');

let installed = false;

function logWarnings() {
  if (installed) return;
  installed = true;
  process.removeAllListeners('warning'); // Node's default printer
  process.on('warning', (warning) => {
    console.error(`${new Date().toISOString()} WARN [process] ${warning.name} emitted`, warning);
  });
}

class PriceFeed extends EventEmitter {}

module.exports = function subscribePrices(rnd) {
  logWarnings();
  const feed = new PriceFeed();
  const symbol = rnd.pick(['EURUSD', 'EURCHF', 'BTCEUR', 'EURPLN']);
  for (let retry = 0, n = rnd.int(11, 30); retry < n; retry++) {
    feed.on('price', (p) => p.symbol === symbol);
  }
  // the warning is emitted on the next tick: wait until the handler has written it
  return new Promise((resolve) => setImmediate(resolve));
};
