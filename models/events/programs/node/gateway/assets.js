'use strict';
// Static assets are fetched from whichever mirror's cache answers first (Promise.any).
const fsp = require('fs').promises;
const path = require('path');
const log = require('./log');

const MIRRORS = ['fra', 'ams', 'dub', 'waw', 'mad'];
const ASSETS = ['app.js', 'vendor.js', 'styles.css', 'logo.svg', 'fonts/inter.woff2', 'i18n/de.json'];

module.exports = async function fetchAsset(rnd, dir) {
  const asset = `${rnd.pick(ASSETS)}?v=${rnd.int(100, 999)}`;
  const mirrors = MIRRORS.slice(0, rnd.int(2, 5));
  try {
    return await Promise.any(mirrors.map((m) => fsp.readFile(path.join(dir, 'mirrors', m, asset.split('?')[0]))));
  } catch (err) {
    log.error('assets', `Asset ${asset} unavailable on all mirrors`, err);
    return null;
  }
};
