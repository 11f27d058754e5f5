#include <gtest/gtest.h>

#include "tests/data/ingest/fixtures.h"

#include <string>
#include <vector>

#include "service/net/syslog.h"

namespace logsift {
namespace {

// 2026-11-23T04:24:00.444Z: the day the fixtures were captured.
constexpr int64_t kNow = 1795407840444;

std::string fixture(const std::string& name) { return fixtures::ingest_fixture("syslog", name); }

struct Framed {
  std::vector<std::string> frames;
  std::vector<std::string> errors;
  std::vector<size_t> skipped;
};

// Feeds `bytes` in chunks of `chunk` bytes (0 = all at once), then finish().
Framed frame_all(std::string_view bytes, size_t chunk = 0, size_t max_frame = 65536,
                 SyslogFramer::Framing* framing = nullptr) {
  SyslogFramer f(max_frame);
  Framed out;
  SyslogFrameEvent ev;
  auto drain = [&] {
    while (f.next(&ev)) {
      if (ev.kind == SyslogFrameEvent::Kind::kFrame) {
        out.frames.emplace_back(ev.frame);
      } else {
        out.errors.push_back(ev.error);
        out.skipped.push_back(ev.skipped);
      }
    }
  };
  if (chunk == 0) chunk = bytes.size() ? bytes.size() : 1;
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    f.feed(bytes.substr(i, chunk));
    drain();
  }
  f.finish();
  drain();
  EXPECT_LE(f.buffered(), 0u + 0);
  if (framing) *framing = f.framing();
  return out;
}

SyslogMessage parse_ok(std::string_view frame) {
  SyslogMessage m;
  std::string err;
  SyslogParseOptions o;
  o.now_ms = kNow;
  EXPECT_TRUE(parse_syslog(frame, &m, &err, o)) << err << " in " << frame;
  return m;
}

std::string parse_err(std::string_view frame) {
  SyslogMessage m;
  std::string err;
  EXPECT_FALSE(parse_syslog(frame, &m, &err)) << frame;
  EXPECT_FALSE(err.empty());
  return err;
}

Labels L(std::initializer_list<std::pair<std::string, std::string>> l) { return Labels(l); }

// --- Real senders ----------------------------------------------------------

TEST(SyslogFixtures, LoggerRfc5424LfAndOctetAgree) {
  for (const char* name : {"logger-2.38.1-rfc5424-lf.bin", "logger-2.38.1-rfc5424-octet.bin"}) {
    std::string bytes = fixture(name);
    for (size_t chunk : {size_t(0), size_t(1), size_t(7), size_t(64)}) {
      SyslogFramer::Framing framing;
      Framed fr = frame_all(bytes, chunk, 65536, &framing);
      EXPECT_TRUE(fr.errors.empty()) << name;
      ASSERT_EQ(fr.frames.size(), 5u) << name << " chunk " << chunk;
      EXPECT_EQ(framing, std::string(name).find("octet") != std::string::npos ? SyslogFramer::Framing::kOctetCounting
                                                                              : SyslogFramer::Framing::kLf);
      SyslogMessage m = parse_ok(fr.frames[0]);
      EXPECT_EQ(m.format, SyslogMessage::Format::kRfc5424);
      EXPECT_EQ(m.facility, 19);  // local3
      EXPECT_EQ(m.severity, 4);   // warning
      EXPECT_EQ(m.hostname, "vm");
      EXPECT_EQ(m.app_name, "myapp");
      EXPECT_FALSE(m.procid.empty());
      EXPECT_EQ(m.msgid, "");
      EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");
      EXPECT_EQ(m.labels, L({{"service", "myapp"}, {"level", "warning"}, {"host", "vm"}}));
      ASSERT_EQ(m.structured_data.size(), 2u);
      EXPECT_EQ(m.structured_data[0].sd_id, "timeQuality");
      EXPECT_EQ(m.structured_data[0].name, "tzKnown");
      EXPECT_EQ(m.structured_data[0].value, "1");
      EXPECT_GT(m.timestamp_ms, 1795407800000);
      EXPECT_LT(m.timestamp_ms, 1795407900000);

      m = parse_ok(fr.frames[1]);
      EXPECT_EQ(m.severity, 5);  // user.notice, logger's default
      EXPECT_EQ(m.app_name, "batch");
      EXPECT_EQ(m.message, "line one");

      m = parse_ok(fr.frames[3]);
      EXPECT_EQ(m.facility, 1);
      EXPECT_EQ(m.severity, 3);
      EXPECT_EQ(m.msgid, "ID47");
      EXPECT_EQ(m.message, "payment failed: card declined");
      ASSERT_EQ(m.structured_data.size(), 4u);
      EXPECT_EQ(m.structured_data[2].sd_id, "exampleSDID@32473");
      EXPECT_EQ(m.structured_data[2].name, "iut");
      EXPECT_EQ(m.structured_data[3].name, "eventSource");
      EXPECT_EQ(m.structured_data[3].value, "App \"x\" ]");  // \" and \] unescaped

      m = parse_ok(fr.frames[4]);  // --rfc5424=notq,notime,nohost: <13>1 - - myapp - - - no time no host
      EXPECT_EQ(m.timestamp_ms, 0);
      EXPECT_EQ(m.hostname, "");
      EXPECT_EQ(m.message, "no time no host");
      EXPECT_EQ(m.labels, L({{"service", "myapp"}, {"level", "notice"}}));
    }
  }
}

TEST(SyslogFixtures, LoggerRfc3164) {
  for (const char* name : {"logger-2.38.1-rfc3164-lf.bin", "logger-2.38.1-rfc3164-octet.bin"}) {
    Framed fr = frame_all(fixture(name), 3);
    EXPECT_TRUE(fr.errors.empty());
    ASSERT_EQ(fr.frames.size(), 3u) << name;
    SyslogMessage m = parse_ok(fr.frames[0]);
    EXPECT_EQ(m.format, SyslogMessage::Format::kRfc3164);
    EXPECT_EQ(m.hostname, "vm");
    EXPECT_EQ(m.app_name, "myapp");
    EXPECT_FALSE(m.procid.empty());
    EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");
    EXPECT_EQ(m.labels, L({{"service", "myapp"}, {"level", "warning"}, {"host", "vm"}}));
    // "Nov 23 04:23:3x" this year (no year in RFC 3164), taken as UTC.
    EXPECT_GT(m.timestamp_ms, 1795407780000);
    EXPECT_LT(m.timestamp_ms, kNow);
    m = parse_ok(fr.frames[2]);
    EXPECT_EQ(m.app_name, "batch");
    EXPECT_EQ(m.procid, "");
    EXPECT_EQ(m.message, "line two");
  }
}

TEST(SyslogFixtures, RsyslogSyslogProtocol23Format) {
  for (const char* name :
       {"rsyslog-8.2302-SyslogProtocol23Format-lf.bin", "rsyslog-8.2302-SyslogProtocol23Format-octet.bin"}) {
    Framed fr = frame_all(fixture(name), 5);
    EXPECT_TRUE(fr.errors.empty());
    ASSERT_EQ(fr.frames.size(), 3u) << name;
    SyslogMessage m = parse_ok(fr.frames[0]);
    EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");  // the octet count included a trailing LF
    EXPECT_EQ(m.timestamp_ms, 1795407840444);
    m = parse_ok(fr.frames[2]);  // a 3164 message relayed: "- -  Accepted" (MSG starts with a space)
    EXPECT_EQ(m.app_name, "sshd");
    EXPECT_EQ(m.procid, "12575");
    EXPECT_EQ(m.message,
              "Accepted publickey for root from 10.0.0.9 port 5122 ssh2: \"quoted\" \\ back \xC3\xBCn\xC3\xAF");
    EXPECT_EQ(m.labels, L({{"service", "sshd"}, {"level", "info"}, {"host", "vm"}}));
    EXPECT_EQ(m.facility, 4);  // auth
  }
}

TEST(SyslogFixtures, RsyslogForwardFormats) {
  // RSYSLOG_ForwardFormat: ISO date in a 3164 frame; the TAG has no ':' when
  // the message came in as RFC 5424.
  Framed fr = frame_all(fixture("rsyslog-8.2302-ForwardFormat-lf.bin"));
  ASSERT_EQ(fr.frames.size(), 3u);
  SyslogMessage m = parse_ok(fr.frames[0]);
  EXPECT_EQ(m.format, SyslogMessage::Format::kRfc3164);
  EXPECT_EQ(m.timestamp_ms, 1795407840444);
  EXPECT_EQ(m.hostname, "vm");
  EXPECT_EQ(m.app_name, "myapp");
  EXPECT_EQ(m.procid, "12570");
  EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");
  m = parse_ok(fr.frames[1]);  // "vm myapp payment failed: card declined"
  EXPECT_EQ(m.app_name, "myapp");
  EXPECT_EQ(m.message, "payment failed: card declined");
  EXPECT_EQ(m.labels, L({{"service", "myapp"}, {"level", "err"}, {"host", "vm"}}));
  m = parse_ok(fr.frames[2]);
  EXPECT_EQ(m.app_name, "sshd");
  EXPECT_EQ(m.message.substr(0, 18), "Accepted publickey");

  fr = frame_all(fixture("rsyslog-8.2302-TraditionalForwardFormat-lf.bin"));
  ASSERT_EQ(fr.frames.size(), 3u);
  m = parse_ok(fr.frames[0]);
  EXPECT_EQ(m.timestamp_ms, 1795407840000);  // Nov 23 04:24:00, this year
  EXPECT_EQ(m.app_name, "myapp");
  EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");
  m = parse_ok(fr.frames[1]);
  EXPECT_EQ(m.message, "payment failed: card declined");
}

TEST(SyslogFixtures, SyslogNg) {
  SyslogFramer::Framing framing;
  Framed fr = frame_all(fixture("syslog-ng-3.38.1-syslog-driver.bin"), 11, 65536, &framing);
  EXPECT_EQ(framing, SyslogFramer::Framing::kOctetCounting);
  ASSERT_EQ(fr.frames.size(), 3u);
  SyslogMessage m = parse_ok(fr.frames[1]);
  EXPECT_EQ(m.format, SyslogMessage::Format::kRfc5424);
  EXPECT_EQ(m.msgid, "ID47");
  EXPECT_EQ(m.message, "payment failed: card declined");
  EXPECT_EQ(m.structured_data.back().value, "App \"x\" ]");

  fr = frame_all(fixture("syslog-ng-3.38.1-network-driver.bin"), 0, 65536, &framing);
  EXPECT_EQ(framing, SyslogFramer::Framing::kLf);
  ASSERT_EQ(fr.frames.size(), 3u);
  m = parse_ok(fr.frames[1]);  // <11>Nov 23 04:25:45 vm myapp: payment failed: card declined
  EXPECT_EQ(m.app_name, "myapp");
  EXPECT_EQ(m.message, "payment failed: card declined");
  EXPECT_EQ(m.labels, L({{"service", "myapp"}, {"level", "err"}, {"host", "vm"}}));

  fr = frame_all(fixture("syslog-ng-3.38.1-network-driver-syslog-protocol.bin"));
  ASSERT_EQ(fr.frames.size(), 3u);
  m = parse_ok(fr.frames[0]);
  EXPECT_EQ(m.format, SyslogMessage::Format::kRfc5424);
  EXPECT_EQ(m.message, "user 42 logged in from 10.0.0.7");
  EXPECT_EQ(m.timestamp_ms, 1795407945000);  // 2026-11-23T04:25:45+00:00
}

// --- RFC 5424 details --------------------------------------------------------

TEST(Syslog5424, Rfc5424Examples) {
  // The RFC's own examples.
  SyslogMessage m = parse_ok(
      "<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xEF\xBB\xBF'su root' failed for lonvick on "
      "/dev/pts/8");
  EXPECT_EQ(m.facility, 4);
  EXPECT_EQ(m.severity, 2);
  EXPECT_EQ(m.timestamp_ms, 1065910455003);
  EXPECT_EQ(m.message, "'su root' failed for lonvick on /dev/pts/8");  // BOM removed
  m = parse_ok("<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts.");
  EXPECT_EQ(m.timestamp_ms, 1061727255000);
  EXPECT_EQ(m.labels, L({{"service", "myproc"}, {"level", "notice"}, {"host", "192.0.2.1"}}));
  m = parse_ok(
      "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\" "
      "eventSource=\"Application\" eventID=\"1011\"][examplePriority@32473 class=\"high\"]");
  EXPECT_EQ(m.message, "");  // no MSG: not an error here
  EXPECT_EQ(m.structured_data.size(), 4u);
  m = parse_ok(R"(<13>1 - - - - - [a b="x\\y\q"] msg)");
  EXPECT_EQ(m.structured_data[0].value, "x\\y\\q");  // \\ -> \, unknown escape kept
  EXPECT_TRUE(m.labels == L({{"level", "notice"}}));
  m = parse_ok("<13>1 2003-10-11T22:14:15Z h a p m -");
  EXPECT_EQ(m.message, "");
}

TEST(Syslog5424, Malformed) {
  EXPECT_NE(parse_err("<13>1 2003-10-11T22:14:15Z host app").find("missing PROCID"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m").find("STRUCTURED-DATA"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m x msg").find("STRUCTURED-DATA"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m [id a=\"1\"").find("unterminated"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m [id a=\"1]").find("unterminated"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m [id a=1]").find("quoted"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m [id a]").find("SD-PARAM"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m []").find("SD-ID"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h a p m [id]x").find("' ' before MSG"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - h\x01 a p m -").find("invalid byte"), std::string::npos);
  EXPECT_NE(parse_err("<13>1 - " + std::string(300, 'h') + " a p m -").find("longer"), std::string::npos);
  // An unparsable timestamp is not an error: 0.
  EXPECT_EQ(parse_ok("<13>1 yesterday h a p m - x").timestamp_ms, 0);
}

TEST(Syslog, PriErrors) {
  EXPECT_NE(parse_err("<>x").find("PRI"), std::string::npos);
  EXPECT_NE(parse_err("<1234>x").find("PRI"), std::string::npos);
  EXPECT_NE(parse_err("<192>x").find("191"), std::string::npos);
  EXPECT_NE(parse_err("<13").find("PRI"), std::string::npos);
  EXPECT_NE(parse_err("<a>x").find("PRI"), std::string::npos);
  EXPECT_NE(parse_err("").find("empty"), std::string::npos);
  EXPECT_NE(parse_err("\r\n").find("empty"), std::string::npos);
  EXPECT_EQ(parse_ok("<0>x").severity, 0);
  EXPECT_EQ(parse_ok("<191>x").facility, 23);
}

// --- RFC 3164 variants --------------------------------------------------------

TEST(Syslog3164, Variants) {
  SyslogMessage m = parse_ok("<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8");
  EXPECT_EQ(m.hostname, "mymachine");
  EXPECT_EQ(m.app_name, "su");
  EXPECT_EQ(m.message, "'su root' failed for lonvick on /dev/pts/8");
  EXPECT_EQ(m.timestamp_ms, 1791756855000);  // 2026-10-11T22:14:15Z

  // Day padded with a space; missing host (TAG right after the date).
  m = parse_ok("<13>Feb  5 01:02:03 cron[77]: job done");
  EXPECT_EQ(m.hostname, "");
  EXPECT_EQ(m.app_name, "cron");
  EXPECT_EQ(m.procid, "77");
  EXPECT_EQ(m.message, "job done");
  EXPECT_EQ(m.timestamp_ms, 1770253323000);  // 2026-02-05T01:02:03Z

  // A date later than a week ahead of now is last year.
  m = parse_ok("<13>Dec 31 23:59:59 h app: x");
  EXPECT_EQ(m.timestamp_ms, 1767225599000);  // 2025-12-31T23:59:59Z

  // TAG without pid and colon-less TAG.
  EXPECT_EQ(parse_ok("<13>Nov 23 04:24:00 host app: hi").app_name, "app");
  m = parse_ok("<13>Nov 23 04:24:00 host app hi there");
  EXPECT_EQ(m.app_name, "app");
  EXPECT_EQ(m.message, "hi there");

  // Fractional seconds and a year (Cisco style).
  EXPECT_EQ(parse_ok("<13>Nov 23 04:24:00.444 host app: x").timestamp_ms, 1795407840444);
  EXPECT_EQ(parse_ok("<13>Nov 23 2025 04:24:00 host app: x").timestamp_ms, 1763871840000);

  // ISO timestamp (rsyslog ForwardFormat, syslog-ng ISO dates).
  m = parse_ok("<13>2026-11-23T04:24:00Z host app[1]: iso");
  EXPECT_EQ(m.timestamp_ms, 1795407840000);
  EXPECT_EQ(m.hostname, "host");
  EXPECT_EQ(m.message, "iso");

  // No PRI at all.
  m = parse_ok("Nov 23 04:24:00 host app: no pri");
  EXPECT_EQ(m.severity, -1);
  EXPECT_EQ(m.message, "no pri");
  EXPECT_EQ(m.labels, L({{"service", "app"}, {"host", "host"}}));
  m = parse_ok("just some text");
  EXPECT_EQ(m.message, "just some text");
  EXPECT_TRUE(m.labels.empty());

  // No date: only a clear TAG marker makes a TAG.
  m = parse_ok("<13>app[12]: started");
  EXPECT_EQ(m.app_name, "app");
  EXPECT_EQ(m.message, "started");
  m = parse_ok("<13>hello world");
  EXPECT_EQ(m.app_name, "");
  EXPECT_EQ(m.message, "hello world");

  // A "date" glued to text is no date.
  m = parse_ok("<13>Nov 23 04:24:00x host: y");
  EXPECT_EQ(m.timestamp_ms, 0);
  // Host word with odd characters: not a host; the rest is the message.
  m = parse_ok("<13>Nov 23 04:24:00 a=b c d");
  EXPECT_EQ(m.hostname, "");
  EXPECT_EQ(m.message, "a=b c d");

  // "<13>1 " followed by a non-date is 3164 text, not RFC 5424.
  m = parse_ok("<13>1 apple");
  EXPECT_EQ(m.format, SyslogMessage::Format::kRfc3164);
  EXPECT_EQ(m.message, "1 apple");
}

TEST(Syslog, LabelLimit) {
  SyslogMessage m;
  std::string err;
  SyslogParseOptions o;
  o.max_labels = 1;
  ASSERT_TRUE(parse_syslog("<13>1 - host app - - - x", &m, &err, o));
  EXPECT_EQ(m.labels, L({{"service", "app"}}));
  o.max_labels = 0;
  ASSERT_TRUE(parse_syslog("<13>1 - host app - - - x", &m, &err, o));
  EXPECT_TRUE(m.labels.empty());
  o.max_labels = 16;
  o.max_sd_params = 1;
  ASSERT_TRUE(parse_syslog(R"(<13>1 - h a - - [x a="1" b="2"][y c="3"] m)", &m, &err, o));
  EXPECT_EQ(m.structured_data.size(), 1u);
  EXPECT_EQ(m.message, "m");
}

// --- Framing ------------------------------------------------------------------

TEST(SyslogFramer, LfFraming) {
  Framed fr = frame_all("\r\n<13>a\r\n\n<13>b\n<13>c");  // blank lines skipped, CR LF ok, last line at EOF
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a", "<13>b", "<13>c"}));
  EXPECT_TRUE(fr.errors.empty());
  // A timestamp first (no PRI) is LF framing, not a count.
  SyslogFramer::Framing framing;
  fr = frame_all("2026-11-23 x\n123 y\n", 0, 65536, &framing);
  EXPECT_EQ(framing, SyslogFramer::Framing::kLf);
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"2026-11-23 x", "123 y"}));
  fr = frame_all("12345678901 eleven digits\n", 0, 65536, &framing);
  EXPECT_EQ(framing, SyslogFramer::Framing::kLf);
  EXPECT_EQ(fr.frames.size(), 1u);
}

TEST(SyslogFramer, OctetCounting) {
  std::string s = "5 <13>a6 <13>bc\n7 <13>def";
  for (size_t chunk : {size_t(0), size_t(1), size_t(2), size_t(3)}) {
    Framed fr = frame_all(s, chunk);
    EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a", "<13>bc", "<13>def"})) << chunk;
    EXPECT_TRUE(fr.errors.empty());
  }
  // Waiting on a count that is all digits so far.
  SyslogFramer f;
  SyslogFrameEvent ev;
  f.feed("1");
  EXPECT_FALSE(f.next(&ev));
  EXPECT_EQ(f.framing(), SyslogFramer::Framing::kUnknown);
  f.feed("0 <13>hello");
  EXPECT_FALSE(f.next(&ev));  // 9 of 10 bytes
  f.feed("!x");
  ASSERT_TRUE(f.next(&ev));
  EXPECT_EQ(ev.frame, "<13>hello!");
  EXPECT_EQ(f.framing(), SyslogFramer::Framing::kOctetCounting);
}

TEST(SyslogFramer, OversizeOctetCountSkipsAndResyncs) {
  std::string big(1000, 'x');
  std::string s = "1000 " + big + "5 <13>a";
  for (size_t chunk : {size_t(0), size_t(1), size_t(100)}) {
    Framed fr = frame_all(s, chunk, 100);
    ASSERT_EQ(fr.errors.size(), 1u);
    EXPECT_NE(fr.errors[0].find("over max_frame_bytes 100"), std::string::npos) << fr.errors[0];
    EXPECT_EQ(fr.skipped[0], 1000u);
    EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a"})) << chunk;
  }
  // A count too large for any limit.
  Framed fr = frame_all("9999999999 x", 0, 100);
  ASSERT_EQ(fr.errors.size(), 1u);
  EXPECT_EQ(fr.skipped[0], 9999999999u);
}

TEST(SyslogFramer, MalformedCountResyncsAtLf) {
  Framed fr = frame_all("5 <13>a12a <13>junk\n6 <13>ok", 0);
  ASSERT_EQ(fr.errors.size(), 1u);
  EXPECT_NE(fr.errors[0].find("malformed octet count"), std::string::npos);
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a", "<13>ok"}));
  // Leading zero, zero, missing space, more than 10 digits.
  for (const char* bad : {"5 <13>a05 <13>b\n", "5 <13>a0 \n", "5 <13>a5<13>b\n", "5 <13>a123456789012 x\n"}) {
    fr = frame_all(bad, 1);
    EXPECT_EQ(fr.errors.size(), 1u) << bad;
    EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a"})) << bad;
  }
  // The junk line arriving in pieces is skipped as it comes.
  fr = frame_all("5 <13>a" + std::string("x") + std::string(5000, 'y') + "\n5 <13>b", 64, 100);
  EXPECT_EQ(fr.errors.size(), 1u);
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a", "<13>b"}));
}

TEST(SyslogFramer, OversizeLfLine) {
  std::string s = "<13>short\n" + std::string(500, 'z') + "\n<13>after\n";
  for (size_t chunk : {size_t(0), size_t(1), size_t(64)}) {
    Framed fr = frame_all(s, chunk, 100);
    EXPECT_EQ(fr.errors.size(), 1u) << chunk;
    EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>short", "<13>after"})) << chunk;
  }
  // The framer never holds much more than max_frame_bytes plus one chunk.
  SyslogFramer f(100);
  SyslogFrameEvent ev;
  for (int i = 0; i < 1000; ++i) {
    f.feed(std::string(50, 'q'));
    while (f.next(&ev)) {
    }
    EXPECT_LE(f.buffered(), 150u);
  }
  EXPECT_GE(f.skipped_total(), 49000u);
}

TEST(SyslogFramer, TruncatedAtEof) {
  Framed fr = frame_all("5 <13>a9 <13>b");
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"<13>a"}));
  ASSERT_EQ(fr.errors.size(), 1u);
  EXPECT_NE(fr.errors[0].find("closed inside a frame"), std::string::npos);
  fr = frame_all("");
  EXPECT_TRUE(fr.frames.empty());
  EXPECT_TRUE(fr.errors.empty());
  fr = frame_all("12");  // digits only, then EOF: an LF "line"
  EXPECT_EQ(fr.frames, (std::vector<std::string>{"12"}));
}

TEST(SyslogFramer, GarbageNeverCrashes) {
  uint32_t seed = 7;
  for (int round = 0; round < 300; ++round) {
    std::string s;
    for (int k = 0; k < 200; ++k) {
      seed = seed * 1664525u + 1013904223u;
      const char alphabet[] = "0123456789 <>\n\r[]\"\\-1a";
      s.push_back(alphabet[(seed >> 24) % (sizeof(alphabet) - 1)]);
    }
    Framed fr = frame_all(s, 1 + seed % 17, 32);
    for (const auto& frame : fr.frames) {
      SyslogMessage m;
      std::string err;
      parse_syslog(frame, &m, &err);
    }
  }
}

}  // namespace
}  // namespace logsift
