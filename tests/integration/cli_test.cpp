// Command-line interface: help, cluster, eval, and config validation.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Non-empty stdout lines parsed as JSON.
std::vector<json> json_lines(const std::string& out) {
  std::vector<json> v;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    v.push_back(json::parse(line, nullptr, false));
  }
  return v;
}

::testing::AssertionResult is_cluster_line(const json& j) {
  if (!j.is_object()) return ::testing::AssertionFailure() << "not an object: " << j.dump();
  for (const char* k : {"cluster_id", "template_id", "template"}) {
    if (!j.contains(k) || !j[k].is_string())
      return ::testing::AssertionFailure() << "missing string '" << k << "': " << j.dump();
  }
  if (!is_hex16(j["cluster_id"]) || !is_hex16(j["template_id"]))
    return ::testing::AssertionFailure() << "ids are not 16 lowercase hex: " << j.dump();
  return ::testing::AssertionSuccess();
}

const std::vector<std::string> kLines = {
    "Connection from 10.0.0.1 port 22 closed",
    "User alice logged in",
    "Connection from 192.168.1.7 port 2222 closed",
    "Disk /dev/sda1 is full",
    "User alice logged in",
    "Starting nightly backup job for database orders",
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// --- help and subcommands ---

TEST(Cli, HelpExitsZeroAndPrintsUsage) {
  const std::vector<std::vector<std::string>> cases = {
      {"--help"}, {"serve", "--help"}, {"cluster", "--help"}, {"eval", "--help"}};
  for (const auto& args : cases) {
    std::string name;
    for (const auto& a : args) name += a + " ";
    SCOPED_TRACE(name);
    RunResult r = run_logsift(args, "", {}, Millis(20000));
    EXPECT_TRUE(r.exit.clean()) << r.describe();
    std::string text = lower(r.out + r.err);
    EXPECT_NE(text.find("usage"), std::string::npos) << r.describe();
    if (args.size() == 2) {
      EXPECT_NE(text.find(args[0]), std::string::npos) << r.describe();
    }
  }
}

TEST(Cli, ErrorsExitNonZero) {
  TempDir dir("logsift-cli-");
  const std::vector<std::vector<std::string>> cases = {
      {"frobnicate"},                                       // unknown subcommand
      {"cluster", dir.file("does-not-exist.log")},          // unreadable input
      {"eval", dir.file("no-such-dir"), "--json"},          // no datasets.json
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(args[0] + " " + (args.size() > 1 ? args[1] : std::string()));
    RunResult r = run_logsift(args, "", {}, Millis(20000));
    EXPECT_FALSE(r.timed_out) << r.describe();
    EXPECT_TRUE(r.exit.exited && r.exit.code != 0) << r.describe();
  }
}

// --- cluster ---

TEST(Cli, ClusterFileOneObjectPerLineInOrder) {
  TempDir dir("logsift-cli-");
  dir.write_file("input.log", joined(kLines));
  RunResult r = run_logsift({"cluster", dir.file("input.log")});
  ASSERT_TRUE(r.exit.clean()) << r.describe();
  auto out = json_lines(r.out);
  ASSERT_EQ(out.size(), kLines.size()) << "one JSON object per input line expected\n"
                                       << r.describe();
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_TRUE(is_cluster_line(out[i])) << "line " << i;
  }
  if (::testing::Test::HasFailure()) return;
  // Order is the input order: the similar/identical pairs sit at known positions.
  EXPECT_EQ(out[0]["cluster_id"], out[2]["cluster_id"]);
  EXPECT_EQ(out[0]["template_id"], out[2]["template_id"]);
  EXPECT_EQ(out[1], out[4]);
  EXPECT_NE(out[1]["cluster_id"], out[3]["cluster_id"]);
  EXPECT_NE(out[0]["cluster_id"], out[1]["cluster_id"]);
  EXPECT_NE(out[3]["cluster_id"], out[5]["cluster_id"]);
}

