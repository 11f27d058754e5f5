// libFuzzer target: the HTTP ingest parsers (Loki push JSON and snappy
// protobuf, OTLP logs JSON and protobuf, Elasticsearch bulk). The first
// byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "service/api/bulk.h"
#include "service/api/loki.h"
#include "service/api/otlp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  logsift::IngestOptions opts;
  opts.max_entries = 1000;
  opts.max_decompressed_bytes = 1 << 20;
  std::vector<logsift::IngestEntry> out;
  switch (data[0] % 5) {
    case 0: logsift::parse_loki_json(body, opts, &out); break;
    case 1: logsift::parse_loki_protobuf(body, opts, &out); break;
    case 2: logsift::parse_otlp_logs_json(body, opts, &out); break;
    case 3: logsift::parse_otlp_logs_protobuf(body, opts, &out); break;
    default: {
      logsift::BulkOptions b;
      b.ingest = opts;
      logsift::BulkRequest req;
      if (!logsift::parse_bulk(body, "", b, &req)) logsift::bulk_response_body(req, 1);
    }
  }
  return 0;
}
