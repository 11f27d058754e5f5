// Real log shipper clients from npm, installed by
// `docker/setup.sh test` (npm ci of tests/clients into the build directory)
// and run live against the server: winston-loki pushing protobuf + snappy
// and JSON to /loki/api/v1/push, and the OpenTelemetry JS logs SDK with its
// OTLP/HTTP exporters (protobuf and JSON) to /v1/logs. Each client must
// report success itself, and the catalog must hold exactly what it sent.
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

const std::string kClients = LOGSIFT_NPM_CLIENTS_DIR;
const std::string kScripts = std::string(LOGSIFT_SOURCE_DIR) + "/tests/clients/";

bool clients_installed() {
  return ::access("/usr/bin/node", X_OK) == 0 &&
         ::access((kClients + "/node_modules/winston-loki/package.json").c_str(), R_OK) == 0 &&
         ::access((kClients + "/node_modules/@opentelemetry/sdk-logs/package.json").c_str(), R_OK) == 0;
}

RunResult run_client(const std::string& script, const std::string& mode, int port, int count) {
  return run_program({"/usr/bin/node", kScripts + script, mode, std::to_string(port), std::to_string(count)}, "",
                     {{"NODE_PATH", kClients + "/node_modules"}}, Millis(60000));
}

// template -> count, over clusters with the label service=checkout.
std::map<std::string, long long> checkout_templates(int port) {
  std::map<std::string, long long> out;
  auto r = http_get(port, "/clusters?label=service:checkout&limit=100");
  for (const auto& c : r.json_body().value("clusters", json::array()))
    out[c.value("template", "")] += c.value("count", 0LL);
  return out;
}

TEST(NpmClients, LokiAndOtlpClientsDeliverEveryLineWithTheirLabels) {
  if (!clients_installed())
    GTEST_SKIP() << "node or the npm clients are missing: docker/setup.sh test installs them into " << kClients;
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  const std::string logged_in = "user <*> logged in from <*>";
  const std::string payment = "payment failed: <*>";  // slots-v2: the cause after a failure is a value
  struct Run {
    const char* script;
    const char* mode;
  };
  const Run runs[] = {{"loki.js", "proto"}, {"loki.js", "json"}, {"otlp.js", "proto"}, {"otlp.js", "json"}};
  const int count = 40;  // per run: 40 "logged in" lines and 10 "payment failed" lines
  long long expect_logged = 0, expect_payment = 0;
  std::map<std::string, std::string> ids;  // template -> cluster id, the same for every client
  for (const auto& run : runs) {
    SCOPED_TRACE(std::string(run.script) + " " + run.mode);
    auto r = run_client(run.script, run.mode, port, count);
    ASSERT_TRUE(r.exit.clean()) << r.describe();
    expect_logged += count;
    expect_payment += count / 4;
    // The client got its success reply only after the lines were in the catalog.
    auto t = checkout_templates(port);
    EXPECT_EQ(t[logged_in], expect_logged) << "labelled service=checkout, from the stream labels / service.name";
    EXPECT_EQ(t[payment], expect_payment);
    EXPECT_EQ(t.size(), 2u) << "only the two statements, whatever the protocol";
    auto all = fetch_all_clusters(port);
    ASSERT_TRUE(all.has_value());
    for (const auto& c : *all) {
      const std::string tmpl = c.value("template", "");
      if (ids.count(tmpl)) {
        EXPECT_EQ(ids[tmpl], c.value("cluster_id", "")) << tmpl;
      }
      ids[tmpl] = c.value("cluster_id", "");
    }
  }
  // Level labels: the error lines carry level=error, from winston's level and
  // from the OTLP severity number.
  auto errors = http_get(port, "/clusters?label=level:error&limit=100").json_body();
  ASSERT_EQ(errors.value("total", 0), 1) << errors.dump();
  EXPECT_EQ(errors["clusters"][0].value("template", ""), payment);
  EXPECT_EQ(errors["clusters"][0].value("count", 0LL), expect_payment);
}

// The clients' own success signal is what the test above relies on: against
// a port nothing listens on, each of them must say it failed.
TEST(NpmClients, ClientsReportAFailedPush) {
  if (!clients_installed()) GTEST_SKIP() << "node or the npm clients are missing";
  for (const char* script : {"loki.js", "otlp.js"}) {
    auto r = run_client(script, "proto", 1, 2);
    EXPECT_TRUE(r.exit.exited && r.exit.code == 1 && !r.timed_out)
        << script << " must exit 1 by itself with nothing listening:\n" << r.describe();
  }
}

}  // namespace
}  // namespace logsift_it
