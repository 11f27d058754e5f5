// TCP line protocol against a real `logsift serve` process.
#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

constexpr int kMaxLineBytes = 1024;

// One server for the suite; max_line_bytes comes from the environment here
// (LOGSIFT_MAX_LINE_BYTES) to exercise that config path.
class TcpApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions opts;
    opts.env = {{"LOGSIFT_MAX_LINE_BYTES", std::to_string(kMaxLineBytes)}};
    server_ = new ServerProcess(opts);
    auto r = server_->start_ready();
    start_ok_ = static_cast<bool>(r);
    start_error_ = r.message();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(start_ok_) << start_error_;
    ASSERT_TRUE(server_->running()) << "server died earlier\n" << server_->log_text();
    http_ = server_->http_port();
    tcp_ = server_->tcp_port();
    ASSERT_TRUE(client_.connect(tcp_));
  }
  void TearDown() override {
    if (HasFailure() && server_) {
      std::string log = server_->log_text();
      if (log.size() > 3000) log = log.substr(log.size() - 3000);
      std::cerr << "--- server log tail ---\n" << log << "\n";
    }
  }

  // Sends one line and returns the parsed reply line.
  json roundtrip(const std::string& line_with_newline) {
    EXPECT_TRUE(client_.send_all(line_with_newline)) << client_.last_error();
    auto reply = client_.read_line();
    EXPECT_TRUE(reply.has_value()) << "no reply line for: " << line_with_newline.substr(0, 200)
                                   << " (" << client_.last_error() << ")";
    if (!reply) return json::value_t::discarded;
    json j = json::parse(*reply, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "reply is not JSON: " << *reply;
    return j;
  }

  // Expected result for a text, from the HTTP API.
  json via_http(const std::string& text) {
    HttpResponse r = post_infer(http_, text);
    EXPECT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    EXPECT_TRUE(is_inference_result(j)) << text;
    return j;
  }

  static ::testing::AssertionResult same_ids(const json& got, const json& want) {
    if (!is_inference_result(got)) return is_inference_result(got);
    if (got["cluster_id"] == want["cluster_id"] && got["template_id"] == want["template_id"] &&
        got["template"] == want["template"]) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "got " << got.dump() << " want " << want.dump();
  }

  static ServerProcess* server_;
  static bool start_ok_;
  static std::string start_error_;
  int http_ = 0;
  int tcp_ = 0;
  TcpLineClient client_;
};

ServerProcess* TcpApi::server_ = nullptr;
bool TcpApi::start_ok_ = false;
std::string TcpApi::start_error_;

TEST_F(TcpApi, PlainLineGetsResult) {
  json want = via_http("User alice logged in");
  json got = roundtrip("User alice logged in\n");
  EXPECT_TRUE(same_ids(got, want));
  EXPECT_FALSE(got.value("new", true)) << "cluster was already seen via HTTP: " << got;
}

TEST_F(TcpApi, CrLfLineEndingAccepted) {
  json want = via_http("Disk /dev/sda1 is full");
  json got = roundtrip("Disk /dev/sda1 is full\r\n");
  EXPECT_TRUE(same_ids(got, want));
  if (got.contains("template") && got["template"].is_string()) {
    EXPECT_EQ(got["template"].get<std::string>().find('\r'), std::string::npos) << got;
  }
}

TEST_F(TcpApi, JsonEnvelopeMessageFields) {
  const std::string a = "User alice logged in";
  const std::string b = "Disk /dev/sda1 is full";
  json want_a = via_http(a);
  json want_b = via_http(b);
  ASSERT_NE(want_a["cluster_id"], want_b["cluster_id"]);
  for (const char* key : {"message", "msg", "log", "text"}) {
    SCOPED_TRACE(key);
    EXPECT_TRUE(same_ids(roundtrip(json{{key, a}}.dump() + "\n"), want_a));
  }
  // Precedence: message > msg > log > text, whatever the order in the object.
  EXPECT_TRUE(same_ids(roundtrip(R"({"text": ")" + b + R"(", "message": ")" + a + "\"}\n"),
                       want_a));
  EXPECT_TRUE(same_ids(roundtrip(R"({"log": ")" + b + R"(", "msg": ")" + a + "\"}\n"), want_a));
  EXPECT_TRUE(
      same_ids(roundtrip(R"({"text": ")" + b + R"(", "log": ")" + a + "\"}\n"), want_a));
}

