'use strict';
const fs = require('fs');
const path = require('path');
const log = require('./log');

module.exports = async function cacheWrite(rnd, dir) {
  const key = rnd.int(0, 0xffffffff).toString(16).padStart(8, '0');
  const file = path.join(dir, 'cache', key.slice(0, 2), `${key}.json`);
  try {
    await fs.promises.writeFile(file, '{}');
  } catch (err) {
    log.error('cache', `Cache write failed for key ${key}`, err);
  }
};
