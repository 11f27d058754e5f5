// Events, not lines, end to end: stack traces that real runtimes wrote
// (models/events: JVM 17, CPython 3.11, Node 20, Go 1.19, Ruby 3.1 programs
// run on Debian), sent one line at a time over TCP, through rsyslog's imfile
// reading files a real JVM and a real CPython are writing, as Loki push
// streams and through `logsift cluster`, come back as one event per error,
// with the id the same error gets when it is posted whole; a new fault
// raises one new_cluster alert, not one per frame; an endless continuation,
// junk between frames and a trace without its head stay bounded, counted
// and answered line for line.
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness.h"
#include "pipeline/eval/csv.h"
#include "webhook_receiver.h"

using namespace logsift_it;

namespace {

// One System of a models/events set, one row per physical line.
struct EventsSet {
  std::vector<std::string> lines, event, label;
  // The events in order: [first line, end) and the fault's label.
  struct Span {
    size_t begin, end;
    std::string label;
    size_t size() const { return end - begin; }
  };
  std::vector<Span> spans;
  std::string text_of(const Span& s) const {
    std::string t;
    for (size_t i = s.begin; i < s.end; ++i) t += (i > s.begin ? "\n" : "") + lines[i];
    return t;
  }
};

EventsSet read_events(const std::string& set, const std::string& system, size_t max_lines = SIZE_MAX) {
  const auto table = logsift::read_csv_file(std::string(LOGSIFT_SOURCE_DIR) + "/models/events/" + set + "/" +
                                            system + "/" + system + ".log_structured.csv");
  const int content = table.column("Content"), event = table.column("Event"), label = table.column("EventId");
  EventsSet s;
  for (const auto& row : table.rows) {
    // Stop at an event boundary past max_lines.
    if (s.lines.size() >= max_lines && row[event] != s.event.back()) break;
    s.lines.push_back(row[content]);
    s.event.push_back(row[event]);
    s.label.push_back(row[label]);
  }
  for (size_t i = 0; i < s.lines.size();) {
    size_t j = i + 1;
    while (j < s.lines.size() && s.event[j] == s.event[i]) ++j;
    s.spans.push_back({i, j, s.label[i]});
    i = j;
  }
  return s;
}

std::string joined(const std::vector<std::string>& lines, size_t begin, size_t end) {
  std::string payload;
  for (size_t i = begin; i < end; ++i) payload += lines[i] + "\n";
  return payload;
}

// The id an event gets posted whole over HTTP (newlines inside).
std::string whole_id(int http, const std::string& text) {
  HttpResponse r = post_json(http, json{{"text", text}});
  json j = r.json_body();
  if (r.status != 200 || !j.contains("cluster_id")) {
    ADD_FAILURE() << "POST whole event: " << r.describe();
    return "";
  }
  return j["cluster_id"];
}

// Every line of every event over one TCP connection, pipelined; the replies
// in order.
std::vector<json> send_over_tcp(int tcp_port, const EventsSet& s, std::string* error) {
  TcpLineClient c;
  auto ok = c.connect(tcp_port);
  if (!ok) {
    *error = ok.message();
    return {};
  }
  if (!c.send_all(joined(s.lines, 0, s.lines.size()), Millis(60000))) {
    *error = "send: " + c.last_error();
    return {};
  }
  std::vector<json> replies;
  for (const auto& l : c.read_lines(s.lines.size(), Millis(60000))) replies.push_back(json::parse(l, nullptr, false));
  if (replies.size() != s.lines.size()) *error = "replies: " + c.last_error();
  return replies;
}

// The replies of one event's lines: the same id on each; each says its line.
// A Go crash in which two goroutines panicked may come as two reports
// (docs/multiline.md); each is numbered on its own.
::testing::AssertionResult event_replies_ok(const EventsSet& s, const EventsSet::Span& e,
                                            const std::vector<json>& replies) {
  const std::string id = replies[e.begin].value("cluster_id", "");
  if (id.size() != 16)
    return ::testing::AssertionFailure() << "line " << e.begin + 1 << ": " << replies[e.begin].dump();
  int expect_line = 1;
  for (size_t i = e.begin; i < e.end; ++i) {
    const json& r = replies[i];
    if (r.value("cluster_id", "") != id)
      return ::testing::AssertionFailure() << "line " << i + 1 << " of " << e.label << " got another id: " << r.dump();
    if (e.size() == 1) {
      if (r.contains("event_line")) return ::testing::AssertionFailure() << "a single line says event_line: " << r.dump();
      continue;
    }
    const int line = r.value("event_line", 0);
    if (line == 1 && expect_line != 1 && s.lines[i].rfind("panic: ", 0) == 0) expect_line = 1;
    if (line != expect_line)
      return ::testing::AssertionFailure() << "line " << i + 1 << " of " << e.label << ": event_line " << line
                                           << ", expected " << expect_line << ": " << r.dump();
    if (r.value("event_lines", 0) < line)
      return ::testing::AssertionFailure() << "event_lines below event_line: " << r.dump();
    ++expect_line;
  }
  return ::testing::AssertionSuccess();
}

// Sum of a metric, or -1.
double metric(int http, const std::string& name) { return fetch_metric(http, name).value_or(-1); }

}  // namespace

