'use strict';
const log = require('./log');

class NotFoundError extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotFoundError';
  }
}

async function lookup(id, shard, missing) {
  await new Promise((resolve) => setImmediate(resolve));
  if (missing) {
    throw new NotFoundError(`Item ${id} not found in shard ${shard}`);
  }
  return { id, shard };
}

module.exports = async function batchLookup(rnd) {
  const n = rnd.int(2, 7);
  const ids = Array.from({ length: n }, () => rnd.int(1000, 99999));
  const bad = rnd.int(0, n);
  try {
    await Promise.all(ids.map((id, i) => lookup(id, id % 8, i === bad)));
  } catch (err) {
    log.error('catalog', `Batch lookup failed for ${n} ids`);
    console.error(err.stack);
  }
};
