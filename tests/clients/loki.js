// winston-loki, the Loki transport of winston, pushing to logsift's
// /loki/api/v1/push. Usage: node loki.js proto|json PORT COUNT
// (LOGSIFT_BASE_URL, e.g. https://localhost:PORT, replaces http://127.0.0.1:PORT;
// NODE_EXTRA_CA_CERTS names the CA that signed its certificate)
// Logs COUNT "user N logged in" lines (info) and COUNT/4 "payment failed"
// lines (error) with stream labels app=checkout host=web-1, flushes, and
// exits 0, or 1 as soon as a push fails.
const winston = require('winston');
const LokiTransport = require('winston-loki');

const [mode, port, countArg] = process.argv.slice(2);
const count = Number(countArg || 10);
const transport = new LokiTransport({
  host: `${process.env.LOGSIFT_BASE_URL || `http://127.0.0.1:${port}`}`,
  json: mode === 'json',
  batching: true,
  interval: 0.2,
  labels: { app: 'checkout', host: 'web-1', env: 'prod' },
  // A failed push is final for this script (winston-loki would retry for a minute).
  onConnectionError: (err) => { console.error('loki push failed:', err && err.message); process.exit(1); },
});
const logger = winston.createLogger({ transports: [transport] });
for (let i = 0; i < count; ++i) {
  logger.info(`user ${1000 + i} logged in from 10.0.${i % 250}.7`);
  if (i % 4 === 0) logger.error(`payment failed: card declined for order ${90000 + i}`);
}
setTimeout(async () => {
  await transport.flush();
  setTimeout(() => process.exit(0), 300);
}, 1000);