// Real traces of every runtime mixed with real single lines of ten other
// programs, line by line over TCP: each line answered in order; the lines of
// an event share the id the event gets posted whole; one id per fault.
TEST(Events, TracesSentLineByLineOverTcpGetTheIdTheyGetWhole) {
  const EventsSet s = read_events("test", "Mixed", 5000);
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  std::string error;
  const auto replies = send_over_tcp(server.tcp_port(), s, &error);
  ASSERT_EQ(replies.size(), s.lines.size()) << error;

  std::map<std::string, std::set<std::string>> ids_of_fault;
  size_t traces = 0, bad = 0;
  for (const auto& e : s.spans) {
    auto ok = event_replies_ok(s, e, replies);
    if (!ok && ++bad <= 3) ADD_FAILURE() << ok.message();
    if (e.size() == 1) continue;
    ++traces;
    const std::string id = replies[e.begin].value("cluster_id", "");
    ids_of_fault[e.label].insert(id);
    // Posted whole, the same error gets the same id (every tenth: HTTP is slower).
    if (traces % 10 == 1) EXPECT_EQ(whole_id(server.http_port(), s.text_of(e)), id) << e.label;
  }
  EXPECT_EQ(bad, 0u);
  ASSERT_GE(traces, 150u);
  ASSERT_GE(ids_of_fault.size(), 15u) << "the sample holds most faults";
  for (const auto& [fault, ids] : ids_of_fault) EXPECT_EQ(ids.size(), 1u) << fault;
  std::map<std::string, std::string> fault_of_id;
  for (const auto& [fault, ids] : ids_of_fault)
    for (const auto& id : ids) EXPECT_TRUE(fault_of_id.emplace(id, fault).second) << fault << " shares " << id;

  const double events = metric(server.http_port(), "logsift_multiline_events_total");
  EXPECT_GE(events, static_cast<double>(traces)) << "every trace counted as an event";
  EXPECT_EQ(metric(server.http_port(), "logsift_multiline_open_events"), 0) << "all ended at the quiet time";
  EXPECT_TRUE(server_healthy(server.http_port()));
}

