'use strict';
// The holdout actions H1-H4, kept out of server.js so that its line numbers (in the other actions'
// stacks) stay as they were.
const fetchAsset = require('./assets');
const admit = require('./quota');
const startExport = require('./exporter');
const startSync = require('./invoices');

module.exports = (rnd, dir) => ({
  H1: () => fetchAsset(rnd, dir),
  H2: () => admit(rnd),
  H3: () => startExport(rnd), // uncaught in setImmediate, logged by an 'uncaughtException' handler, exit 1
  H4: () => startSync(rnd), // unhandled rejection with a string reason: ends the process
});
