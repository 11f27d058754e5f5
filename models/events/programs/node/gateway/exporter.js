'use strict';
// A CSV export worker that registers the usual last-resort handler: log the error, exit 1.
const log = require('./log');

function toCsv(report) {
  return report.rows.map((r) => Object.values(r).join(',')).join('\n');
}

module.exports = function startExport(rnd) {
  const id = `exp-${rnd.int(1000, 99999)}`;
  process.once('uncaughtException', (err, origin) => {
    log.error('process', `Export worker ${id}: ${origin}, exiting`, err);
    process.exit(1);
  });
  // the report service answered with { rows: { count, items } } instead of { rows: [...] }
  const report = { id, rows: { count: rnd.int(0, 500), items: [] } };
  setImmediate(() => {
    log.info('export', `Wrote ${toCsv(report).length} bytes for ${id}`);
  });
  return new Promise((resolve) => setTimeout(resolve, 5000));
};