// A new fault raises one new_cluster alert, not one per frame; the alert's
// example is the whole event.
TEST(Events, OneNewClusterAlertPerFault) {
  const EventsSet s = read_events("test", "JavaOrders");
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  HttpResponse sub = http_request(server.http_port(), "POST", "/subscriptions",
                                  json{{"url", rcv.url()}, {"rules", {"new_cluster"}}}.dump(), "application/json");
  ASSERT_EQ(sub.status, 201) << sub.describe();

  std::string error;
  const auto replies = send_over_tcp(server.tcp_port(), s, &error);
  ASSERT_EQ(replies.size(), s.lines.size()) << error;
  std::set<std::string> all_ids, fault_ids;
  std::set<std::string> faults;
  for (const auto& e : s.spans) {
    const std::string id = replies[e.begin].value("cluster_id", "");
    all_ids.insert(id);
    if (e.size() > 1) {
      fault_ids.insert(id);
      faults.insert(e.label);
    }
  }
  ASSERT_EQ(faults.size(), 5u);
  EXPECT_EQ(fault_ids.size(), faults.size()) << "one id per fault";
  ASSERT_TRUE(rcv.wait_for_count(all_ids.size(), std::chrono::milliseconds(30000)))
      << rcv.count() << " alerts for " << all_ids.size() << " clusters";
  // A moment for any extra alert to arrive.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::map<std::string, int> alerts_of;
  for (const auto& r : rcv.requests()) {
    const json a = r.json_body();
    ASSERT_EQ(a.value("rule", ""), "new_cluster") << a.dump();
    const std::string id = a.value("cluster_id", "");
    ++alerts_of[id];
    if (fault_ids.count(id)) {
      ASSERT_TRUE(a.contains("examples") && !a["examples"].empty()) << a.dump();
      const std::string ex = a["examples"][0].is_string() ? a["examples"][0].get<std::string>() : a["examples"][0].dump();
      EXPECT_NE(ex.find("\tat "), std::string::npos) << "the example is the whole event: " << ex.substr(0, 300);
    }
  }
  EXPECT_EQ(alerts_of.size(), all_ids.size()) << "an alert for each new cluster, and for no other";
  for (const auto& [id, n] : alerts_of) EXPECT_EQ(n, 1) << id;
  size_t fault_alerts = 0;
  for (const auto& id : fault_ids) fault_alerts += alerts_of.count(id);
  EXPECT_EQ(fault_alerts, faults.size()) << "one alert per fault";
}

namespace {

// A real JVM and a real CPython writing their errors into log files.
constexpr const char* kJavaProgram = R"(
import java.io.*;
import java.nio.file.*;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

public class Orders {
  static PrintStream log;
  static void head(String level, String msg) {
    log.println(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS")) + " " + level +
                " [main] c.e.orders.Orders - " + msg);
  }
  static String load(String path) throws IOException { return Files.readString(Path.of(path)); }
  static int parse(String s, int depth) { return depth == 0 ? Integer.parseInt(s) : parse(s, depth - 1); }
  public static void main(String[] a) throws Exception {
    log = new PrintStream(new FileOutputStream(a[0], true), true);
    for (int i = 0; i < 6; ++i) {
      head("INFO", "Order " + (1000 + i) + " accepted");
      try { load("/nonexistent/order-" + i + ".snap"); }
      catch (IOException e) { head("ERROR", "Failed to close order " + (1000 + i)); new RuntimeException("close failed", e).printStackTrace(log); }
      try { parse("x" + i, i % 3); }
      catch (NumberFormatException e) { head("ERROR", "Bad quantity on line " + i); e.printStackTrace(log); }
    }
  }
}
)";

constexpr const char* kPythonProgram = R"(
import logging, sys
logging.basicConfig(filename=sys.argv[1], format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("billing")
def rate(plan, table, depth):
    return rate(plan, table, depth - 1) if depth else table[plan]
for i in range(6):
    log.info("invoice %d opened", 500 + i)
    try:
        rate("gold-%d" % i, {}, i % 4)
    except KeyError:
        log.exception("Failed to rate invoice %d", 500 + i)
)";

}  // namespace

