'use strict';
// Consumer contract checks: an upstream's answer to a probe request must deep-equal the recorded one.
const assert = require('node:assert');
const log = require('./log');

const UPSTREAMS = ['billing', 'catalog', 'ledger', 'shipping'];

function recorded(id) {
  return { id, status: 'paid', currency: 'EUR', lines: [{ sku: 'SKU-1', qty: 1 }, { sku: 'SKU-2', qty: 3 }], total: 4200 };
}

function answer(rnd, id) {
  const a = recorded(id);
  const drift = rnd.int(0, 4);
  if (drift === 0) a.status = rnd.pick(['settled', 'PAID', 'open']);
  if (drift === 1) a.total = String(a.total);
  if (drift === 2) a.lines[1].qty = rnd.int(4, 9);
  if (drift === 3) delete a.currency;
  return a;
}

module.exports = function checkContract(rnd) {
  const upstream = rnd.pick(UPSTREAMS);
  const id = `inv-${rnd.int(1000, 99999)}`;
  try {
    assert.deepStrictEqual(answer(rnd, id), recorded(id));
  } catch (err) {
    log.error('contract', `Contract check of ${upstream} GET /v1/invoices/${id} failed`, err);
  }
};
