#!/usr/bin/env node
// Ingest rate of each protocol, one client each, against a real `logsift
// serve`: the same N lines (already seen: a warm-up pass clusters
// them first) through
//   http-ndjson   POST /inferences, application/x-ndjson, --batch lines a request
//   tcp           the TCP port, one connection, a JSON reply line per line
//   syslog        the syslog port, one connection, RFC 5424 octet-counted
//   loki-json     POST /loki/api/v1/push, JSON, --batch lines a request
//   loki-proto    the same as protobuf + snappy (protobufjs and snappy, the
//                 libraries winston-loki uses, from BUILD/npm-clients)
//   otlp-json     POST /v1/logs, OTLP JSON
//   otlp-proto    POST /v1/logs, OTLP protobuf (protobufjs)
//   bulk          POST /_bulk, NDJSON action + document pairs
// HTTP clients send one request at a time on one keep-alive connection (a
// reply means the batch is in the catalog); the syslog run ends when
// logsift_lines_clustered_total has counted every frame.
//
// Usage: NODE_PATH=build/npm-clients/node_modules node bench/ingest_rate.js \
//          --bin build/logsift --corpus FILE [--lines 100000] [--batch 1000]
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');
const protobuf = require('protobufjs');
const snappy = require('snappy');

function arg(name, dflt) {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : dflt;
}
const bin = arg('bin');
const corpus = arg('corpus');
const nLines = Number(arg('lines', 100000));
const batch = Number(arg('batch', 1000));
if (!bin || !corpus) {
  console.error('usage: node bench/ingest_rate.js --bin BIN --corpus FILE [--lines N] [--batch B]');
  process.exit(2);
}
const root = path.resolve(__dirname, '..');
const lines = fs.readFileSync(corpus, 'utf8').split('\n').filter((l) => l.length > 0).slice(0, nLines);
const batches = [];
for (let i = 0; i < lines.length; i += batch) batches.push(lines.slice(i, i + batch));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function request(port, method, target, body, type, extra = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent,
                               headers: { 'Content-Type': type, 'Content-Length': body.length, ...extra } },
                             (res) => {
                               const chunks = [];
                               res.on('data', (c) => chunks.push(c));
                               res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
                             });
    req.on('error', reject);
    req.end(body);
  });
}

async function metric(port, name) {
  const r = await request(port, 'GET', '/metrics', Buffer.alloc(0), 'text/plain');
  const m = r.body.toString().match(new RegExp('^' + name + ' (\\S+)$', 'm'));
  return m ? Number(m[1]) : NaN;
}

const nowNs = () => process.hrtime.bigint();
const isoNs = () => (BigInt(Date.now()) * 1000000n).toString();

const lokiRoot = protobuf.loadSync(path.join(root, 'service/api/proto/loki_push.proto'));
const PushRequest = lokiRoot.lookupType('logsift.lokipb.PushRequest');
const otlpRoot = protobuf.loadSync(path.join(root, 'service/api/proto/otlp_logs.proto'));
const ExportLogs = otlpRoot.lookupType('logsift.otlppb.ExportLogsServiceRequest');
const labels = '{service="checkout", host="web-1", env="prod"}';

// Each protocol: a body per batch, built before the clock starts.
const http_protocols = {
  'http-ndjson': { target: '/inferences', type: 'application/x-ndjson', ok: 200,
                   body: (b) => Buffer.from(b.map((l) => JSON.stringify({ text: l })).join('\n') + '\n') },
  'loki-json': { target: '/loki/api/v1/push', type: 'application/json', ok: 204,
                 body: (b) => Buffer.from(JSON.stringify({ streams: [{ stream: { service: 'checkout', host: 'web-1' },
                                                                        values: b.map((l) => [isoNs(), l]) }] })) },
  'loki-proto': { target: '/loki/api/v1/push', type: 'application/x-protobuf', ok: 204,
                  body: (b) => snappy.compressSync(Buffer.from(PushRequest.encode(PushRequest.create({
                    streams: [{ labels: Buffer.from(labels),
                                entries: b.map((l) => ({ timestamp: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
                                                         line: Buffer.from(l) })) }] })).finish())) },
  'otlp-json': { target: '/v1/logs', type: 'application/json', ok: 200,
                 body: (b) => Buffer.from(JSON.stringify({ resourceLogs: [{
                   resource: { attributes: [{ key: 'service.name', value: { stringValue: 'checkout' } }] },
                   scopeLogs: [{ scope: { name: 'bench' }, logRecords: b.map((l) => ({
                     timeUnixNano: isoNs(), severityNumber: 9, severityText: 'INFO', body: { stringValue: l } })) }] }] })) },
  'otlp-proto': { target: '/v1/logs', type: 'application/x-protobuf', ok: 200,
                  // logsift's .proto declares OTLP's string fields as bytes (wire-identical), so
                  // protobufjs is given Buffers for them.
                  body: (b) => Buffer.from(ExportLogs.encode(ExportLogs.create({ resourceLogs: [{
                    resource: { attributes: [{ key: Buffer.from('service.name'),
                                               value: { stringValue: Buffer.from('checkout') } }] },
                    scopeLogs: [{ scope: { name: Buffer.from('bench') }, logRecords: b.map((l) => ({
                      timeUnixNano: Date.now() * 1000000, severityNumber: 9,
                      body: { stringValue: Buffer.from(l) } })) }] }] })).finish()) },
  'bulk': { target: '/_bulk', type: 'application/x-ndjson', ok: 200,
            body: (b) => Buffer.from(b.map((l) => '{"index":{"_index":"logs"}}\n' +
                                               JSON.stringify({ message: l, 'service.name': 'checkout' })).join('\n') + '\n') },
};