// rsyslog's imfile tails the files a real JVM and a real CPython wrote and
// relays each line alone over syslog (each line its own message, severity
// notice, tabs escaped as #011): each error is one event with the id it gets
// posted whole; the two files' lines, relayed interleaved, stay apart.
TEST(Events, RsyslogImfileRelaysRealProgramsTracesAsOneEventEach) {
  if (access("/usr/lib/x86_64-linux-gnu/rsyslog/imfile.so", R_OK) != 0 && access("/usr/lib/rsyslog/imfile.so", R_OK) != 0)
    GTEST_SKIP() << "rsyslog's imfile module is not installed (apt-get install rsyslog)";
  TempDir work("logsift-imfile-");
  work.write_file("Orders.java", kJavaProgram);
  work.write_file("billing.py", kPythonProgram);
  const std::string java_log = work.file("orders.log"), py_log = work.file("billing.log");
  auto java = run_program({"/usr/bin/java", work.file("Orders.java"), java_log}, "", {}, Millis(60000));
  ASSERT_TRUE(java.exit.clean()) << java.describe();
  auto py = run_program({"/usr/bin/python3", work.file("billing.py"), py_log}, "", {}, Millis(20000));
  ASSERT_TRUE(py.exit.clean()) << py.describe();

  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  {
    std::ofstream conf(work.path() + "/rsyslog.conf");
    conf << "global(workDirectory=\"" << work.path() << "\")\n"
         << "module(load=\"imfile\" mode=\"polling\" PollingInterval=\"1\")\n"
         << "input(type=\"imfile\" File=\"" << java_log << "\" Tag=\"orders\")\n"
         << "input(type=\"imfile\" File=\"" << py_log << "\" Tag=\"billing\")\n"
         << "action(type=\"omfwd\" target=\"127.0.0.1\" port=\"" << server.syslog_port()
         << "\" protocol=\"tcp\" tcp_framing=\"octet-counted\" template=\"RSYSLOG_SyslogProtocol23Format\")\n";
  }
  auto rsyslog = spawn_background({"/usr/sbin/rsyslogd", "-n", "-f", work.path() + "/rsyslog.conf", "-i",
                                   work.path() + "/rsyslogd.pid"});
  ASSERT_GT(rsyslog.pid, 0) << rsyslog.error;

  // What arrived, by cluster: 6 + 6 Java errors of two faults, 6 Python
  // errors of one, 12 INFO lines of two templates; no frame alone.
  std::vector<json> clusters;
  const bool all_in = wait_until(
      [&] {
        auto all = fetch_all_clusters(server.http_port());
        if (!all) return false;
        clusters = *all;
        long long n = 0;
        for (const auto& c : clusters) n += c.value("count", 0LL);
        return n >= 30;
      },
      Millis(30000));
  stop_background(rsyslog);
  ASSERT_TRUE(all_in) << json(clusters).dump().substr(0, 2000) << "\n" << server.log_text();
  // A quiet time more, then nothing else may arrive.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  clusters = fetch_all_clusters(server.http_port()).value_or(clusters);
  std::map<long long, int> sizes;
  long long total = 0;
  for (const auto& c : clusters) {
    const std::string t = c.value("template", "");
    EXPECT_NE(t.rfind("at ", 0), 0u) << "a frame alone: " << t;
    EXPECT_EQ(t.find("#011"), std::string::npos) << "rsyslog's escape left in: " << t;
    ++sizes[c.value("count", 0LL)];
    total += c.value("count", 0LL);
  }
  std::string summary;
  for (const auto& c : clusters)
    summary += std::to_string(c.value("count", 0LL)) + " " + json(c.value("template", "").substr(0, 160)).dump() + "\n";
  EXPECT_EQ(total, 30) << summary;
  EXPECT_EQ(clusters.size(), 5u) << summary;
  EXPECT_EQ(sizes[6], 5) << "two Java faults, one Python fault, two INFO statements: 6 each";

  // Posted whole, an error gets the id the relayed lines got.
  std::ifstream f(py_log);
  std::string line, event;
  std::vector<std::string> events;
  while (std::getline(f, line)) {
    if (line.find(" INFO ") != std::string::npos || line.find(" ERROR ") != std::string::npos) {
      if (!event.empty()) events.push_back(event);
      event.clear();
    }
    event += (event.empty() ? "" : "\n") + line;
  }
  events.push_back(event);
  ASSERT_EQ(events.size(), 12u);
  const std::string id = whole_id(server.http_port(), events[1]);
  bool found = false;
  for (const auto& c : clusters) found = found || (c.value("cluster_id", "") == id && c.value("count", 0LL) == 6);
  EXPECT_TRUE(found) << id << " " << events[1];
  EXPECT_EQ(metric(server.http_port(), "logsift_syslog_rejected_total"), 0);
}

