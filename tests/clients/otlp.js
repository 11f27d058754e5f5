// The OpenTelemetry JS logs SDK with its OTLP/HTTP exporter (protobuf or
// JSON), exporting to logsift's /v1/logs. Usage: node otlp.js proto|json PORT COUNT
// (LOGSIFT_BASE_URL, e.g. https://localhost:PORT, replaces http://127.0.0.1:PORT;
// NODE_EXTRA_CA_CERTS names the CA that signed its certificate)
// Emits COUNT "user N logged in" records (INFO) and COUNT/4 "payment failed"
// records (ERROR) from service.name=checkout, flushes, and exits 0 only if
// every export reported SUCCESS.
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { SeverityNumber } = require('@opentelemetry/api-logs');

const [mode, port, countArg] = process.argv.slice(2);
const count = Number(countArg || 10);
const { OTLPLogExporter } = require(mode === 'proto' ? '@opentelemetry/exporter-logs-otlp-proto'
                                                      : '@opentelemetry/exporter-logs-otlp-http');
const exporter = new OTLPLogExporter({ url: `${process.env.LOGSIFT_BASE_URL || `http://127.0.0.1:${port}`}/v1/logs` });
let calls = 0, failures = 0;
const exportOnce = exporter.export.bind(exporter);
exporter.export = (records, done) => exportOnce(records, (result) => {
  ++calls;
  if (result.code !== 0) { ++failures; console.error('otlp export failed:', result.error && result.error.message); }
  done(result);
});
const provider = new LoggerProvider({
  resource: resourceFromAttributes({ 'service.name': 'checkout', 'host.name': 'web-1' }),
  processors: [new BatchLogRecordProcessor({ exporter, maxExportBatchSize: 256, scheduledDelayMillis: 100 })],
});
const logger = provider.getLogger('app.payments', '1.2.3');
for (let i = 0; i < count; ++i) {
  logger.emit({ severityNumber: SeverityNumber.INFO, severityText: 'INFO',
                body: `user ${1000 + i} logged in from 10.0.${i % 250}.7`, attributes: { 'user.id': 1000 + i } });
  if (i % 4 === 0)
    logger.emit({ severityNumber: SeverityNumber.ERROR, body: `payment failed: card declined for order ${90000 + i}` });
}
provider.forceFlush().then(() => provider.shutdown()).then(() => {
  console.log(JSON.stringify({ exports: calls, failures }));
  process.exit(failures || !calls ? 1 : 0);
});