TEST(Cli, ClusterDeterministicAcrossProcesses) {
  TempDir dir("logsift-cli-");
  dir.write_file("input.log", joined(kLines));
  RunResult from_file = run_logsift({"cluster", dir.file("input.log")});
  ASSERT_TRUE(from_file.exit.clean()) << from_file.describe();
  RunResult from_stdin = run_logsift({"cluster", "-"}, joined(kLines));
  ASSERT_TRUE(from_stdin.exit.clean()) << from_stdin.describe();
  auto a = json_lines(from_file.out);
  auto b = json_lines(from_stdin.out);
  ASSERT_EQ(a.size(), kLines.size()) << from_file.describe();
  ASSERT_EQ(b.size(), kLines.size()) << from_stdin.describe();
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("line " + std::to_string(i));
    ASSERT_TRUE(is_cluster_line(a[i]));
    ASSERT_TRUE(is_cluster_line(b[i]));
    EXPECT_EQ(a[i]["cluster_id"], b[i]["cluster_id"]);
    EXPECT_EQ(a[i]["template_id"], b[i]["template_id"]);
    EXPECT_EQ(a[i]["template"], b[i]["template"]);
  }
  // A line on its own gets the same ids as inside a bigger input.
  RunResult single = run_logsift({"cluster", "-"}, kLines[3] + "\n");
  ASSERT_TRUE(single.exit.clean()) << single.describe();
  auto s = json_lines(single.out);
  ASSERT_EQ(s.size(), 1u) << single.describe();
  EXPECT_EQ(s[0]["cluster_id"], a[3]["cluster_id"]);
  EXPECT_EQ(s[0]["template_id"], a[3]["template_id"]);
}

TEST(Cli, ClusterIdsMatchServer) {
  RunResult cli = run_logsift({"cluster", "-"}, joined(kLines));
  ASSERT_TRUE(cli.exit.clean()) << cli.describe();
  auto out = json_lines(cli.out);
  ASSERT_EQ(out.size(), kLines.size()) << cli.describe();
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  for (std::size_t i = 0; i < kLines.size(); ++i) {
    SCOPED_TRACE(kLines[i]);
    HttpResponse r = post_infer(server.http_port(), kLines[i]);
    ASSERT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    EXPECT_EQ(j["cluster_id"], out[i]["cluster_id"]) << "IDs need no coordination: the CLI and "
                                                        "the service must agree";
    EXPECT_EQ(j["template_id"], out[i]["template_id"]);
    EXPECT_EQ(j["template"], out[i]["template"]);
  }
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe();
}

// --- eval ---

