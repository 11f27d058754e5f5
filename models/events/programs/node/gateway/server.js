'use strict';
// API gateway (upstreams, bodies, catalog batches, routes):  node server.js SEED PLAN  (one action code a line)
const fs = require('fs');
const EventEmitter = require('events');
const log = require('./log');
const rng = require('./rng');
const Upstream = require('./upstream');
const badBody = require('./body');
const batchLookup = require('./batch');
const rebuild = require('./routes');
const verify = require('./tokens');
const cacheWrite = require('./cache');
const backoffice = require('./backoffice');

const rnd = rng(Number(process.argv[2]));
const plan = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter((l) => l.trim());
const upstream = new Upstream(rnd);
const sessions = new Map();

function access() {
  const method = rnd.pick(['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE']);
  log.info('http', `${method} ${upstream.path()} ${rnd.pick([200, 200, 201, 204, 304, 404])} ${rnd.int(1, 400)}ms`);
}

function expired() {
  log.info('auth', `Session ${rnd.int(0, 0xffffffff).toString(16)} expired for user ${rnd.pick(['u263', 'alice', 'bob', 'u9921', 'svc-export'])}`);
}

// An uncaught TypeError in a timer callback: the process dies with Node's own report.
function sessionSweep() {
  const id = `s-${rnd.int(1000, 9999)}`;
  setTimeout(() => {
    const session = sessions.get(id);
    log.info('auth', `Sweeping session ${id} of ${session.user.id}`);
  }, 1);
  return new Promise((resolve) => setTimeout(resolve, 5000));
}

// An async job started without await: its rejection is unhandled and ends the process.
async function reindex(shard) {
  await new Promise((resolve) => setImmediate(resolve));
  throw new Error(`Reindex of shard ${shard} aborted: ${rnd.int(2, 900)} documents without id`);
}

function startReindex() {
  reindex(rnd.int(0, 16));
  return new Promise((resolve) => setTimeout(resolve, 5000));
}

// A queue consumer that emits 'error' with no listener: the emitter throws, the process dies.
class QueueConsumer extends EventEmitter {
  poll(queue) {
    setImmediate(() => {
      this.emit('error', new Error(`Queue ${queue} rejected message ${rnd.int(1, 999999)}: payload too large`));
    });
  }
}

function consume() {
  new QueueConsumer().poll(rnd.pick(['orders.created', 'payments.settled', 'mail.outbound', 'audit']));
  return new Promise((resolve) => setTimeout(resolve, 5000));
}

const actions = { ...backoffice(rnd, __dirname), ...require('./finals')(rnd, __dirname), // H1-H4, K1-K4
  L1: access,
  L2: () => upstream.healthy(),
  L3: () => upstream.slow(),
  L4: expired,
  F1: () => upstream.forward(),
  F2: () => badBody(rnd),
  F3: () => batchLookup(rnd),
  F4: sessionSweep,
  F5: () => rebuild(rnd, __dirname),
  T1: startReindex,
  T2: () => verify(rnd),
  T3: () => cacheWrite(rnd, __dirname),
  T4: consume,
};

(async () => {
  for (const action of plan) {
    log.mark(action);
    await actions[action]();
  }
})();
