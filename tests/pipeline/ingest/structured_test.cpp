#include <gtest/gtest.h>

#include <string>

#include "pipeline/core/time.h"
#include "pipeline/ingest/structured.h"

namespace logsift {
namespace {

struct Extracted {
  bool structured = false;
  std::string message;
  Labels labels;
  std::string kind;
};

Extracted run(std::string_view line, const StructuredOptions& o = {}) {
  StructuredLine out;
  std::string scratch;
  Extracted e;
  e.structured = extract_structured(line, o, &out, &scratch);
  EXPECT_EQ(e.structured, out.structured);
  e.message = std::string(out.message);
  e.labels = out.labels;
  e.kind = out.kind;
  return e;
}

Labels L(std::initializer_list<std::pair<std::string, std::string>> l) { return Labels(l); }

// Each line stays unstructured and is its own message.
void expect_unstructured(std::initializer_list<const char*> lines, const StructuredOptions& o = {}) {
  for (const char* line : lines) {
    auto e = run(line, o);
    EXPECT_FALSE(e.structured) << line;
    EXPECT_EQ(e.message, line);
  }
}

// --- JSON -----------------------------------------------------------------

TEST(Structured, JsonZap) {
  auto e = run(R"({"level":"INFO","ts":1700000000.123,"caller":"server/main.go:42","msg":"listening on port 8080",)"
               R"("port":8080,"trace_id":"4bf92f3577b34da6"})");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "json");
  EXPECT_EQ(e.message, "listening on port 8080");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));  // ts, caller, port, trace_id dropped
}

TEST(Structured, JsonMessageKeyOrder) {
  // msg is listed before message: it wins whatever the field order.
  EXPECT_EQ(run(R"({"message":"second","msg":"first"})").message, "first");
  // null, non-strings and blank strings are skipped.
  EXPECT_EQ(run(R"({"msg":null,"message":"m"})").message, "m");
  EXPECT_EQ(run(R"({"msg":42,"log":"from log"})").message, "from log");
  EXPECT_EQ(run(R"({"msg":"  ","text":"t"})").message, "t");
  // Configured keys.
  StructuredOptions o;
  o.message_keys = {"event"};
  EXPECT_EQ(run(R"({"msg":"no","event":"yes"})", o).message, "yes");
  EXPECT_FALSE(run(R"({"msg":"no"})", o).structured);
}

TEST(Structured, JsonMessageKeysOfTheCommonLibrariesByDefault) {
  // structlog, GELF, logstash, OpenTelemetry, Google Cloud.
  EXPECT_EQ(run(R"({"event":"user logged in","level":"info","timestamp":"2026-11-25T10:00:00Z"})").message,
            "user logged in");
  EXPECT_EQ(run(R"({"version":"1.1","host":"h1","short_message":"disk full","level":3})").message, "disk full");
  EXPECT_EQ(run(R"({"@timestamp":"2026-11-25T10:00:00Z","@message":"job done"})").message, "job done");
  EXPECT_EQ(run(R"({"severityText":"WARN","body":"queue backlog"})").message, "queue backlog");
  EXPECT_EQ(run(R"({"severity":"ERROR","textPayload":"upstream reset"})").message, "upstream reset");
  // Serilog's compact JSON: the message template (@mt) is the statement,
  // ahead of the rendered message (@m).
  EXPECT_EQ(run(R"({"@t":"2026-11-25T10:00:00Z","@m":"User 42 signed in","@mt":"User {UserId} signed in","UserId":42})")
                .message,
            "User {UserId} signed in");
  // The earlier keys still win.
  EXPECT_EQ(run(R"({"event":"second","msg":"first"})").message, "first");
}

TEST(Structured, JournaldJson) {
  // `journalctl -o json` (and the journald sources of Vector / Fluent Bit):
  // MESSAGE is the message; SYSLOG_IDENTIFIER, PRIORITY (a syslog severity
  // as a string) and _HOSTNAME become labels; cursors, timestamps and pids go.
  auto e = run(R"({"__CURSOR":"s=1;i=2","__REALTIME_TIMESTAMP":"1700000000000000","_HOSTNAME":"web-1",)"
               R"("PRIORITY":"3","SYSLOG_IDENTIFIER":"sshd","_PID":"812","_SYSTEMD_UNIT":"ssh.service",)"
               R"("MESSAGE":"error: kex_exchange_identification: Connection closed by remote host"})");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "json");
  EXPECT_EQ(e.message, "error: kex_exchange_identification: Connection closed by remote host");
  EXPECT_EQ(e.labels, L({{"service", "sshd"}, {"level", "err"}, {"host", "web-1"}}));
  // A unit's own line: the unit is the service when there is no identifier.
  e = run(R"({"_SYSTEMD_UNIT":"nginx.service","PRIORITY":"6","MESSAGE":"Started nginx.service"})");
  EXPECT_EQ(e.labels, L({{"service", "nginx.service"}, {"level", "info"}}));
  // A PRIORITY that is no severity stays as it is.
  EXPECT_EQ(run(R"({"PRIORITY":"9","MESSAGE":"m"})").labels, L({{"level", "9"}}));
}