// Loki push: each stream's entries are assembled apart, even when a request
// carries two streams' traces.
TEST(Events, LokiPushAssemblesEachStreamApart) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const EventsSet py = read_events("test", "PythonBilling", 200);
  const EventsSet node = read_events("test", "NodeGateway", 200);
  auto values = [](const EventsSet& s) {
    json v = json::array();
    for (size_t i = 0; i < s.lines.size(); ++i) v.push_back({std::to_string(1764300000000000000LL + i), s.lines[i]});
    return v;
  };
  json billing = json::object(), gateway = json::object();
  billing["stream"] = {{"app", "billing"}};
  billing["values"] = values(py);
  gateway["stream"] = {{"app", "gateway"}};
  gateway["values"] = values(node);
  json body = json::object();
  body["streams"] = json::array({billing, gateway});
  HttpResponse r = http_request(server.http_port(), "POST", "/loki/api/v1/push", body.dump(), "application/json");
  ASSERT_EQ(r.status, 204) << r.describe();
  auto counts = cluster_counts(server.http_port());
  ASSERT_TRUE(counts);
  EXPECT_EQ(total_count(*counts), static_cast<long long>(py.spans.size() + node.spans.size()))
      << "one count per event, not per line";
  // Each trace's id is the one it gets posted whole.
  size_t checked = 0;
  for (const EventsSet* s : {&py, &node})
    for (const auto& e : s->spans)
      if (e.size() > 1 && checked++ < 12) {
        const std::string id = whole_id(server.http_port(), s->text_of(e));
        EXPECT_TRUE(counts->count(id)) << e.label << " " << id;
      }
  EXPECT_GE(checked, 12u);
}

