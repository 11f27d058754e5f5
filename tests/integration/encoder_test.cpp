// Serving with a bring-your-own TorchScript sentence encoder: the tiny test
// model written by tests/models/make_tiny_encoder.py (ctest fixture
// tiny_encoder; suites named TinyEncoder* get it), and bad encoder settings.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

std::string tiny(const std::string& file) { return std::string(LOGSIFT_TINY_ENCODER_DIR) + "/" + file; }

json tiny_expected() {
  std::ifstream in(tiny("expected.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, false);
}

const std::string kLine = "SdkClientException: Unable to execute HTTP request: Connect to 10.0.0.1:443 failed";

TEST(TinyEncoderServe, InfoAndStableIdsAcrossRestart) {
  json ex = tiny_expected();
  ASSERT_TRUE(ex.is_object()) << "missing " << tiny("expected.json") << ": run ctest -R tiny_encoder_generate";
  TempDir data("logsift-encoder-");
  ServerOptions opts;
  opts.data_dir = data.path();
  opts.args = {"--encoder-model", tiny("tiny_encoder.pt"), "--encoder-vocab", tiny("vocab.txt")};
  std::string first_id;
  {
    ServerProcess server(opts);
    ASSERT_TRUE(server.start_ready()) << server.log_text();
    HttpResponse info = http_get(server.http_port(), "/info");
    ASSERT_EQ(info.status, 200) << info.describe();
    json enc = info.json_body()["encoder"];
    EXPECT_EQ(enc["version"], ex["version"]) << enc;
    EXPECT_EQ(enc["dim"], ex["dim"]) << enc;
    EXPECT_EQ(enc["kind"], "torchscript") << enc;
    EXPECT_EQ(enc["source"], tiny("tiny_encoder.pt")) << enc;
    EXPECT_EQ(enc["max_len"], ex["max_len"]) << enc;
    EXPECT_EQ(enc["vocab_size"], ex["vocab_size"]) << enc;

    HttpResponse a = post_infer(server.http_port(), kLine);
    HttpResponse b = post_infer(server.http_port(), kLine);
    ASSERT_EQ(a.status, 200) << a.describe();
    ASSERT_EQ(b.status, 200) << b.describe();
    json ja = a.json_body(), jb = b.json_body();
    ASSERT_TRUE(is_inference_result(ja));
    ASSERT_TRUE(is_inference_result(jb));
    EXPECT_TRUE(is_hex16(ja["cluster_id"]));
    EXPECT_EQ(ja["cluster_id"], jb["cluster_id"]);
    EXPECT_TRUE(ja["new"].get<bool>());
    EXPECT_FALSE(jb["new"].get<bool>());
    first_id = ja["cluster_id"].get<std::string>();
    HttpResponse other = post_infer(server.http_port(), "Disk /dev/sda1 is full");
    ASSERT_EQ(other.status, 200) << other.describe();
    EXPECT_NE(other.json_body()["cluster_id"], ja["cluster_id"]);
    ProcessExit e = server.stop();
    EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
  }
  {
    ServerProcess server(opts);
    ASSERT_TRUE(server.start_ready()) << server.log_text();
    HttpResponse again = post_infer(server.http_port(), kLine);
    ASSERT_EQ(again.status, 200) << again.describe();
    EXPECT_EQ(again.json_body()["cluster_id"], first_id) << "the same line must keep its id across a restart";
    EXPECT_FALSE(again.json_body()["new"].get<bool>());
    ProcessExit e = server.stop();
    EXPECT_TRUE(e.clean()) << e.describe();
  }
  // The CLI, with the vocab read from inside the archive, agrees.
  RunResult cli = run_logsift({"cluster", "--encoder-model", tiny("tiny_encoder_with_vocab.pt"), "-"}, kLine + "\n");
  ASSERT_TRUE(cli.exit.clean()) << cli.describe();
  json j = json::parse(cli.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << cli.describe();
  EXPECT_EQ(j["cluster_id"], first_id);
}

// `serve` with a bad encoder setting exits non-zero at start-up naming the key.
void expect_serve_fails(const std::vector<std::string>& extra, const std::string& key) {
  TempDir data("logsift-encoder-cfg-");
  std::vector<std::string> args = {"serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "0", "--data-dir", data.path()};
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r = run_logsift(args, "", {}, Millis(30000));
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_TRUE(r.exit.exited && r.exit.code != 0) << r.describe();
  EXPECT_NE(r.err.find(key), std::string::npos) << "stderr must name '" << key << "'\n" << r.describe();
}

TEST(EncoderConfig, MissingModelFileStopsServe) {
  expect_serve_fails({"--encoder-model", "/nonexistent"}, "encoder_model");
}

TEST(EncoderConfig, FileThatIsNotTorchScriptStopsServe) {
  TempDir dir("logsift-encoder-bad-");
  dir.write_file("model.pt", "this is not a zip archive\n");
  expect_serve_fails({"--encoder-model", dir.file("model.pt")}, "encoder_model");
}

TEST(EncoderConfig, BadVocabAndMaxLenNameTheirKeys) {
  TempDir dir("logsift-encoder-bad-");
  dir.write_file("model.pt", "x");
  expect_serve_fails({"--encoder-model", dir.file("model.pt"), "--encoder-vocab", "/nonexistent"}, "encoder_vocab");
  expect_serve_fails({"--encoder-model", "hashed", "--encoder-max-len", "64"}, "encoder_max_len");
  expect_serve_fails({"--encoder-model", "", "--encoder-max-len", "64"}, "encoder_model");
}

}  // namespace
}  // namespace logsift_it

namespace logsift_it {
namespace {

// The default service: the built-in log-encoder-v1 and the LSH config are
// reported, and the founding pair gets one cluster id through the real server.
TEST(BuiltinEncoderServe, InfoReportsContractAndFoundingPairSharesAnId) {
  TempDir data("logsift-builtin-encoder-");
  ServerOptions opts;
  opts.data_dir = data.path();
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready()) << server.log_text();
  HttpResponse info = http_get(server.http_port(), "/info");
  ASSERT_EQ(info.status, 200) << info.describe();
  json j = info.json_body();
  EXPECT_EQ(j["encoder"]["version"], "log-encoder-v1") << j;
  EXPECT_EQ(j["encoder"]["kind"], "torchscript") << j;
  EXPECT_EQ(j["encoder"]["source"], "builtin") << j;
  EXPECT_EQ(j["encoder"]["dim"], 32) << j;
  EXPECT_EQ(j["encoder"]["max_len"], 128) << j;
  EXPECT_GT(j["encoder"]["vocab_size"].get<int>(), 1000) << j;
  EXPECT_EQ(j["lsh"]["bits"], 64) << j;
  EXPECT_EQ(j["lsh"]["seed"], 1337) << j;
  EXPECT_TRUE(j["denoiser"]["version"].is_string()) << j;
  EXPECT_EQ(j["slot_rules"], "slots-v4") << j;
  // What reduces a structured or syslog-formatted line to its message is part of the contract too.
  EXPECT_EQ(j["structured"]["enabled"], true) << j;
  EXPECT_EQ(j["structured"]["syslog_headers"], true) << j;
  EXPECT_EQ(j["structured"]["app_layouts"], "layouts-v3") << j;
  EXPECT_EQ(j["structured"]["keep_caller"], false) << j;
  EXPECT_EQ(j["structured"]["message_keys"][0], "msg") << j;

  HttpResponse a = post_infer(server.http_port(),
                              "com.amazonaws.SdkClientException: Unable to execute HTTP request: "
                              "a231d9e5-c804-4beb-a5cc-ca0d10868d22: Temporary failure in name resolution");
  HttpResponse b = post_infer(server.http_port(),
                              "SdkClientException: Unable to execute HTTP request: 4a13e174-8f4b-4572-98f8-7958a9330f77");
  HttpResponse c = post_infer(server.http_port(), "Connection closed to 10.0.3.17:5432");
  HttpResponse d = post_infer(server.http_port(), "Connection opened to 10.0.3.17:5432");
  for (auto* r : {&a, &b, &c, &d}) ASSERT_EQ(r->status, 200) << r->describe();
  EXPECT_EQ(a.json_body()["cluster_id"], b.json_body()["cluster_id"]) << a.body << "\n" << b.body;
  EXPECT_NE(a.json_body()["template_id"], b.json_body()["template_id"]);
  EXPECT_NE(c.json_body()["cluster_id"], d.json_body()["cluster_id"]);
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

// Slot rules over HTTP: one access-log statement and one quoted-value event
// each get one id (slots-v1 and later); two causes of one failure statement
// get one id from slots-v2 on; one statement whose formatter picked two
// units, and two lines of Envoy's access log, get one id with slots-v3; with
// slot_rules off (the ids of earlier releases) the same lines split. /info
// says which rules ran.
TEST(BuiltinEncoderServe, SlotRulesJoinValuesThatLookLikeWords) {
  const std::vector<std::string> access = {
      R"x(10.1.2.3 - - [25/Nov/2026:10:00:01 +0000] "GET /index.html HTTP/1.1" 200 612 "-" "curl/8.4.0")x",
      R"x(10.1.2.4 - alice [25/Nov/2026:10:00:02 +0000] "POST /api/login HTTP/2.0" 401 - "https://example.org/" "Mozilla/5.0 (X11; Linux x86_64)")x",
  };
  const std::vector<std::string> quoted = {
      "pam_limits(cron:session): Could not set limit for 'nofile' to soft=1024, hard=4096: Operation not permitted",
      "pam_limits(cron:session): Could not set limit for 'memlock' to soft=65536, hard=65536: Operation not permitted",
  };
  const std::vector<std::string> causes = {
      "failed to sync pod payments: dial tcp 10.0.0.7:443: connect: connection refused, will retry",
      "failed to sync pod payments: context deadline exceeded, will retry",
  };
  const std::vector<std::string> units = {
      "backup of orders finished: 1.5 GB in 12 s",
      "backup of orders finished: 830 KB in 250 ms",
  };
  const std::vector<std::string> envoy = {
      R"x([2026-11-26T12:00:00.123Z] "GET /api/v1/users HTTP/1.1" 200 - 0 1534 12 10 "10.0.0.1" "curl/8.4.0" "a1b2c3d4-1111-2222-3333-444455556666" "api.example.com" "10.0.0.2:8080")x",
      R"x([2026-11-26T12:00:02.789Z] "GET /healthz HTTP/1.1" 503 UF 0 91 1 - "-" "kube-probe/1.27" "c1b2c3d4-1111-2222-3333-444455556666" "10.0.0.3:15021" "-")x",
  };
  const std::vector<std::pair<const std::vector<std::string>*, int>> groups = {
      {&access, 1}, {&quoted, 1}, {&causes, 2}, {&units, 3}, {&envoy, 3}};  // the first version that joins the pair
  for (const std::string mode : {"slots-v4", "slots-v3", "slots-v2", "slots-v1", "off"}) {
    TempDir data("logsift-slots-");
    ServerOptions opts;
    opts.data_dir = data.path();
    if (mode == "off") opts.args = {"--slot-rules", "false"};  // the boolean of earlier releases still works
    if (mode == "slots-v1" || mode == "slots-v2" || mode == "slots-v3") opts.args = {"--slot-rules", mode};
    ServerProcess server(opts);
    ASSERT_TRUE(server.start_ready()) << server.log_text();
    json info = http_get(server.http_port(), "/info").json_body();
    if (mode == "off")
      EXPECT_TRUE(info["slot_rules"].is_null()) << info;
    else
      EXPECT_EQ(info["slot_rules"], mode) << info;
    const int level = mode == "off" ? 0 : mode.back() - '0';
    for (const auto& [group, joined_from] : groups) {
      std::vector<json> out;
      for (const auto& line : *group) {
        HttpResponse r = post_infer(server.http_port(), line);
        ASSERT_EQ(r.status, 200) << r.describe();
        out.push_back(r.json_body());
      }
      const bool joined = level >= joined_from;
      SCOPED_TRACE(mode + ": " + (*group)[0]);
      if (joined) {
        EXPECT_EQ(out[0]["cluster_id"], out[1]["cluster_id"]) << out[0] << "\n" << out[1];
        EXPECT_EQ(out[0]["template"], out[1]["template"]);
      } else {
        EXPECT_NE(out[0]["cluster_id"], out[1]["cluster_id"]) << out[0] << "\n" << out[1];
      }
    }
    ProcessExit e = server.stop();
    EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
  }
}

}  // namespace
}  // namespace logsift_it