TEST(Structured, JsonUnescapesIntoScratch) {
  StructuredLine out;
  std::string scratch;
  std::string line = R"({"msg":"tab\there \"q\" \u00fc \ud83d\ude00 \/ \\"})";
  ASSERT_TRUE(extract_structured(line, {}, &out, &scratch));
  EXPECT_EQ(out.message, "tab\there \"q\" \xC3\xBC \xF0\x9F\x98\x80 / \\");
  EXPECT_EQ(out.message.data(), scratch.data());
  // Without escapes the message is a view into the line (no copy).
  std::string plain = R"({"msg":"plain text"})";
  ASSERT_TRUE(extract_structured(plain, {}, &out, &scratch));
  EXPECT_GE(out.message.data(), plain.data());
  EXPECT_LT(out.message.data(), plain.data() + plain.size());
  // A lone surrogate becomes U+FFFD rather than invalid UTF-8.
  EXPECT_EQ(run(R"({"msg":"x\ud800y"})").message, "x\xEF\xBF\xBDy");
}

TEST(Structured, JsonLabels) {
  auto e = run(R"({"host":"web-1","msg":"m","lvl":"Warn","app":"billing","service":"payments","severity":"ERROR",)"
               R"("hostname":"other"})");
  // service beats app (order of the key list, not of the line); level beats
  // severity and lvl; host beats hostname.
  EXPECT_EQ(e.labels, L({{"service", "payments"}, {"level", "error"}, {"host", "web-1"}}));
  // service.name (ECS flat key) and logger/component.
  EXPECT_EQ(run(R"({"msg":"m","service.name":"api","log.level":"debug","host.name":"h"})").labels,
            L({{"service", "api"}, {"level", "debug"}, {"host", "h"}}));
  EXPECT_EQ(run(R"({"msg":"m","component":"kubelet","logger":"org.x.Y"})").labels, L({{"service", "org.x.Y"}}));
  // Numbers and booleans as written; objects, arrays, null ignored.
  EXPECT_EQ(run(R"({"msg":"m","host":12,"service":{"name":"x"},"level":null})").labels, L({{"host", "12"}}));
}

TEST(Structured, JsonPinoNumericLevels) {
  auto e = run(R"({"level":30,"time":1531171074631,"pid":657,"hostname":"box","msg":"hello world"})");
  EXPECT_EQ(e.message, "hello world");
  EXPECT_EQ(e.labels, L({{"level", "info"}, {"host", "box"}}));
  EXPECT_EQ(run(R"({"level":50,"msg":"x"})").labels, L({{"level", "error"}}));
  EXPECT_EQ(run(R"({"level":60,"msg":"x"})").labels, L({{"level", "fatal"}}));
  EXPECT_EQ(run(R"({"level":35,"msg":"x"})").labels, L({{"level", "35"}}));  // not a pino level: as is
}

TEST(Structured, JsonKeepKeysAndLimit) {
  StructuredOptions o;
  o.keep_keys = {"env", "region", "trace_id"};
  auto e = run(R"({"msg":"m","env":"prod","trace_id":"abc","region":"eu","level":"info","other":"x"})", o);
  EXPECT_EQ(e.labels, L({{"level", "info"}, {"env", "prod"}, {"trace_id", "abc"}, {"region", "eu"}}));
  o.max_labels = 2;
  e = run(R"({"msg":"m","env":"prod","trace_id":"abc","region":"eu","level":"info","other":"x"})", o);
  EXPECT_EQ(e.labels, L({{"level", "info"}, {"env", "prod"}}));
  o.max_labels = 0;
  e = run(R"({"msg":"m","level":"info"})", o);
  EXPECT_TRUE(e.structured);
  EXPECT_TRUE(e.labels.empty());
}

TEST(Structured, JsonExplicitLabelsObject) {
  // logsift's own TCP envelope form.
  auto e = run(R"({"message":"disk full","labels":{"service":"db","team":"core","n":3}})");
  EXPECT_EQ(e.message, "disk full");
  EXPECT_EQ(e.labels, L({{"service", "db"}, {"team", "core"}, {"n", "3"}}));
}

TEST(Structured, JsonCaller) {
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run(R"({"msg":"retrying","caller":"a/b.go:12"})", o).message, "caller=a/b.go:12 retrying");
  EXPECT_EQ(run(R"({"msg":"retrying","file":"x.py","line":7})", o).message, "caller=x.py:7 retrying");
  EXPECT_EQ(run(R"({"msg":"retr\"ying","logger":"com.acme.Svc"})", o).message, "caller=com.acme.Svc retr\"ying");
  EXPECT_EQ(run(R"({"msg":"no caller"})", o).message, "no caller");
  // Off by default.
  EXPECT_EQ(run(R"({"msg":"retrying","caller":"a/b.go:12"})").message, "retrying");
  // Two places, same text: apart with the option, together without.
  EXPECT_NE(run(R"({"msg":"x","caller":"a.go:1"})", o).message, run(R"({"msg":"x","caller":"b.go:2"})", o).message);
}

TEST(Structured, JsonNested) {
  auto e = run(R"({"msg":"m","ctx":{"a":[1,2,{"b":"}"}],"c":{}},"arr":[[],[[]]],"level":"info"})");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
}

TEST(Structured, JsonMalformedIsUnstructured) {
  const char* bad[] = {
      R"({"msg":"unterminated)",
      R"({"msg":"x",})",
      R"({"msg":"x" "level":"y"})",
      R"({"msg":"x"} trailing)",
      R"({"msg":"bad escape \q"})",
      R"({"msg":"bad \u12"})",
      "{\"msg\":\"raw\x01control\"}",
      R"({"msg":"x","n":01})",
      R"({"msg":"x","n":-})",
      R"({"msg":"x","n":1.})",
      R"({"msg":"x","a":[1,2})",
      R"({"msg":"x","a":{"k" 1}})",
      R"({"msg":"x","a":tru})",
      R"({msg:"x"})",
      R"({})",
      R"({"level":"info"})",
      R"({"msg":""})",
      "{",
      "{\"",
  };
  for (const char* b : bad) {
    auto e = run(b);
    EXPECT_FALSE(e.structured) << b;
    EXPECT_EQ(e.message, b);
    EXPECT_EQ(e.kind, "text");
    EXPECT_TRUE(e.labels.empty());
  }
}

