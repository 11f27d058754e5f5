'use strict';
const log = require('./log');

const BODIES = [
  '{"id": 12, "items": [1, 2,]}',
  '{"id": 12 "qty": 3}',
  "{'id': 7}",
  '{"id": 12, "note": "unterminated}',
  '<html><body>502 Bad Gateway</body></html>',
  '{"qty": 01}',
  '',
  '{"id": 4411, "sku": "A-19", "qty": NaN}',
];

function parseBody(raw) {
  return JSON.parse(raw);
}

function handleRequest(reqId, raw) {
  const body = parseBody(raw);
  return body.id;
}

module.exports = function badBody(rnd) {
  const reqId = `req-${rnd.int(0, 0xffffff).toString(16).padStart(6, '0')}`;
  try {
    handleRequest(reqId, rnd.pick(BODIES));
  } catch (err) {
    log.error('http', `Failed to parse body of request ${reqId}`);
    console.error(err.stack);
  }
};
