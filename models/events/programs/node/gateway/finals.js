'use strict';
// The final actions K1-K4, kept out of server.js (like backoffice.js) so that its line numbers stay.
// Nothing here runs at start: each action makes what it needs on first use.
const traceSlow = require('./slowlog');
const reloadManifest = require('./manifest');
const checkContract = require('./contracts');
const subscribePrices = require('./prices');

module.exports = (rnd, dir) => ({
  K1: () => traceSlow(rnd), // console.trace: 'Trace: ...' and the stack, no logging header
  K2: () => reloadManifest(rnd, dir), // an error with a multi-line message, thrown in a class getter
  K3: () => checkContract(rnd), // node:assert's AssertionError with its diff
  K4: () => subscribePrices(rnd), // a process warning, logged by a process.on('warning') handler
});