TEST(Structured, JsonDeepNestingIsBounded) {
  std::string deep = R"({"msg":"m","a":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_FALSE(run(deep).structured);  // deeper than the limit: unstructured, no recursion
  std::string ok = R"({"msg":"m","a":)" + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_TRUE(run(ok).structured);
}

// --- logfmt ---------------------------------------------------------------

TEST(Structured, Logfmt) {
  auto e = run(R"(time=2024-01-02T03:04:05Z level=warn msg="disk \"sda\" almost full" host=db-1 pct=91)");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "logfmt");
  EXPECT_EQ(e.message, "disk \"sda\" almost full");
  EXPECT_EQ(e.labels, L({{"level", "warn"}, {"host", "db-1"}}));
  EXPECT_EQ(run("level=info msg=started").message, "started");
  EXPECT_EQ(run(R"(ts=1 message="a b" service=api)").labels, L({{"service", "api"}}));
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run(R"(level=info caller=main.go:12 msg="listening")", o).message, "caller=main.go:12 listening");
}

TEST(Structured, LogfmtNotEnough) {
  EXPECT_FALSE(run("msg=alone").structured);                  // one pair
  EXPECT_FALSE(run("level=info status=200").structured);      // no message key
  EXPECT_FALSE(run("user=bob logged in msg=hi").structured);  // bare words
  EXPECT_FALSE(run(R"(level=info msg="unterminated)").structured);
  EXPECT_FALSE(run(R"(level=info msg="")").structured);  // empty message
  EXPECT_FALSE(run(R"(level=info msg=a"b)").structured);
  EXPECT_FALSE(run("=x msg=y").structured);
  EXPECT_FALSE(run(R"(level=info msg="x"y)").structured);
}

// --- klog -----------------------------------------------------------------

TEST(Structured, Klog) {
  auto e = run("I1123 10:11:12.123456    1234 file.go:123] Starting controller for pods");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "klog");
  EXPECT_EQ(e.message, "Starting controller for pods");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  EXPECT_EQ(run("W0102 03:04:05.000001 7 reflector.go:424] watch ended").labels, L({{"level", "warning"}}));
  EXPECT_EQ(run("E0102 03:04:05.000001 7 a.go:1] boom").labels, L({{"level", "error"}}));
  EXPECT_EQ(run("F0102 03:04:05.000001 7 a.go:1] dead").labels, L({{"level", "fatal"}}));
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run("I1123 10:11:12.123456    1234 file.go:123] Starting", o).message, "caller=file.go:123 Starting");
}

TEST(Structured, KlogStructured) {
  auto e = run(R"(I1123 10:11:12.123456    1234 controller.go:210] "Pod status updated" )"
               R"(pod="kube-system/coredns-5d78c9869d-abcde" status="Running" attempt=3)");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "klog-structured");
  EXPECT_EQ(e.message, "Pod status updated");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  e = run(R"(E1123 10:11:12.123456 1 x.go:5] "Failed \"sync\"\n" err="timeout" service="kubelet")");
  EXPECT_EQ(e.message, "Failed \"sync\"\n");
  EXPECT_EQ(e.labels, L({{"service", "kubelet"}, {"level", "error"}}));
  // A quoted start without valid pairs after it: the plain klog message.
  e = run(R"(I1123 10:11:12.123456 1 x.go:5] "quoted" and then words)");
  EXPECT_EQ(e.kind, "klog");
  EXPECT_EQ(e.message, R"("quoted" and then words)");
}

TEST(Structured, KlogNotQuite) {
  EXPECT_FALSE(run("I1123 10:11:12 1234 file.go:123] no micros").structured);
  EXPECT_FALSE(run("X1123 10:11:12.123456 1234 file.go:123] bad level").structured);
  EXPECT_FALSE(run("I1123 10:11:12.123456 abc file.go:123] bad thread").structured);
  EXPECT_FALSE(run("I1123 10:11:12.123456 1234 file.go] no line").structured);
  EXPECT_FALSE(run("I1123 10:11:12.123456 1234 file.go:123]   ").structured);  // empty message
  EXPECT_FALSE(run("INFO all good").structured);
}

// --- text + trailing JSON ---------------------------------------------------

TEST(Structured, TrailingJson) {
  // What winston-loki sends (tests/data/ingest/loki).
  auto e = run(R"(user 42 logged in {"trace_id":"abc123","attempt":2,"level":"info"})");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "text+json");
  EXPECT_EQ(e.message, "user 42 logged in");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  // Braces inside the text are skipped over; a later object is found.
  e = run(R"(set {a b} done {"level":"warn"})");
  EXPECT_EQ(e.message, "set {a b} done");
  StructuredOptions o;
  o.split_trailing_json = false;
  EXPECT_FALSE(run(R"(user 42 logged in {"trace_id":"abc123"})", o).structured);
  EXPECT_FALSE(run(R"(ends with {not json})").structured);
  EXPECT_FALSE(run(R"(ends with {"a":1} trailing)").structured);
}

// --- syslog headers ---------------------------------------------------------