// eval scores what the service clusters: logfmt lines of one statement with
// different per-line fields are one event with structured_messages (the
// default), and split when it is turned off.
TEST(Cli, EvalScoresStructuredLinesOnTheirMessage) {
  TempDir dir("logsift-eval-structured-");
  dir.write_file("datasets.json", R"({"Logfmt": {"log": "L/x.log", "truth": "L/x.csv", "format": "logfmt"}})");
  std::string log, csv = "LineId,Content,EventId,EventTemplate\n";
  // One statement; the fields around it differ from line to line.
  const char* extras[] = {"trace_id=4bf92f3577b34da6 status=200", "trace_id=00f067aa0ba902b7",
                          "user=alice", "user=bob retry=true cache=miss"};
  auto quote = [](const std::string& v) {
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (int i = 0; i < 4; ++i) {
    const std::string line = "ts=2026-11-23T10:00:0" + std::to_string(i) + "Z level=info msg=\"request served\" " + extras[i];
    log += line + "\n";
    csv += std::to_string(i + 1) + "," + quote(line) + ",E1,request served\n";
  }
  dir.write_file("L/x.log", log);
  dir.write_file("L/x.csv", csv);
  RunResult on = run_logsift({"eval", dir.path(), "--json"}, "", {}, Millis(60000));
  ASSERT_TRUE(on.exit.clean()) << on.describe();
  json j = json::parse(on.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << on.describe();
  EXPECT_EQ(j["datasets"]["Logfmt"]["ga"].get<double>(), 1.0) << j;
  RunResult off = run_logsift({"eval", dir.path(), "--json", "--structured-messages", "false"}, "", {}, Millis(60000));
  ASSERT_TRUE(off.exit.clean()) << off.describe();
  json k = json::parse(off.out, nullptr, false);
  ASSERT_TRUE(k.is_object()) << off.describe();
  EXPECT_LT(k["datasets"]["Logfmt"]["ga"].get<double>(), 1.0) << "the per-line fields split the event: " << k;
}

// A user's own labelled logs may hold bytes that are not UTF-8: --json still
// prints the whole report, U+FFFD in their place (it exited 1 with a
// type_error before), with the why-split counts.
TEST(Cli, EvalJsonSurvivesBytesThatAreNotUtf8) {
  TempDir dir("logsift-eval-bytes-");
  dir.write_file("datasets.json", R"({"Raw": {"truth": "raw.csv"}})");
  // Labelled as two events that differ by their last word, which is not
  // UTF-8: logsift masks it, so one id holds both and the merge's examples
  // carry the bytes into the report.
  dir.write_file("raw.csv",
                 "Content,EventTemplate\n"
                 "\"Order 4 placed by \xff\xfe\",Order <*> placed by X\n"
                 "\"Order 5 placed by \xfe\xff\",Order <*> placed by Y\n"
                 "\"Order 6 placed by \xfe\xff\",Order <*> placed by Y\n");
  RunResult r = run_logsift({"eval", dir.path(), "--json", "--explain", "5"}, "", {}, Millis(60000));
  ASSERT_TRUE(r.exit.clean()) << r.describe();
  json j = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.describe();
  const json& raw = j["datasets"]["Raw"];
  EXPECT_EQ(raw["lines"].get<size_t>(), 3u) << raw;
  ASSERT_EQ(raw["merged_clusters"].get<size_t>(), 1u) << raw;
  EXPECT_NE(r.out.find("\xef\xbf\xbd"), std::string::npos) << "U+FFFD stands for the bytes: " << r.out;
  ASSERT_TRUE(raw["split_causes"].is_object()) << raw;
  EXPECT_EQ(raw["split_causes"].size(), 4u) << raw;
  size_t caused = 0;
  for (const auto& [k, v] : raw["split_causes"].items()) caused += v.get<size_t>();
  EXPECT_LE(caused, raw["split_lines"].get<size_t>()) << raw;
  if (raw["split_events"].get<size_t>() > 0) {
    EXPECT_GE(caused, 1u) << "every split has a piece outside its largest: " << raw;
    EXPECT_EQ(raw["splits"][0]["parts"][0]["differs"].get<std::string>(), "") << raw;
  }
}

TEST(Cli, EvalTinyDatasetJson) {
  TempDir dir("logsift-eval-");
  dir.write_file("datasets.json", R"({"Tiny": {"log": "Tiny/x.log", "truth": "Tiny/x.csv", )"
                                  R"("format": "<Content>"}})");
  struct Row {
    std::string content, event, tmpl;
  };
  const std::vector<Row> rows = {
      {"Connection from 10.0.0.1 port 22 closed", "E1", "Connection from <*> port <*> closed"},
      {"User alice logged in", "E2", "User <*> logged in"},
      {"Disk /dev/sda1 is full", "E3", "Disk <*> is full"},
      {"Connection from 192.168.1.7 port 2222 closed", "E1", "Connection from <*> port <*> closed"},
      {"User bob logged in", "E2", "User <*> logged in"},
      {"Disk /dev/sdb2 is full", "E3", "Disk <*> is full"},
      {"Connection from 172.16.0.9 port 443 closed", "E1", "Connection from <*> port <*> closed"},
      {"User carol logged in", "E2", "User <*> logged in"},
      {"Disk /dev/nvme0n1 is full", "E3", "Disk <*> is full"},
      {"Connection from 10.9.8.7 port 8080 closed", "E1", "Connection from <*> port <*> closed"},
  };
  std::string log, csv = "LineId,Content,EventId,EventTemplate\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    log += rows[i].content + "\n";
    csv += std::to_string(i + 1) + "," + rows[i].content + "," + rows[i].event + "," +
           rows[i].tmpl + "\n";
  }
  dir.write_file("Tiny/x.log", log);
  dir.write_file("Tiny/x.csv", csv);

  RunResult r = run_logsift({"eval", dir.path(), "--json"}, "", {}, Millis(60000));
  ASSERT_TRUE(r.exit.clean()) << r.describe();
  // The report is one JSON document on stdout.
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "stdout is not one JSON document\n" << r.describe();
  ASSERT_TRUE(j.is_object()) << j;
  ASSERT_TRUE(j.contains("datasets") && j["datasets"].is_object()) << j;
  ASSERT_TRUE(j["datasets"].contains("Tiny")) << j;
  const json& t = j["datasets"]["Tiny"];
  for (const char* k : {"ga", "pa"}) {
    ASSERT_TRUE(t.contains(k) && t[k].is_number()) << k << " in " << t;
    EXPECT_GE(t[k].get<double>(), 0.0) << k;
    EXPECT_LE(t[k].get<double>(), 1.0) << k;
  }
  ASSERT_TRUE(t.contains("lines") && t["lines"].is_number_integer()) << t;
  EXPECT_EQ(t["lines"].get<long long>(), static_cast<long long>(rows.size()));
  for (const char* k : {"avg_ga", "avg_pa"}) {
    ASSERT_TRUE(j.contains(k) && j[k].is_number()) << k << " in " << j;
    EXPECT_GE(j[k].get<double>(), 0.0);
    EXPECT_LE(j[k].get<double>(), 1.0);
  }
  // One dataset: the averages are its scores.
  EXPECT_NEAR(j["avg_ga"].get<double>(), t["ga"].get<double>(), 1e-9);
  EXPECT_NEAR(j["avg_pa"].get<double>(), t["pa"].get<double>(), 1e-9);
}

// eval says why a score is what it is, on a user's own labelled directory:
// two statements labelled as one event are split over two ids, two lines the
// service groups but labelled as two events are a merge; both are named with
// example lines, in the text report and in --json.
TEST(Cli, EvalExplainsSplitsAndMergesOnAUsersOwnLabels) {
  TempDir dir("logsift-eval-explain-");
  dir.write_file("datasets.json", R"({"Mine": {"truth": "mine.csv"}})");
  dir.write_file("mine.csv",
                 "LineId,Content,EventId,EventTemplate\n"
                 "1,Disk /dev/sda1 is full,E1,one event <*>\n"
                 "2,Connection from 10.0.0.1 port 22 closed,E1,one event <*>\n"
                 "3,User alice logged in,E2,User alice logged in\n"
                 "4,User bob logged in,E3,User bob logged in\n");
  RunResult text = run_logsift({"eval", dir.path()}, "", {}, Millis(60000));
  ASSERT_TRUE(text.exit.clean()) << text.describe();
  EXPECT_NE(text.out.find("Mine: 3 events, 3 ids; 1 events split over several ids (2 lines), "
                          "1 ids hold several events (2 lines)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("split  2 lines of one event -> 2 ids: one event <*>"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("e.g. Disk /dev/sda1 is full"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("<- 2 events"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("e.g. User bob logged in"), std::string::npos) << text.out;

  RunResult js = run_logsift({"eval", dir.path(), "--json"}, "", {}, Millis(60000));
  ASSERT_TRUE(js.exit.clean()) << js.describe();
  json j = json::parse(js.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << js.describe();
  const json& m = j["datasets"]["Mine"];
  EXPECT_EQ(m["ga"].get<double>(), 0.0) << m;
  ASSERT_EQ(m["merges"].size(), 1u) << m;
  EXPECT_EQ(m["merges"][0]["events"].get<int>(), 2) << m;
  ASSERT_EQ(m["splits"].size(), 1u) << m;
  EXPECT_EQ(m["splits"][0]["parts"].size(), 2u) << m;

  RunResult quiet = run_logsift({"eval", dir.path(), "--explain", "0"}, "", {}, Millis(60000));
  ASSERT_TRUE(quiet.exit.clean()) << quiet.describe();
  EXPECT_EQ(quiet.out.find("split"), std::string::npos) << quiet.out;
  RunResult bad = run_logsift({"eval", dir.path(), "--explain", "lots"}, "", {}, Millis(60000));
  EXPECT_EQ(bad.exit.code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("--explain"), std::string::npos) << bad.describe();
}

// --- config validation ---

// `serve` with a bad value must exit non-zero and name the key on stderr.
void expect_config_error(const std::vector<std::string>& extra_args, const KeyValues& env,
                         const std::string& key) {
  TempDir data("logsift-cfg-");
  std::vector<std::string> args = {"serve", "--data-dir", data.path()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  RunResult r = run_logsift(args, "", env, Millis(20000));
  EXPECT_FALSE(r.timed_out) << "a bad config value must stop the server at start-up\n"
                            << r.describe();
  EXPECT_TRUE(r.exit.exited && r.exit.code != 0) << r.describe();
  EXPECT_NE(r.err.find(key), std::string::npos) << "stderr must name '" << key << "'\n"
                                                << r.describe();
}

TEST(ServeConfig, BadHttpPortFlagNamesKey) {
  expect_config_error({"--http-port", "abc", "--tcp-port", "0"}, {}, "http_port");
}

TEST(ServeConfig, BadHttpPortEnvNamesKey) {
  expect_config_error({"--tcp-port", "0"}, {{"LOGSIFT_HTTP_PORT", "99999"}}, "http_port");
}

TEST(ServeConfig, OtherBadValuesNameTheKey) {
  {
    SCOPED_TRACE("tcp_port");
    expect_config_error({"--http-port", "0", "--tcp-port", "-1"}, {}, "tcp_port");
  }
  {
    SCOPED_TRACE("max_line_bytes");
    expect_config_error({"--http-port", "0", "--tcp-port", "0", "--max-line-bytes", "abc"}, {},
                        "max_line_bytes");
  }
  {
    SCOPED_TRACE("tcp_replies");
    expect_config_error({"--http-port", "0", "--tcp-port", "0", "--tcp-replies", "maybe"}, {},
                        "tcp_replies");
  }
  {
    SCOPED_TRACE("max_body_bytes via env");
    expect_config_error({"--http-port", "0", "--tcp-port", "0"},
                        {{"LOGSIFT_MAX_BODY_BYTES", "-5"}}, "max_body_bytes");
  }
}

// --- pairs ---

// Three pairs with known outcomes under the default pipeline: two right (a
// same pair that differs only in variables, a diff pair of unrelated events)
// and one wrong on purpose (identical lines labelled diff).
const char* kPairsTsv =
    "# expect\tline_a\tline_b\tnote\n"
    "\n"
    "same\tConnection from 10.0.0.1 port 22 closed\tConnection from 192.168.1.7 port 2222 closed\tvariables only\n"
    "diff\tUser alice logged in\tDisk /dev/sda1 is full\n"
    "   \n"
    "diff\tDisk /dev/sda1 is full\tDisk /dev/sda1 is full\tlabelled wrong on purpose\r\n";

TEST(Cli, WordpieceAndPairsHelp) {
  for (const char* cmd : {"wordpiece", "pairs"}) {
    SCOPED_TRACE(cmd);
    RunResult r = run_logsift({cmd, "--help"});
    EXPECT_TRUE(r.exit.clean()) << r.describe();
    EXPECT_NE(r.out.find(std::string("usage: logsift ") + cmd), std::string::npos) << r.describe();
  }
}

TEST(Cli, PairsCountsAndPrintsWrongPairs) {
  TempDir dir("logsift-pairs-");
  dir.write_file("pairs.tsv", kPairsTsv);
  RunResult r = run_logsift({"pairs", dir.file("pairs.tsv")});
  ASSERT_TRUE(r.exit.clean()) << r.describe();
  EXPECT_NE(r.out.find("pair accuracy: 0.6667 (2/3); same: 1/1; diff: 1/2"), std::string::npos) << r.describe();
  // The wrong pair is printed with its line number, note and cluster ids.
  EXPECT_NE(r.out.find("line 6"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("labelled wrong on purpose"), std::string::npos) << r.describe();
  EXPECT_EQ(r.out.find("variables only"), std::string::npos) << "only wrong pairs are listed\n" << r.describe();

  RunResult j = run_logsift({"pairs", dir.file("pairs.tsv"), "--json"});
  ASSERT_TRUE(j.exit.clean()) << j.describe();
  json report = json::parse(j.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << j.describe();
  EXPECT_EQ(report["pairs"], 3);
  EXPECT_EQ(report["correct"], 2);
  EXPECT_NEAR(report["accuracy"].get<double>(), 2.0 / 3.0, 1e-9);
  EXPECT_EQ(report["same"], (json{{"total", 1}, {"correct", 1}}));
  EXPECT_EQ(report["diff"], (json{{"total", 2}, {"correct", 1}}));
  ASSERT_EQ(report["wrong"].size(), 1u) << report;
  const json& w = report["wrong"][0];
  EXPECT_EQ(w["line"], 6);
  EXPECT_EQ(w["expect"], "diff");
  EXPECT_TRUE(is_hex16(w["a"]["cluster_id"])) << w;
  EXPECT_EQ(w["a"]["cluster_id"], w["b"]["cluster_id"]) << w;

  // Below --min-accuracy: exit 1, the report is still printed.
  RunResult low = run_logsift({"pairs", dir.file("pairs.tsv"), "--min-accuracy", "0.9"});
  EXPECT_TRUE(low.exit.exited && low.exit.code == 1) << low.describe();
  EXPECT_NE(low.out.find("pair accuracy: 0.6667"), std::string::npos) << low.describe();
  RunResult ok = run_logsift({"pairs", dir.file("pairs.tsv"), "--min-accuracy", "0.6"});
  EXPECT_TRUE(ok.exit.clean()) << ok.describe();
}

// --- mine ---

// A sample of unlabelled lines -> a bank: a statement whose word value the
// model keeps (mailbox names) gets one id on later lines with other names;
// a word with two values (healthy / unhealthy) stays two statements.
TEST(Cli, MineWritesABankThatJoinsAStatementsWordValues) {
  TempDir dir("logsift-mine-");
  std::string sample, later;
  for (const char* box : {"Newsletters", "Archive", "Drafts", "Receipts", "Travel"})
    for (int i = 0; i < 2; ++i) sample += std::string("Mailbox ") + box + ": opened by the web client of this account\n";
  for (const char* s : {"healthy", "unhealthy"})
    for (int i = 0; i < 3; ++i) sample += std::string("Service payments is ") + s + " after the last probe of the day\n";
  for (const char* box : {"Projects", "Family", "Invoices", "Archive"})
    later += std::string("Mailbox ") + box + ": opened by the web client of this account\n";
  for (const char* s : {"healthy", "unhealthy"})
    later += std::string("Service payments is ") + s + " after the last probe of the day\n";
  dir.write_file("sample.log", sample);
  dir.write_file("later.log", later);

  RunResult m = run_logsift({"mine", dir.file("sample.log"), "--out", dir.file("my.bank")});
  ASSERT_TRUE(m.exit.clean()) << m.describe();
  EXPECT_NE(m.err.find("16 lines (0 rejected), 7 templates -> 1 formats"), std::string::npos) << m.describe();
  const std::string bank = read_file(dir.file("my.bank"));
  EXPECT_NE(bank.find("# 10 lines, 5 templates; words: Archive: Drafts: Newsletters: Receipts: (5 in all)\n"
                      "Mailbox %s: opened by the web client of this account\n"),
            std::string::npos)
      << bank;
  EXPECT_EQ(bank.find("payments is %s"), std::string::npos) << bank;
  // To standard output without --out, the same text.
  RunResult so = run_logsift({"mine", "-"}, sample);
  ASSERT_TRUE(so.exit.clean()) << so.describe();
  EXPECT_EQ(so.out, bank);

  auto ids = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"cluster", dir.file("later.log")};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run_logsift(args);
    EXPECT_TRUE(r.exit.clean()) << r.describe();
    std::vector<std::string> out;
    for (const auto& j : json_lines(r.out)) out.push_back(j.value("cluster_id", std::string()));
    return out;
  };
  const auto without = ids({});
  const auto with = ids({"--format-bank", dir.file("my.bank")});
  ASSERT_EQ(without.size(), 6u);
  ASSERT_EQ(with.size(), 6u);
  // Without the bank the model keeps the names: the test's premise.
  EXPECT_GT(std::set<std::string>(without.begin(), without.begin() + 4).size(), 1u);
  EXPECT_EQ(std::set<std::string>(with.begin(), with.begin() + 4).size(), 1u);
  EXPECT_NE(with[4], with[5]);  // healthy / unhealthy
  EXPECT_NE(with[0], with[4]);
}

TEST(Cli, MineRejectsBadOptionsAndInput) {
  TempDir dir("logsift-mine-");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"mine", "-", "--similarity", "0"}, "--similarity must be a number in (0, 1]"},
      {{"mine", "-", "--similarity", "1.5"}, "--similarity must be a number in (0, 1]"},
      {{"mine", "-", "--similarity", "high"}, "--similarity must be a number in (0, 1]"},
      {{"mine", "-", "--min-values", "1"}, "--min-values must be an integer of 2 or more"},
      {{"mine", dir.file("missing.log")}, "logsift mine: cannot read"},
      {{"mine", "-", "--out", dir.file("no-such-dir/x.bank")}, "logsift mine: cannot write"},
  };
  for (const auto& [args, msg] : cases) {
    SCOPED_TRACE(args[2 < args.size() ? 2 : 1]);
    RunResult r = run_logsift(args, "one line\n");
    EXPECT_TRUE(r.exit.exited && r.exit.code == 2) << r.describe();
    EXPECT_NE(r.err.find(msg), std::string::npos) << r.describe();
  }
}

TEST(Cli, PairsMalformedRowExits2NamingTheLine) {
  TempDir dir("logsift-pairs-");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"same\ta\tb\n# fine\nsame\tonly two columns\n", "line 3"},
      {"maybe\ta\tb\n", "line 1"},
      {"same\ta\tb\tnote\textra\n", "line 1"},
      {"diff\t\tb\n", "line 1"},
  };
  for (const auto& [tsv, where] : cases) {
    SCOPED_TRACE(tsv);
    dir.write_file("bad.tsv", tsv);
    RunResult r = run_logsift({"pairs", dir.file("bad.tsv")});
    EXPECT_TRUE(r.exit.exited && r.exit.code == 2) << r.describe();
    EXPECT_NE(r.err.find(where), std::string::npos) << r.describe();
  }
  dir.write_file("empty.tsv", "# nothing\n");
  RunResult r = run_logsift({"pairs", dir.file("empty.tsv")});
  EXPECT_TRUE(r.exit.exited && r.exit.code == 2) << r.describe();
}

}  // namespace
}  // namespace logsift_it
