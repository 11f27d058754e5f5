'use strict';
// Pushes invoices to the billing provider; its client wrapper rejects with a bare string on HTTP errors
// and the sync is started without a catch: the rejection is unhandled and ends the process.
const PROVIDERS = ['api.billing-eu.example', 'api.invoicely.example', 'erp.internal:8443'];

function post(host, invoice, status) {
  return new Promise((resolve, reject) => {
    setImmediate(() => (status < 400 ? resolve(status) : reject(`HTTP ${status} for invoice ${invoice} from ${host}`)));
  });
}

async function syncInvoices(host, invoices) {
  for (let i = 0; i < invoices.length; i++) {
    await post(host, invoices[i], i === invoices.length - 1 ? 429 : 201);
  }
}

module.exports = function startSync(rnd) {
  const first = rnd.int(10000, 99999);
  syncInvoices(rnd.pick(PROVIDERS), Array.from({ length: rnd.int(1, 6) }, (_, i) => `INV-${first + i}`));
  return new Promise((resolve) => setTimeout(resolve, 5000));
};