TEST_F(TcpApi, EnvelopeLabelsAreStored) {
  const std::string t1 = "Scheduler tcplabel-kilo skipped 4 jobs during maintenance window";
  const std::string t2 = "Replication tcplabel-lima lag reached 912 seconds on standby";
  json r1 = roundtrip(json{{"message", t1},
                           {"labels", {{"service", "cron"}, {"level", "warn"}, {"host", "db-2"}}}}
                          .dump() +
                      "\n");
  json r2 = roundtrip(
      json{{"msg", t2}, {"service", "pg"}, {"level", "error"}, {"host", "db-3"}}.dump() + "\n");
  ASSERT_TRUE(is_inference_result(r1));
  ASSERT_TRUE(is_inference_result(r2));
  struct Case {
    json result;
    std::string text;
    std::map<std::string, std::string> labels;
  };
  for (const Case& c : {Case{r1, t1, {{"service", "cron"}, {"level", "warn"}, {"host", "db-2"}}},
                        Case{r2, t2, {{"service", "pg"}, {"level", "error"}, {"host", "db-3"}}}}) {
    SCOPED_TRACE(c.text);
    HttpResponse r = http_get(http_, "/clusters/" + c.result["cluster_id"].get<std::string>());
    ASSERT_EQ(r.status, 200) << r.describe();
    json d = r.json_body();
    ASSERT_TRUE(d.contains("examples") && d["examples"].is_array()) << d;
    bool found = false;
    for (const auto& ex : d["examples"]) {
      if (!ex.is_object() || ex.value("text", "") != c.text) continue;
      found = true;
      ASSERT_TRUE(ex.contains("labels") && ex["labels"].is_object()) << ex;
      for (const auto& [k, v] : c.labels) EXPECT_EQ(ex["labels"].value(k, ""), v) << ex;
    }
    EXPECT_TRUE(found) << "example not found in " << d;
  }
}

TEST_F(TcpApi, ThousandLinesInOneWriteKeepOrder) {
  const std::vector<std::string> texts = {
      "User alice logged in",
      "Disk /dev/sda1 is full",
      "Connection from 10.0.0.1 port 22 closed",
      "Starting nightly backup job for database orders",
      "Cache eviction removed 342 entries from region sessions",
      "Worker thread 12 restarted after fatal signal 11",
      "Request 5521 completed in 87 ms with status 200",
  };
  std::vector<json> want;
  std::set<std::string> distinct_templates;
  for (const auto& t : texts) {
    want.push_back(via_http(t));
    ASSERT_TRUE(is_inference_result(want.back()));
    distinct_templates.insert(want.back()["template_id"].get<std::string>());
  }
  ASSERT_GE(distinct_templates.size(), 5u) << "need distinguishable replies to check order";

  constexpr int kLines = 1000;
  std::mt19937 rng(12345);
  std::vector<std::size_t> order(kLines);
  std::string payload;
  for (int i = 0; i < kLines; ++i) {
    order[i] = rng() % texts.size();
    payload += texts[order[i]];
    payload += '\n';
  }
  auto counts_before = cluster_counts(http_);
  ASSERT_TRUE(counts_before.has_value());

  ASSERT_TRUE(client_.send_all(payload)) << client_.last_error();
  std::vector<std::string> replies = client_.read_lines(kLines, Millis(30000));
  ASSERT_EQ(replies.size(), static_cast<std::size_t>(kLines)) << client_.last_error();
  int mismatches = 0;
  for (int i = 0; i < kLines; ++i) {
    json j = json::parse(replies[i], nullptr, false);
    auto same = same_ids(j, want[order[i]]);
    if (!same && ++mismatches <= 3) ADD_FAILURE() << "line " << i << ": " << same.message();
  }
  EXPECT_EQ(mismatches, 0);

  auto counts_after = cluster_counts(http_);
  ASSERT_TRUE(counts_after.has_value());
  EXPECT_EQ(total_count(*counts_after) - total_count(*counts_before), kLines);
}