TEST(Structured, SyslogHeaderOfATextLine) {
  // journalctl's short output and /var/log/syslog: date, host, tag[pid]:
  auto e = run("Nov 26 01:00:00 web-1 sshd[812]: Accepted publickey for deploy from 10.0.0.5 port 50122 ssh2");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "syslog");
  EXPECT_EQ(e.message, "Accepted publickey for deploy from 10.0.0.5 port 50122 ssh2");
  EXPECT_EQ(e.labels, L({{"service", "sshd"}, {"host", "web-1"}}));
  // A tag with ':' only, a one-digit day, an RFC 3339 date (rsyslog's high-precision format).
  e = run("Nov  6 01:00:00 db-2 CRON: pam_unix(cron:session): session opened for user root");
  EXPECT_EQ(e.message, "pam_unix(cron:session): session opened for user root");
  EXPECT_EQ(e.labels, L({{"service", "CRON"}, {"host", "db-2"}}));
  e = run("2026-11-26T01:00:00.123456+00:00 ip-10-1-2-3 kernel: Out of memory: Killed process 4242 (java)");
  EXPECT_EQ(e.message, "Out of memory: Killed process 4242 (java)");
  EXPECT_EQ(e.labels, L({{"service", "kernel"}, {"host", "ip-10-1-2-3"}}));
  // No host: the tag right after the date needs its [pid].
  e = run("Nov 26 01:00:00 systemd[1]: Started Session 4 of user deploy.");
  EXPECT_EQ(e.message, "Started Session 4 of user deploy.");
  EXPECT_EQ(e.labels, L({{"service", "systemd"}}));
}

TEST(Structured, SyslogFramesWithPri) {
  // RFC 5424, as a forwarder writes it into a file or a TCP stream of lines.
  auto e = run("<86>1 2026-11-26T01:00:00.905Z web122.example.net decorators 992089 - - action_type (x) is not valid");
  EXPECT_EQ(e.kind, "syslog");
  EXPECT_EQ(e.message, "action_type (x) is not valid");
  EXPECT_EQ(e.labels, L({{"service", "decorators"}, {"level", "info"}, {"host", "web122.example.net"}}));
  // RFC 3164 with a PRI.
  e = run("<11>Nov 23 04:25:45 vm myapp: payment failed: card declined");
  EXPECT_EQ(e.message, "payment failed: card declined");
  EXPECT_EQ(e.labels, L({{"service", "myapp"}, {"level", "err"}, {"host", "vm"}}));
}

TEST(Structured, SyslogThenTheLinesOwnStructure) {
  // containerd in the journal: a logfmt message behind the header. The line's
  // own fields win; the header fills in what they leave out.
  auto e = run("Nov 26 01:00:00 node-3 containerd[901]: time=\"2026-11-26T01:00:00Z\" level=warning "
               "msg=\"cleanup warnings\" namespace=k8s.io");
  EXPECT_EQ(e.kind, "syslog+logfmt");
  EXPECT_EQ(e.message, "cleanup warnings");
  EXPECT_EQ(e.labels, L({{"level", "warning"}, {"service", "containerd"}, {"host", "node-3"}}));
  // kubelet's klog behind the header.
  e = run("Nov 26 01:00:00 node-3 kubelet[77]: E1126 01:00:00.000000      77 pod_workers.go:1298] "
          "\"Error syncing pod, skipping\" pod=\"default/web-0\"");
  EXPECT_EQ(e.kind, "syslog+klog-structured");
  EXPECT_EQ(e.message, "Error syncing pod, skipping");
  // A JSON message behind a PRI.
  e = run(R"(<14>1 2026-11-26T01:00:00Z h app - - - {"msg":"ready","level":"debug"})");
  EXPECT_EQ(e.kind, "syslog+json");
  EXPECT_EQ(e.message, "ready");
  EXPECT_EQ(e.labels, L({{"level", "debug"}, {"service", "app"}, {"host", "h"}}));
}

TEST(Structured, NoSyslogHeaderNoChange) {
  // A date then a level and text: no tag with its marker, or a "host" that is a level.
  StructuredOptions no_layouts;
  no_layouts.app_layouts = kAppLayoutsOff;
  expect_unstructured({"2026-11-26T01:00:00Z INFO main: server started on :8080",
                       "2026-11-26T01:00:00Z ERROR connection lost",
                       "Nov 26 01:00:00 just some words here",
                       "Nov is when the report: arrives",
                       "sshd[812]: Accepted publickey for deploy",
                       "2026-11-26 01:00:00 web-1 sshd[812]: no 'T' in the date"},
                      no_layouts);
  // The first two are an application layout (layouts-v2), not syslog.
  EXPECT_EQ(run("2026-11-26T01:00:00Z INFO main: server started on :8080").kind, "app");
  EXPECT_EQ(run("2026-11-26T01:00:00Z ERROR connection lost").message, "connection lost");
  // Switched off, a syslog line is text.
  StructuredOptions o;
  o.syslog_headers = false;
  EXPECT_FALSE(run("Nov 26 01:00:00 web-1 sshd[812]: Accepted publickey for deploy", o).structured);
  EXPECT_TRUE(may_start_with_syslog_header("<13>1 - h app - - - m"));
  EXPECT_TRUE(may_start_with_syslog_header("Dec 31 23:59:59 h t: m"));
  EXPECT_TRUE(may_start_with_syslog_header("2026-11-26T01:00:00Z h t: m"));
  EXPECT_FALSE(may_start_with_syslog_header("Connection refused"));
  EXPECT_FALSE(may_start_with_syslog_header("2026-11-26 01:00:00 x"));
}