async function run_http(port, name) {
  const p = http_protocols[name];
  const bodies = batches.map(p.body);
  const t0 = nowNs();
  for (const body of bodies) {
    const r = await request(port, 'POST', p.target, body, p.type);
    if (r.status !== p.ok) throw new Error(`${name}: HTTP ${r.status} ${r.body.toString().slice(0, 200)}`);
  }
  return Number(nowNs() - t0) / 1e9;
}

function run_tcp(port) {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(lines.join('\n') + '\n');
    const sock = net.connect(port, '127.0.0.1');
    let replies = 0;
    const t0 = nowNs();
    sock.on('data', (chunk) => {
      for (let i = 0; i < chunk.length; ++i) if (chunk[i] === 10) ++replies;
      if (replies >= lines.length) { sock.end(); resolve(Number(nowNs() - t0) / 1e9); }
    });
    sock.on('error', reject);
    sock.write(data);
  });
}

async function run_syslog(http_port, port) {
  const frames = lines.map((l) => {
    const msg = Buffer.from(`<14>1 2026-11-23T12:00:00.000Z web-1 checkout 42 - - ${l}`);
    return Buffer.concat([Buffer.from(`${msg.length} `), msg]);
  });
  const data = Buffer.concat(frames);
  const before = await metric(http_port, 'logsift_lines_clustered_total');
  const t0 = nowNs();
  await new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => sock.end(data));
    sock.on('close', resolve);
    sock.on('error', reject);
  });
  for (;;) {
    if ((await metric(http_port, 'logsift_lines_clustered_total')) - before >= lines.length) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  return Number(nowNs() - t0) / 1e9;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'logsift-ingest-'));
  const server = spawn(bin, ['serve', '--http-port', '0', '--tcp-port', '0', '--syslog-port', '0', '--data-dir', dir],
                       { stdio: ['ignore', 'ignore', 'pipe'] });
  const ports = await new Promise((resolve, reject) => {
    let buf = '';
    server.stderr.on('data', (c) => {
      buf += c;
      const m = buf.match(/http=\S+:(\d+) tcp=\S+:(\d+) syslog=\S+:(\d+)/);
      if (m) resolve({ http: Number(m[1]), tcp: Number(m[2]), syslog: Number(m[3]) });
    });
    server.on('exit', () => reject(new Error('server exited: ' + buf)));
  });
  try {
    await run_http(ports.http, 'http-ndjson');  // warm-up: every line seen, every template cached
    const order = ['http-ndjson', 'tcp', 'syslog', 'loki-json', 'loki-proto', 'otlp-json', 'otlp-proto', 'bulk'];
    const rates = {};
    for (const name of order) {
      const s = name === 'tcp' ? await run_tcp(ports.tcp)
              : name === 'syslog' ? await run_syslog(ports.http, ports.syslog)
              : await run_http(ports.http, name);
      rates[name] = lines.length / s;
      console.log(`RESULT ingest protocol=${name} lines=${lines.length} batch=${name === 'tcp' || name === 'syslog' ? 1 : batch} ` +
                  `seconds=${s.toFixed(3)} lines_per_s=${Math.round(rates[name])} ` +
                  `vs_http_ndjson=${(rates[name] / rates['http-ndjson']).toFixed(2)}`);
    }
    const clustered = await metric(ports.http, 'logsift_lines_clustered_total');
    console.log(`RESULT ingest lines_clustered_total=${clustered} expected=${lines.length * (order.length + 1)}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.on('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