// A batch of seen lines finishes in the analysis while an earlier batch of
// the same connection waits for the models: replies still come back in input
// order. The expected ids are taken afterwards over HTTP (ids are a pure
// function of the line).
TEST_F(TcpApi, RepliesStayInOrderWhenLaterBatchesFinishFirst) {
  const auto reordered_before = fetch_metric(http_, "logsift_tcp_batches_reordered_total");
  ASSERT_TRUE(reordered_before.has_value());
  const std::vector<std::string> seen = {"User alice logged in", "Disk /dev/sda1 is full"};
  for (const auto& t : seen) ASSERT_TRUE(is_inference_result(via_http(t)));
  // Words no line had before: each costs the denoiser a first look, so a
  // write of a few hundred such lines keeps its batch in the models for
  // milliseconds, while a burst of seen lines needs none.
  const std::vector<std::string> syllables = {"ka", "lo", "mi", "ren", "tor", "vas", "qui", "zel", "dor", "pha",
                                              "nu", "ber", "sol", "gri", "wen", "tak"};
  auto word = [&](uint64_t n) {
    std::string w;
    for (int k = 0; k < 4; ++k, n /= syllables.size()) w += syllables[n % syllables.size()];
    return w;
  };
  std::vector<std::string> sent;
  for (int round = 0; round < 6; ++round) {
    std::string slow;
    for (int i = 0; i < 300; ++i) {
      const uint64_t n = static_cast<uint64_t>(round) * 300 + static_cast<uint64_t>(i);
      const std::string line = "Migrating " + word(n * 7 + 1) + " vault to " + word(n * 13 + 5) + " tier";
      slow += line + "\n";
      sent.push_back(line);
    }
    // The last line of a write waits for the next (it may begin a
    // multi-line event): a seen line ends the slow write.
    slow += seen[1] + "\n";
    sent.push_back(seen[1]);
    ASSERT_TRUE(client_.send_all(slow));
    // Time is the input here: the server must have read the slow write
    // before the burst arrives, or both are one read and one batch.
    std::this_thread::sleep_for(Millis(3));
    std::string burst;
    for (int k = 0; k < 3; ++k) {
      burst += seen[k % 2] + "\n";
      sent.push_back(seen[k % 2]);
    }
    ASSERT_TRUE(client_.send_all(burst));
  }
  std::vector<std::string> replies = client_.read_lines(sent.size(), Millis(60000));
  ASSERT_EQ(replies.size(), sent.size()) << client_.last_error();
  // What each line gets over HTTP, in chunks.
  std::vector<json> want;
  for (size_t i = 0; i < sent.size(); i += 500) {
    json texts = json::array();
    for (size_t k = i; k < std::min(sent.size(), i + 500); ++k) texts.push_back(sent[k]);
    HttpResponse r = post_json(http_, {{"texts", texts}});
    ASSERT_EQ(r.status, 200) << r.describe();
    const json body = r.json_body();
    ASSERT_TRUE(body.contains("results")) << r.describe();
    for (const auto& x : body["results"]) want.push_back(x);
  }
  ASSERT_EQ(want.size(), sent.size());
  int mismatches = 0;
  for (size_t i = 0; i < sent.size(); ++i) {
    auto same = same_ids(json::parse(replies[i], nullptr, false), want[i]);
    if (!same && ++mismatches <= 3) ADD_FAILURE() << "reply " << i << " (" << sent[i] << "): " << same.message();
  }
  EXPECT_EQ(mismatches, 0);
  // The case this test is about happened: a later batch finished first and
  // waited for the earlier one.
  const auto reordered_after = fetch_metric(http_, "logsift_tcp_batches_reordered_total");
  ASSERT_TRUE(reordered_after.has_value());
  EXPECT_GT(*reordered_after, *reordered_before) << "no batch finished out of order: the ordering went unchecked";
}