// --- Java layouts -------------------------------------------------------------

TEST(Structured, JavaLayouts) {
  // Spring Boot's default: the thread (padded, and different for each line of
  // one statement) and the pid go; level and logger become labels.
  auto e = run("2026-11-26T01:00:00.123Z  INFO 4242 --- [nio-8080-exec-3] c.e.orders.OrderService                  "
               ": Order placed for customer 17");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "java");
  EXPECT_EQ(e.message, "Order placed for customer 17");
  EXPECT_EQ(e.labels, L({{"service", "c.e.orders.OrderService"}, {"level", "info"}}));
  // Spring Boot 3.2+ with the application name, a zone offset.
  e = run("2026-11-26T01:00:00.123+01:00 ERROR 7 --- [orders] [           main] o.s.boot.SpringApplication"
          " : Application run failed");
  EXPECT_EQ(e.message, "Application run failed");
  EXPECT_EQ(e.labels, L({{"service", "o.s.boot.SpringApplication"}, {"level", "error"}}));
  // log4j / logback PatternLayout "%d %-5p [%t] %c - %m", a thread name with blanks and '|'.
  e = run("2019-08-19 19:20:44,909 WARN  [kafka-producer-network-thread | producer-7] "
          "org.apache.kafka.clients.NetworkClient - Connection to node 1 could not be established");
  EXPECT_EQ(e.kind, "java");
  EXPECT_EQ(e.message, "Connection to node 1 could not be established");
  EXPECT_EQ(e.labels, L({{"service", "org.apache.kafka.clients.NetworkClient"}, {"level", "warn"}}));
  // logback's default "%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg".
  e = run("01:00:00.123 [main] DEBUG com.example.App - cache warmed in 12 ms");
  EXPECT_EQ(e.message, "cache warmed in 12 ms");
  EXPECT_EQ(e.labels, L({{"service", "com.example.App"}, {"level", "debug"}}));
  // keep_caller keeps the logger in front, as for the other forms.
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run("01:00:00.123 [main] DEBUG com.example.App - cache warmed", o).message,
            "caller=com.example.App cache warmed");
}

TEST(Structured, NoJavaLayoutNoChange) {
  StructuredOptions v1;
  v1.app_layouts = 1;  // the JVM layouts alone (layouts-v2 reads some of these as its own)
  expect_unstructured({"2026-11-26 01:00:00 INFO something happened - again",  // no [thread], no logger
                       "2026-11-26 01:00:00,123 INFO [main] two words - x",     // a logger has no blank
                       "01:00:00 [main] DEBUG com.example.App - no fraction",  // a bare time is too little
                       "2026-11-26 01:00:00,123 NOTICE [main] a.B - not a JVM level",
                       "12 - 3 = 9",
                       "2026-11-26T01:00:00.123Z                    "},  // a date and blanks only
                      v1);
  StructuredOptions o;
  o.app_layouts = kAppLayoutsOff;
  EXPECT_FALSE(run("01:00:00.123 [main] DEBUG com.example.App - cache warmed", o).structured);
  EXPECT_TRUE(may_start_with_app_layout("2026-11-26T01:00:00.123Z  INFO 1 --- [main] a.B : m"));
  EXPECT_TRUE(may_start_with_app_layout("01:00:00.123 [main] DEBUG com.example.App - m"));
  EXPECT_FALSE(may_start_with_app_layout("Order placed for customer 17 - again"));
  EXPECT_FALSE(may_start_with_app_layout("01:00:00 [main] DEBUG com.example.App - m"));
}