// `logsift cluster FILE`: one output line per input line, in order; the
// lines of an event share its id and say which line they are.
TEST(Events, ClusterCommandAnswersEveryLineOfAFileWithItsEvent) {
  const EventsSet s = read_events("test", "RubyJobs");
  const std::string path =
      std::string(LOGSIFT_SOURCE_DIR) + "/models/events/test/RubyJobs/RubyJobs.log";
  auto r = run_logsift({"cluster", path});
  ASSERT_TRUE(r.exit.clean()) << r.describe().substr(0, 2000);
  std::vector<json> replies;
  std::istringstream out(r.out);
  std::string line;
  while (std::getline(out, line)) replies.push_back(json::parse(line, nullptr, false));
  ASSERT_EQ(replies.size(), s.lines.size());
  size_t bad = 0;
  std::map<std::string, std::set<std::string>> ids_of_fault;
  for (const auto& e : s.spans) {
    auto ok = event_replies_ok(s, e, replies);
    if (!ok && ++bad <= 3) ADD_FAILURE() << ok.message();
    if (e.size() > 1) ids_of_fault[e.label].insert(replies[e.begin].value("cluster_id", ""));
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(ids_of_fault.size(), 3u);
  for (const auto& [fault, ids] : ids_of_fault) EXPECT_EQ(ids.size(), 1u) << fault;
}

// Bad input on one connection: a head and 100,000 frames (cut every 100
// lines), binary junk between frames, frames without their head. Every line
// answered in order; memory held stays bounded; counters say what happened;
// the service keeps serving.
TEST(Events, AnEndlessContinuationJunkAndAHeadlessTraceAreBoundedAndAnswered) {
  ServerOptions o;
  o.args = {"--multiline-max-lines", "100"};
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  std::string payload = "2026-11-28 10:00:00,000 ERROR [main] c.e.App - Worker stuck\n";
  constexpr size_t kFrames = 100000;
  for (size_t i = 0; i < kFrames; ++i) payload += "\tat com.example.Loop.spin(Loop.java:" + std::to_string(i % 97) + ")\n";
  payload += "\tat \xff\xfe junk\n";                                 // refused: invalid UTF-8
  payload += "\tat com.example.Loop.after(Loop.java:3)\n";          // frames without their head
  payload += "\tat com.example.Loop.after2(Loop.java:4)\n";
  payload += "User alice logged in\n";
  const size_t lines = kFrames + 5;

  TcpLineClient c;
  ASSERT_TRUE(c.connect(server.tcp_port()));
  ASSERT_TRUE(c.send_all(payload, Millis(60000))) << c.last_error();
  const auto got = c.read_lines(lines, Millis(60000));
  ASSERT_EQ(got.size(), lines) << c.last_error();
  size_t errors = 0, with_event_line = 0;
  for (const auto& l : got) {
    json j = json::parse(l, nullptr, false);
    if (j.contains("error")) ++errors;
    if (j.contains("event_line")) {
      ++with_event_line;
      EXPECT_LE(j.value("event_lines", 0), 100) << "an event beyond multiline_max_lines";
    }
  }
  EXPECT_EQ(errors, 1u) << "only the junk line is refused";
  // All but the junk, the last line, and the head's event's last piece:
  // 100,001 lines cut every 100 leave one line alone.
  EXPECT_EQ(with_event_line, lines - 3);
  json junk = json::parse(got[kFrames + 1], nullptr, false);
  EXPECT_TRUE(is_error_object(junk)) << junk.dump();
  json headless = json::parse(got[kFrames + 2], nullptr, false);
  EXPECT_EQ(headless.value("event_lines", 0), 2) << headless.dump();
  json last = json::parse(got.back(), nullptr, false);
  EXPECT_TRUE(is_inference_result(last)) << last.dump();
  EXPECT_FALSE(last.contains("event_line"));

  const int http = server.http_port();
  EXPECT_GE(metric(http, "logsift_multiline_truncated_total"), 999) << "a cut every 100 lines";
  EXPECT_EQ(metric(http, "logsift_multiline_open_events"), 0);
  EXPECT_EQ(metric(http, "logsift_multiline_open_bytes"), 0);
  EXPECT_GE(metric(http, "logsift_rejected_total"), 1);
  EXPECT_TRUE(server_healthy(http));
  c.close();
}

// An upgrade to another contract (here the LSH seed) carries trace clusters:
// their stored examples are whole events, re-clustered into the same faults;
// counts carry; the same errors posted again are known.
TEST(Events, AnUpgradeCarriesTraceClustersByTheirWholeExamples) {
  const EventsSet s = read_events("test", "PythonBilling", 400);
  std::vector<std::string> texts;
  std::set<std::string> faults;
  for (const auto& e : s.spans)
    if (e.size() > 1) {
      texts.push_back(s.text_of(e));
      faults.insert(e.label);
    }
  ASSERT_GE(faults.size(), 3u);
  TempDir data("logsift-events-upgrade-");
  std::map<std::string, long long> before_counts;
  {
    ServerOptions o;
    o.data_dir = data.path();
    o.args = {"--lsh-seed", "4242"};
    ServerProcess before(o);
    ASSERT_TRUE(before.start_ready());
    HttpResponse r = post_json(before.http_port(), json{{"texts", texts}});
    ASSERT_EQ(r.status, 200) << r.describe();
    before_counts = cluster_counts(before.http_port()).value_or(before_counts);
    EXPECT_TRUE(before.stop().clean());
  }
  ASSERT_EQ(before_counts.size(), faults.size()) << "one cluster per fault";
  ServerOptions o;
  o.data_dir = data.path();
  ServerProcess after(o);
  ASSERT_TRUE(after.start_ready()) << after.log_text();
  const json info = http_get(after.http_port(), "/info").json_body();
  ASSERT_TRUE(info.contains("migrations") && !info["migrations"].empty()) << info.dump();
  const json m = info["migrations"].back();
  EXPECT_EQ(m.value("clusters_before", 0), static_cast<int>(faults.size()));
  EXPECT_EQ(m.value("clusters_after", 0), static_cast<int>(faults.size())) << m.dump();
  EXPECT_EQ(m.value("split", -1), 0) << m.dump();
  EXPECT_EQ(m.value("merged", -1), 0) << m.dump();
  auto after_counts = cluster_counts(after.http_port());
  ASSERT_TRUE(after_counts);
  EXPECT_EQ(total_count(*after_counts), static_cast<long long>(texts.size()));
  // Posted again, each error is known, and its cluster's count is the old one plus one.
  HttpResponse again = post_json(after.http_port(), json{{"texts", {texts[0]}}});
  ASSERT_EQ(again.status, 200) << again.describe();
  const json r0 = again.json_body()["results"][0];
  EXPECT_FALSE(r0.value("new", true)) << r0.dump();
  EXPECT_EQ(info["events"].value("version", ""), "events-v1");
}