TEST_F(TcpApi, OverlongLineGetsErrorThenConnectionStillWorks) {
  auto rejected_before = fetch_metric(http_, "logsift_rejected_total");
  ASSERT_TRUE(rejected_before.has_value());
  json want = via_http("User alice logged in");
  // Over-long line and a good line in one write.
  std::string payload = long_text(kMaxLineBytes + 200) + "\n" + "User alice logged in\n";
  ASSERT_TRUE(client_.send_all(payload));
  auto lines = client_.read_lines(2);
  ASSERT_EQ(lines.size(), 2u) << client_.last_error();
  EXPECT_TRUE(is_error_object(json::parse(lines[0], nullptr, false))) << lines[0];
  EXPECT_TRUE(same_ids(json::parse(lines[1], nullptr, false), want));

  // A much longer line (many times the limit) sent on its own is also rejected.
  ASSERT_TRUE(client_.send_all(long_text(kMaxLineBytes * 40) + "\n"));
  auto err = client_.read_line();
  ASSERT_TRUE(err.has_value()) << client_.last_error();
  EXPECT_TRUE(is_error_object(json::parse(*err, nullptr, false))) << err->substr(0, 300);
  EXPECT_TRUE(same_ids(roundtrip("User alice logged in\n"), want));

  // Exactly at the limit is accepted.
  json at_limit = roundtrip(long_text(kMaxLineBytes) + "\n");
  EXPECT_TRUE(is_inference_result(at_limit)) << at_limit;

  auto rejected_after = fetch_metric(http_, "logsift_rejected_total");
  ASSERT_TRUE(rejected_after.has_value());
  EXPECT_GE(*rejected_after, *rejected_before + 2) << "TCP rejections must be counted";
}

TEST_F(TcpApi, InvalidUtf8LineGetsErrorThenConnectionStillWorks) {
  json want = via_http("Disk /dev/sda1 is full");
  std::string payload = std::string("bad \xff\xfe bytes here\n") + "Disk /dev/sda1 is full\n" +
                        std::string("{\"message\": \"bad \xc3\x28 inside json\"}\n") +
                        "Disk /dev/sda1 is full\n";
  ASSERT_TRUE(client_.send_all(payload));
  auto lines = client_.read_lines(4);
  ASSERT_EQ(lines.size(), 4u) << client_.last_error();
  EXPECT_TRUE(is_error_object(json::parse(lines[0], nullptr, false))) << lines[0];
  EXPECT_TRUE(same_ids(json::parse(lines[1], nullptr, false), want));
  EXPECT_TRUE(is_error_object(json::parse(lines[2], nullptr, false))) << lines[2];
  EXPECT_TRUE(same_ids(json::parse(lines[3], nullptr, false), want));
}

TEST_F(TcpApi, EmptyLineGetsError) {
  json want = via_http("User alice logged in");
  ASSERT_TRUE(client_.send_all("\nUser alice logged in\n\r\nUser alice logged in\n"));
  auto lines = client_.read_lines(4);
  ASSERT_EQ(lines.size(), 4u) << client_.last_error();
  EXPECT_TRUE(is_error_object(json::parse(lines[0], nullptr, false))) << lines[0];
  EXPECT_TRUE(same_ids(json::parse(lines[1], nullptr, false), want));
  EXPECT_TRUE(is_error_object(json::parse(lines[2], nullptr, false))) << lines[2];
  EXPECT_TRUE(same_ids(json::parse(lines[3], nullptr, false), want));
}