TEST(Structured, TextLayouts) {
  // Python's logging.basicConfig(): LEVEL:name:msg.
  auto e = run("WARNING:app.db:disk almost full on /dev/sda1");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "app");
  EXPECT_EQ(e.message, "disk almost full on /dev/sda1");
  EXPECT_EQ(e.labels, L({{"service", "app.db"}, {"level", "warning"}}));
  // The Python docs' "%(asctime)s - %(name)s - %(levelname)s - %(message)s".
  e = run("2024-05-01 12:00:00,123 - app.db - ERROR - connection lost to db-1");
  EXPECT_EQ(e.message, "connection lost to db-1");
  EXPECT_EQ(e.labels, L({{"service", "app.db"}, {"level", "error"}}));
  // DATE TIME LEVEL name[pid]: msg.
  e = run("2024-05-01 12:00:00,456 ERROR app.db[4242]: connection lost to db-2");
  EXPECT_EQ(e.message, "connection lost to db-2");
  EXPECT_EQ(e.labels, L({{"service", "app.db"}, {"level", "error"}}));
  // Go's log package with a [LEVEL] (HashiCorp's older layout), Go's date; an RFC 3339 date.
  e = run("2024/05/01 12:00:00 [INFO] agent: synced with 3 peers");
  EXPECT_EQ(e.message, "agent: synced with 3 peers");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  EXPECT_EQ(run("2024-05-01T12:00:00.123Z [INFO]  agent: synced with 5 peers").message, "agent: synced with 5 peers");
  e = run("2024-05-01 12:00:00 INFO starting server on :8080");
  EXPECT_EQ(e.message, "starting server on :8080");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  // nginx's error log: pid#tid and the connection number go.
  e = run("2024/05/01 12:00:00 [error] 1234#1234: *56 open() \"/var/www/x\" failed (2: No such file or directory)");
  EXPECT_EQ(e.message, "open() \"/var/www/x\" failed (2: No such file or directory)");
  EXPECT_EQ(e.labels, L({{"level", "error"}}));
  EXPECT_EQ(run("2024/05/01 12:00:00 [notice] 1#1: signal process started").message, "signal process started");
  // Kafka's log4j layout "[%d] %p %m (%c)".
  e = run("[2024-05-01 12:00:00,123] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)");
  EXPECT_EQ(e.message, "[KafkaServer id=1] started");
  EXPECT_EQ(e.labels, L({{"service", "kafka.server.KafkaServer"}, {"level", "info"}}));
  EXPECT_EQ(run("[2024-05-01 12:00:00,123] WARN retrying (in 5 s)").message, "retrying (in 5 s)");  // no logger
  // Apache httpd 2.4 and 2.2 error logs.
  e = run("[Wed Oct 11 14:32:52.123456 2000] [core:error] [pid 1234:tid 5678] [client 10.0.0.1:5678] AH00126: "
          "Invalid URI in request GET x");
  EXPECT_EQ(e.message, "AH00126: Invalid URI in request GET x");
  EXPECT_EQ(e.labels, L({{"service", "core"}, {"level", "error"}}));
  e = run("[Wed Oct 11 14:32:52 2000] [error] [client 127.0.0.1] client denied by server configuration: /x");
  EXPECT_EQ(e.message, "client denied by server configuration: /x");
  EXPECT_EQ(e.labels, L({{"level", "error"}}));
  // keep_caller puts the logger in front; layouts-v1 leaves these lines alone.
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run("INFO:root:started worker 3", o).message, "caller=root started worker 3");
  o = {};
  o.app_layouts = 1;
  EXPECT_FALSE(run("INFO:root:started worker 3", o).structured);
  EXPECT_TRUE(may_start_with_app_layout("INFO:root:m"));
  EXPECT_TRUE(may_start_with_app_layout("[2024-05-01 12:00:00,123] INFO m"));
  EXPECT_TRUE(may_start_with_app_layout("[Wed Oct 11 14:32:52 2000] [error] m"));
  EXPECT_TRUE(may_start_with_app_layout("2024/05/01 12:00:00 [INFO] m"));
  EXPECT_FALSE(may_start_with_app_layout("INFO:root:m", 1));
}

