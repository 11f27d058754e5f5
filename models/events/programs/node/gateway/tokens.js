'use strict';
const crypto = require('crypto');
const log = require('./log');

function decrypt(token, key) {
  const iv = Buffer.alloc(16, 1);
  const decipher = crypto.createDecipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([decipher.update(token, 'base64'), decipher.final()]).toString();
}

module.exports = function verify(rnd) {
  const client = `client-${rnd.int(100, 9999)}`;
  const key = Buffer.alloc(rnd.pick([16, 24, 31, 33, 8]), 7);
  try {
    decrypt('c2VjcmV0LXRva2Vu', key);
  } catch (err) {
    log.error('auth', `Token verification failed for client ${client}`, err);
  }
};