TEST_F(TcpApi, ConcurrentConnectionsEachKeepTheirOrder) {
  const std::vector<std::string> texts = {"User alice logged in", "Disk /dev/sda1 is full",
                                          "Connection from 10.0.0.1 port 22 closed",
                                          "Starting nightly backup job for database orders"};
  std::vector<json> want;
  for (const auto& t : texts) want.push_back(via_http(t));
  constexpr int kConns = 4;
  constexpr int kLines = 250;
  std::atomic<int> bad{0};
  std::mutex m;
  std::string first_error;
  std::vector<std::thread> threads;
  for (int c = 0; c < kConns; ++c) {
    threads.emplace_back([&, c] {
      auto fail = [&](const std::string& e) {
        ++bad;
        std::lock_guard<std::mutex> lock(m);
        if (first_error.empty()) first_error = e;
      };
      TcpLineClient cl;
      if (!cl.connect(tcp_)) return fail("connect failed");
      std::string payload;
      for (int i = 0; i < kLines; ++i) payload += texts[(i * (c + 1)) % texts.size()] + "\n";
      if (!cl.send_all(payload)) return fail("send: " + cl.last_error());
      auto lines = cl.read_lines(kLines, Millis(30000));
      if (lines.size() != static_cast<std::size_t>(kLines))
        return fail("conn " + std::to_string(c) + " got " + std::to_string(lines.size()) +
                    " lines");
      for (int i = 0; i < kLines; ++i) {
        auto same = same_ids(json::parse(lines[i], nullptr, false),
                             want[(i * (c + 1)) % texts.size()]);
        if (!same) return fail("conn " + std::to_string(c) + " line " + std::to_string(i) +
                               ": " + same.message());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0) << first_error;
}

// --- tcp_replies=false: nothing written back, lines still counted ---

TEST(TcpNoReplies, LinesAreCountedButNothingIsWrittenBack) {
  ServerOptions opts;
  opts.args = {"--tcp-replies", "false"};
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready());
  const int http = server.http_port();

  HttpResponse first = post_infer(http, "User alice logged in");
  ASSERT_EQ(first.status, 200) << first.describe();
  ASSERT_TRUE(is_inference_result(first.json_body())) << first.describe();
  const std::string id = first.json_body()["cluster_id"];
  auto lines_before = fetch_metric(http, "logsift_lines_total");
  ASSERT_TRUE(lines_before.has_value());

  constexpr int kLines = 100;
  TcpLineClient client;
  ASSERT_TRUE(client.connect(server.tcp_port()));
  std::string payload;
  for (int i = 0; i < kLines; ++i) payload += "User alice logged in\n";
  ASSERT_TRUE(client.send_all(payload));

  long long count = -1;
  bool counted = wait_until(
      [&] {
        json c = http_get(http, "/clusters/" + id).json_body();
        if (c.is_object() && c.contains("count") && c["count"].is_number_integer())
          count = c["count"].get<long long>();
        return count >= 1 + kLines;
      },
      Millis(15000));
  EXPECT_TRUE(counted) << "cluster count stayed at " << count << ", want " << 1 + kLines;
  EXPECT_EQ(count, 1 + kLines);
  auto lines_after = fetch_metric(http, "logsift_lines_total");
  ASSERT_TRUE(lines_after.has_value());
  EXPECT_GE(*lines_after, *lines_before + kLines);

  // Half-close: the server may close its side; it must not have written anything.
  ASSERT_TRUE(client.shutdown_write());
  bool eof = false;
  std::string received = client.read_until_eof(Millis(3000), &eof);
  EXPECT_TRUE(received.empty()) << "tcp_replies=false but the server wrote: "
                                << received.substr(0, 300);

  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

// --- connection bounds: idle timeouts and max_connections ---

TEST(ConnectionLimits, IdleConnectionsAreClosed) {
  ServerOptions opts;
  opts.args = {"--tcp-idle-timeout-ms", "300", "--http-idle-timeout-ms", "300"};
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready());
  // A TCP client that sends nothing, one that sends half a line, and an HTTP
  // client that sends half a request: all must be closed by the server.
  TcpLineClient tcp_silent, tcp_partial, http_partial;
  ASSERT_TRUE(tcp_silent.connect(server.tcp_port()));
  ASSERT_TRUE(tcp_partial.connect(server.tcp_port()));
  ASSERT_TRUE(http_partial.connect(server.http_port()));
  ASSERT_TRUE(tcp_partial.send_all("User alice logged"));
  ASSERT_TRUE(http_partial.send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n"));
  for (TcpLineClient* c : {&tcp_silent, &tcp_partial, &http_partial}) {
    bool eof = false;
    c->read_until_eof(Millis(10000), &eof);
    EXPECT_TRUE(eof) << "an idle connection was not closed within 10 s";
  }
  EXPECT_TRUE(server_healthy(server.http_port()));
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

// Each listener has its own limit: shippers holding every TCP slot (idle, as
// 1,030 of them once did) never make /healthz fail; and a full HTTP listener
// still answers health checks from a small reserve, and nothing else.
TEST(ConnectionLimits, HealthNeverDependsOnConnectionLimits) {
  ServerOptions opts;
  opts.args = {"--max-tcp-connections", "4", "--max-http-connections", "3"};
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready());
  std::vector<std::unique_ptr<TcpLineClient>> held;
  for (int i = 0; i < 4; ++i) {  // every TCP slot, idle
    held.push_back(std::make_unique<TcpLineClient>());
    ASSERT_TRUE(held.back()->connect(server.tcp_port()));
  }
  for (int i = 0; i < 3; ++i) {  // every HTTP slot, idle keep-alive connections
    held.push_back(std::make_unique<TcpLineClient>());
    ASSERT_TRUE(held.back()->connect(server.http_port()));
    ASSERT_TRUE(held.back()->send_all("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(held.back()->read_line()) << "a connection under the limit was not served";
  }
  // Over the HTTP limit: health, readiness and metrics still answer ...
  EXPECT_TRUE(server_healthy(server.http_port()));
  EXPECT_EQ(http_get(server.http_port(), "/readyz").status, 200);
  EXPECT_EQ(http_get(server.http_port(), "/metrics").status, 200);
  // ... and nothing else does (a JSON 503 with Retry-After).
  auto r = post_infer(server.http_port(), "User alice logged in");
  EXPECT_TRUE(is_json_error(r, 503)) << r.describe();
  EXPECT_EQ(r.header("retry-after"), "1");
  held.clear();
  EXPECT_TRUE(wait_until([&] { return post_infer(server.http_port(), "User alice logged in").status == 200; },
                         Millis(10000)));
}

TEST(ConnectionLimits, MaxConnectionsIsEnforcedAndFreedOnClose) {
  constexpr int kMax = 3;
  ServerOptions opts;
  opts.args = {"--max-tcp-connections", std::to_string(kMax)};
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready());
  const int tcp = server.tcp_port();
  std::vector<std::unique_ptr<TcpLineClient>> held;
  for (int i = 0; i < kMax; ++i) {
    held.push_back(std::make_unique<TcpLineClient>());
    ASSERT_TRUE(held.back()->connect(tcp));
    ASSERT_TRUE(held.back()->send_all("User alice logged in\n"));
    auto line = held.back()->read_line();
    ASSERT_TRUE(line.has_value()) << "connection " << i << " under the limit got no reply";
    EXPECT_TRUE(is_inference_result(json::parse(*line, nullptr, false))) << *line;
  }
  // One over the limit: refused (an error line and/or a close), never served.
  {
    TcpLineClient extra;
    ASSERT_TRUE(extra.connect(tcp));
    extra.send_all("User alice logged in\n");
    auto line = extra.read_line(Millis(5000));
    if (line) {
      EXPECT_TRUE(is_error_object(json::parse(*line, nullptr, false)))
          << "a connection over max_connections was served: " << *line;
    } else {
      EXPECT_TRUE(extra.eof()) << "over-limit connection neither answered nor closed";
    }
  }
  // Closing one frees a slot.
  held.front()->close();
  bool served = wait_until(
      [&] {
        TcpLineClient c;
        if (!c.connect(tcp) || !c.send_all("User alice logged in\n")) return false;
        auto line = c.read_line(Millis(2000));
        return line && is_inference_result(json::parse(*line, nullptr, false));
      },
      Millis(10000), Millis(50));
  EXPECT_TRUE(served) << "a slot freed by closing a connection was never reused";
  held.clear();
  EXPECT_TRUE(server_healthy(server.http_port()));
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

}  // namespace
}  // namespace logsift_it