// layouts-v3: the default layouts of spdlog, gunicorn, Rust's env_logger and
// tracing, Ruby's Logger, PHP's Monolog and Go's log package without a level.
TEST(Structured, TextLayoutsV3) {
  // spdlog's default pattern "[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v": the logger name and level become labels.
  auto e = run("[2024-05-01 12:00:00.123] [payments] [warning] retry 3 of 5 for charge ch_81");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.kind, "app");
  EXPECT_EQ(e.message, "retry 3 of 5 for charge ch_81");
  EXPECT_EQ(e.labels, L({{"service", "payments"}, {"level", "warning"}}));
  // gunicorn: the bracketed date ends in a blank-separated zone; the pid goes.
  e = run("[2024-05-01 12:00:00 +0000] [1234] [INFO] Booting worker with pid: 1234");
  EXPECT_EQ(e.message, "Booting worker with pid: 1234");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  EXPECT_EQ(run("[2024-05-01 12:00:00 -0700] [7] [CRITICAL] WORKER TIMEOUT (pid:9)").message, "WORKER TIMEOUT (pid:9)");
  // Rust's env_logger "[DATE LEVEL target] msg", a module path or a crate name.
  e = run("[2024-05-01T12:00:00Z INFO  my_app::net::server] listening on 0.0.0.0:80");
  EXPECT_EQ(e.message, "listening on 0.0.0.0:80");
  EXPECT_EQ(e.labels, L({{"service", "my_app::net::server"}, {"level", "info"}}));
  EXPECT_EQ(run("[2024-05-01T12:00:00.123Z WARN  hyper] connection reset").message, "connection reset");
  // Rust's tracing "DATE  LEVEL target: msg".
  e = run("2024-05-01T12:00:00.123456Z  INFO my_app::server: accepted connection from 10.0.0.7");
  EXPECT_EQ(e.message, "accepted connection from 10.0.0.7");
  EXPECT_EQ(e.labels, L({{"service", "my_app::server"}, {"level", "info"}}));
  // Ruby's Logger, with and without a progname.
  e = run("I, [2024-05-01T12:00:00.123456 #4242]  INFO -- rails: Started GET \"/orders/17\" for 10.0.0.1");
  EXPECT_EQ(e.message, "Started GET \"/orders/17\" for 10.0.0.1");
  EXPECT_EQ(e.labels, L({{"service", "rails"}, {"level", "info"}}));
  e = run("E, [2024-05-01T12:00:00.123456 #4242] ERROR -- : job 88 failed");
  EXPECT_EQ(e.message, "job 88 failed");
  EXPECT_EQ(e.labels, L({{"level", "error"}}));
  // PHP's Monolog / Laravel "[DATE] channel.LEVEL: msg context extra".
  e = run("[2024-05-01 12:00:00] local.ERROR: Undefined variable $order {\"exception\":\"[object]\"} []");
  EXPECT_EQ(e.message, "Undefined variable $order {\"exception\":\"[object]\"} []");
  EXPECT_EQ(e.labels, L({{"service", "local"}, {"level", "error"}}));
  EXPECT_EQ(run("[2024-05-01T12:00:00.000000+00:00] app.EMERGENCY: disk gone [] []").labels,
            L({{"service", "app"}, {"level", "emergency"}}));
  // Go's log package: no level; Lmicroseconds; Lshortfile's caller goes like klog's.
  e = run("2024/05/01 12:00:00 value is not 940176");
  EXPECT_EQ(e.kind, "app");
  EXPECT_EQ(e.message, "value is not 940176");
  EXPECT_TRUE(e.labels.empty());
  EXPECT_EQ(run("2024/05/01 12:00:00.123456 started worker 3").message, "started worker 3");
  EXPECT_EQ(run("2024/05/01 12:00:00 main.go:42: started worker 3").message, "started worker 3");
  EXPECT_EQ(run("2024/05/01 12:00:00 main.go: not a caller").message, "main.go: not a caller");
  // zap's console encoder: tab-separated; the caller goes, a named logger becomes a label, the fields go.
  e = run("2024-05-01T12:00:00.123Z\tINFO\tserver/main.go:42\tlistening on port\t{\"port\": 8080, \"tls\": false}");
  EXPECT_EQ(e.kind, "app");
  EXPECT_EQ(e.message, "listening on port");
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  e = run("2024-05-01T12:00:00.123Z\tWARN\tapi.http\tserver/handler.go:118\tslow request\t{\"path\": \"/x\"}");
  EXPECT_EQ(e.message, "slow request");
  EXPECT_EQ(e.labels, L({{"service", "api.http"}, {"level", "warn"}}));
  EXPECT_EQ(run("2024-05-01T12:00:00.123Z\tERROR\tno caller, no fields").message, "no caller, no fields");
  EXPECT_EQ(run("2024-05-01T12:00:00.123Z\tDPANIC\tx.go:1\ta {b} c").message, "a {b} c");  // not a fields object
  StructuredOptions caller;
  caller.keep_caller = true;
  EXPECT_EQ(run("2024-05-01T12:00:00.123Z\tINFO\tserver/main.go:42\tready", caller).message,
            "caller=server/main.go:42 ready");
  // The layouts-v2 forms keep their reading.
  EXPECT_EQ(run("2024/05/01 12:00:00 [notice] 1#1: signal process started").message, "signal process started");
  EXPECT_EQ(run("[2024-05-01 12:00:00.123] [info] unnamed spdlog logger").message, "unnamed spdlog logger");
  // keep_caller puts the logger in front.
  StructuredOptions o;
  o.keep_caller = true;
  EXPECT_EQ(run("[2024-05-01 12:00:00.123] [payments] [info] ready", o).message, "caller=payments ready");
  // layouts-v2 leaves these lines alone.
  StructuredOptions v2;
  v2.app_layouts = 2;
  expect_unstructured({"[2024-05-01 12:00:00.123] [payments] [warning] retry 3 of 5",
                       "[2024-05-01 12:00:00 +0000] [1234] [INFO] Booting worker",
                       "[2024-05-01T12:00:00Z INFO  my_app::server] listening",
                       "I, [2024-05-01T12:00:00.123456 #4242]  INFO -- rails: Started GET",
                       "[2024-05-01 12:00:00] local.ERROR: Undefined variable",
                       "2024/05/01 12:00:00 value is not 940176",
                       "2024-05-01T12:00:00.123Z\tINFO\tserver/main.go:42\tlistening on port"},
                      v2);
  EXPECT_EQ(run("2024-05-01T12:00:00.123456Z  INFO my_app::server: accepted", v2).message, "my_app::server: accepted");
  EXPECT_TRUE(may_start_with_app_layout("I, [2024-05-01T12:00:00.123456 #1]  INFO -- : m"));
  EXPECT_TRUE(may_start_with_app_layout("2024-05-01T12:00:00.123Z\tINFO\tx.go:1\tm"));
  EXPECT_FALSE(may_start_with_app_layout("2024-05-01T12:00:00.123Z\tINFO\tx.go:1\tm", 2));
  EXPECT_FALSE(may_start_with_app_layout("I, [2024-05-01T12:00:00.123456 #1]  INFO -- : m", 2));
}

TEST(Structured, NoTextLayoutNoChange) {
  expect_unstructured({
      "2024-05-01 12:00:00 starting server on :8080",           // no level
      "2024-05-01 12:00:00 error connecting to db",             // a bare level is upper case
      "2024-05-01 12:00:00 [main] started",                     // not a level in brackets
      "2024-05-01 12:00:00 INFO",                               // no message
      "ERROR: relation \"x\" does not exist",                    // PostgreSQL's, no name
      "NOTICE:root:not a Python level",
      "INFO:two words:x",                                       // a logger has no blank
      "[2024-05-01 12:00:00] plain bracketed date",             // no level
      "[Wed Oct 11 14:32:52 2000] [client 1.2.3.4] no level",   // no level
      "[Mon Tue x] [error] not a date",
      "2024-05-01 12:00:00 - two words - ERROR - x",           // a logger has no blank
      // layouts-v3
      "[2024-05-01 12:00:00] [main] started",                   // a bracketed name, then no level
      "[2024-05-01 12:00:00] [two words] [info] x",             // a name has no blank
      "[2024-05-01 12:00:00 +00000] [1] [INFO] x",              // a zone has four digits
      "[2024-05-01 12:00:00] app.info: x",                      // Monolog's level is upper case
      "[2024-05-01 12:00:00] app.BILLING: x",                   // not a level
      "[2024-05-01 12:00:00] ERROR: x",                         // no channel
      "[2024-05-01T12:00:00Z INFO two words] x",                // a target has no blank
      "[2024-05-01T12:00:00Z INFO my_app::] x",                 // an unfinished path
      "I, [2024-05-01T12:00:00.123456 #1]  WARN -- : x",        // the letter and the level disagree
      "I, [2024-05-01T12:00:00.123456]  INFO -- : x",           // no #pid
      "I, [2024-05-01T12:00:00.123456 #1]  INFO - x",           // no " -- "
      "A, B and C are ready",
      "2024/05/01 12:00:00",                                    // a Go date and nothing else
      "2024-05-01T12:00:00.123Z\tNOTICE\tx.go:1\tnot a zap level",
      "2024-05-01T12:00:00.123Z\tINFO",                          // no message
      "2024-05-01T12:00:00.123Z\tinfo\tx.go:1\tzap's levels are upper case",
  });
}

// --- general ----------------------------------------------------------------

TEST(Structured, PlainText) {
  auto e = run("Connection refused to 10.0.0.1:5432");
  EXPECT_FALSE(e.structured);
  EXPECT_EQ(e.kind, "text");
  EXPECT_EQ(e.message, "Connection refused to 10.0.0.1:5432");
  EXPECT_FALSE(run("").structured);
  EXPECT_EQ(run("").message, "");
  EXPECT_FALSE(run("   ").structured);
}

TEST(Structured, NeverThrowsOnGarbage) {
  // Every prefix of some structured lines, and random bytes: no crash.
  std::string lines[] = {
      R"({"msg":"a\u00fc\"b","level":"info","n":[1,{"x":null}]})",
      R"(I1123 10:11:12.123456    1234 file.go:123] "m" k="v\x41" n=1)",
      R"(level=info msg="a \" b" host=x)",
      R"(text {"level":"info"})",
  };
  for (const auto& l : lines)
    for (size_t n = 0; n <= l.size(); ++n) run(l.substr(0, n));
  uint32_t seed = 12345;
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    int len = static_cast<int>(seed % 64);
    for (int k = 0; k < len; ++k) {
      seed = seed * 1664525u + 1013904223u;
      const char alphabet[] = "{}[]\":,\\u0aZ =\"I1W \xff\x80";
      s.push_back(alphabet[(seed >> 24) % (sizeof(alphabet) - 1)]);
    }
    seed = seed * 1664525u + 1013904223u;
    run(s);
  }
}

TEST(Structured, BadLabelValuesDropped) {
  // Invalid UTF-8 in a label value (raw bytes inside a JSON string).
  auto e = run("{\"msg\":\"m\",\"host\":\"\xff\xfe\",\"level\":\"info\"}");
  EXPECT_TRUE(e.structured);
  EXPECT_EQ(e.labels, L({{"level", "info"}}));
  // Over 1024 bytes.
  e = run(R"({"msg":"m","host":")" + std::string(2000, 'h') + R"("})");
  EXPECT_TRUE(e.labels.empty());
}

// --- LabelBuilder / helpers ----------------------------------------------------

TEST(LabelBuilder, RankingAndLimits) {
  LabelKeyMap keys{{"service", "app"}, {"level"}, {"host"}};
  std::vector<std::string> keep{"env"};
  LabelBuilder lb(keys, 3, false, &keep);
  EXPECT_TRUE(lb.add("APP", "a"));      // case-insensitive key
  EXPECT_TRUE(lb.add("service", "s"));  // better rank
  EXPECT_TRUE(lb.add("app", "a2"));     // worse rank: ignored
  EXPECT_TRUE(lb.add("Level", " WARN "));
  EXPECT_FALSE(lb.add("trace_id", "x"));  // noise
  EXPECT_TRUE(lb.add("env", "prod"));
  EXPECT_TRUE(lb.add("host", "h"));
  Labels l = lb.finish();
  EXPECT_EQ(l, L({{"service", "s"}, {"level", "warn"}, {"host", "h"}}));  // env cut by max_labels 3
  EXPECT_EQ(lb.dropped(), 1u);

  LabelBuilder all(keys, 16, true);
  all.add("a", "1");
  all.add("a", "2");  // first value wins
  all.add("b", "");   // empty: dropped
  all.add(std::string(300, 'k'), "v");
  EXPECT_EQ(all.finish(), L({{"a", "1"}}));
  EXPECT_EQ(all.dropped(), 2u);

  LabelBuilder pri(keys, 16);
  pri.add_canonical("level", "from-metadata", 100);
  pri.add_canonical("level", "from-stream", 0);
  EXPECT_EQ(pri.get(CanonicalLabel::kLevel), "from-stream");
}

TEST(Rfc3339, Parse) {
  EXPECT_EQ(parse_rfc3339_ms("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339_ms("2026-11-23T04:24:00.444319+00:00"), 1795407840444);
  EXPECT_EQ(parse_rfc3339_ms("2026-11-23T05:24:00.444+01:00"), 1795407840444);
  EXPECT_EQ(parse_rfc3339_ms("2026-11-23 04:24:00"), 1795407840000);
  EXPECT_EQ(parse_rfc3339_ms("2024-02-29T00:00:00Z"), 1709164800000);
  EXPECT_FALSE(parse_rfc3339_ms("2023-02-29T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-13-01T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-23T04:24"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-23T04:24:00+0"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-23T04:24:00.Z"));
  EXPECT_FALSE(parse_rfc3339_ms("2026-11-23T04:24:00Zjunk"));
  EXPECT_FALSE(parse_rfc3339_ms(""));
}

}  // namespace
}  // namespace logsift
