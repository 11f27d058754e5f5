#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "pipeline/stages/slots.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

// The template of `line` after the default pre-mask and the slot rules (no denoiser).
std::string slotted(const std::string& line, int version = kSlotRulesLatest) {
  static const Premasker pm(Config::defaults().premask);
  std::vector<Token> toks;
  tokenize(line, pm.find(line), &toks);
  apply_slot_rules(line, toks, slot_rule_kept_keys({"msg", "message", "log", "text"}), version);
  return render_template(line, toks);
}

// The template of `line` after the default pre-mask, the denoiser's marks on
// the words listed in `denoised` (as a model would set them) and the rules.
std::string slotted_after(const std::string& line, const std::vector<std::string>& denoised, int version) {
  static const Premasker pm(Config::defaults().premask);
  std::vector<Token> toks;
  tokenize(line, pm.find(line), &toks);
  for (Token& t : toks)
    for (const auto& w : denoised)
      if (t.kind == TokenKind::kWord && line.substr(t.begin, t.end - t.begin) == w) t.mark = kMarkVar;
  apply_slot_rules(line, toks, slot_rule_kept_keys({"msg", "message", "log", "text"}), version);
  return render_template(line, toks);
}

// slots-v4: a function word the denoiser marked is a constant again, so one
// statement keeps one template when a word-like value sits next to it.
TEST(SlotRules, FunctionWordsAreNeverValuesOnTheirOwn) {
  const std::string line = "Failed password for invalid user user from 103.99.0.122 port 62581 ssh2";
  // (The helper marks both "user" tokens.)
  EXPECT_EQ(slotted_after(line, {"user", "from"}, 3), "Failed password for invalid <*> <*> <*> <*> port <*> ssh2")
      << "slots-v3 keeps the denoiser's mark on \"from\"";
  EXPECT_EQ(slotted_after(line, {"user", "from"}, 4), "Failed password for invalid <*> <*> from <*> port <*> ssh2")
      << "\"user\" is not a function word: both of its tokens stay as the denoiser marked them";
  EXPECT_EQ(slotted_after("copied The To From", {"The", "To", "From"}, 4), "copied The To From") << "any case";
  EXPECT_EQ(slotted_after("sent to 10.0.0.1", {}, 4), "sent to <*>") << "nothing marked, nothing changes";
  // Inside a value a function word stays part of it: the rules mark it again.
  EXPECT_EQ(slotted_after("open 'the file' failed", {"the"}, 4), "open '<*>' failed");
  EXPECT_EQ(slotted_after("set mode=on now", {"on"}, 4), "set mode=<*> now");
  EXPECT_EQ(slotted_after("failed to connect: no route to host", {"to"}, 4), "failed to connect: <*>");
  // Longer words and non-words are not on the list.
  EXPECT_EQ(slotted_after("user alpha logged in", {"alpha"}, 4), "user <*> logged in");
  EXPECT_TRUE(is_function_word("FROM"));
  EXPECT_FALSE(is_function_word("fromage"));
  EXPECT_FALSE(is_function_word(""));
}

TEST(SlotRules, QuotedValuesAreOneVariable) {
  EXPECT_EQ(slotted("Could not set limit for 'nofile' to soft=1024"), "Could not set limit for '<*>' to soft=<*>");
  EXPECT_EQ(slotted("relation \"orders archive\" does not exist"), "relation \"<*>\" does not exist");
  EXPECT_EQ(slotted("Couldn't load match `body-297':Broken pipe"), "Couldn't load match <*>':Broken pipe");
  // Two quoted values, and an empty one that holds nothing to mask.
  EXPECT_EQ(slotted("copy 'a b' to 'c' ('' skipped)"), "copy '<*>' to '<*>' ('' skipped)");
}

TEST(SlotRules, ApostrophesAreNoQuotes) {
  EXPECT_EQ(slotted("Couldn't connect: the server's socket is gone", 1),
            "Couldn't connect: the server's socket is gone");
  EXPECT_EQ(slotted("can't open 'x' and don't retry"), "can't open '<*>' and don't retry");
  // An opening quote that never closes masks nothing, and stops the search
  // for that quote character (the pass stays linear).
  EXPECT_EQ(slotted("it 'never closes and 'nor this"), "it 'never closes and 'nor this");
}

TEST(SlotRules, AWholeQuotedLineIsTheMessageNotAValue) {
  EXPECT_EQ(slotted("\"Starting the worker pool\""), "\"Starting the worker pool\"");
  EXPECT_EQ(slotted("  'hello world'  "), "  'hello world'  ");
}

TEST(SlotRules, MessageKeysAndJsonKeysAreNoValues) {
  // A structured line the extractor did not reduce keeps its message.
  EXPECT_EQ(slotted("2024-01-01 12:00:00 INFO level=warn msg=\"webhook dispatched\" count=73 MSG=sent"),
            "<*> INFO level=<*> msg=\"webhook dispatched\" count=<*> MSG=sent");
  // The call site tells statements apart (structured_keep_caller's prefix).
  EXPECT_EQ(slotted("caller=store.go:88 retrying"), "caller=store.go:<*> retrying");
  EXPECT_EQ(slotted("payload {\"Message\": \"disk full\", \"device\":\"sda\"} dropped"),
            "payload {\"Message\": \"disk full\", \"device\":\"<*>\"} dropped");
  // Other keys' values are values, whatever the separator.
  EXPECT_EQ(slotted("failed: error=\"disk full\" reason: 'quota'"), "failed: error=\"<*>\" reason: '<*>'");
}

TEST(SlotRules, KeyValueValues) {
  EXPECT_EQ(slotted("Client closed connection name= flags=N db=0 cmd=client|list"),
            "Client closed connection name= flags=<*> db=<*> cmd=<*>|list");
  EXPECT_EQ(slotted("connection authenticated: identity=\"app\" method=scram-sha-256"),
            "connection authenticated: identity=\"<*>\" method=<*>");
  EXPECT_EQ(slotted("dial addr=db.lan:5432, retry"), "dial addr=<*>, retry");
  // A blank around '=' is prose or code, not a pair; keys start with a letter or '_'.
  EXPECT_EQ(slotted("where amount = total"), "where amount = total");
  EXPECT_EQ(slotted("flag --mode=fast"), "flag --mode=fast");
}

TEST(SlotRules, TheCauseAfterAFailureIsOneVariable) {
  // Go's "failed to X: %v" with a wrapped error chain; a constant clause after ", " stays.
  EXPECT_EQ(slotted("failed to sync pod web: dial tcp 10.0.0.7:443: connect: connection refused, retrying"),
            "failed to sync pod web: <*>, retrying");
  EXPECT_EQ(slotted("failed to sync pod web: context deadline exceeded, retrying"),
            "failed to sync pod web: <*>, retrying");
  // C's "X failed: %s" with strerror, and the other failure words.
  EXPECT_EQ(slotted("LOGIN chdir(/p/gb2/x) failed: No such file or directory"), "LOGIN chdir(<*>) failed: <*>");
  EXPECT_EQ(slotted("Couldn't connect: the server's socket is gone"), "Couldn't connect: <*>");
  EXPECT_EQ(slotted("could not dial upstream: i/o timeout"), "could not dial upstream: <*>");
  EXPECT_EQ(slotted("Can't open the socket: Permission denied"), "Can't open the socket: <*>");
  EXPECT_EQ(slotted("Certificate verification problem 0x1f: Is a directory"),
            "Certificate verification problem <*>: <*>");
  // Inside a double-quoted message the cause ends at the closing quote.
  EXPECT_EQ(slotted("level=warn msg=\"error writing events: disk full\" attempt=3"),
            "level=<*> msg=\"error writing events: <*>\" attempt=<*>");
  // The first qualifying clause decides; later ones are part of its cause.
  EXPECT_EQ(slotted("sync: failed to load config: open /etc/a.conf: permission denied"),
            "sync: failed to load config: <*>");
}

TEST(SlotRules, NoCauseWithoutAFailureClause) {
  // A one-word clause is a level or a prefix, not a failure statement.
  EXPECT_EQ(slotted("error: Received disconnect from 10.1.1.1: 11: Bye Bye [preauth]"),
            "error: Received disconnect from <*>: <*>: Bye Bye [preauth]");
  EXPECT_EQ(slotted("Error: config file missing"), "Error: config file missing");
  // No failure word, no ": " after it, or nothing but pre-masked values after it.
  EXPECT_EQ(slotted("Refreshing instance because: quota exceeded"), "Refreshing instance because: quota exceeded");
  EXPECT_EQ(slotted("connection failed:timeout"), "connection failed:timeout");
  // ", ", "; " and " - " start a clause: here the ": " ends a key, not a failure.
  EXPECT_EQ(slotted("Request failed - status: 500 - retry in 1s"), "Request failed - status: <*> - retry in 1s");
  EXPECT_EQ(slotted("sync failed, reason: quota exceeded"), "sync failed, reason: quota exceeded");
  EXPECT_EQ(slotted("job failed; next try: in an hour"), "job failed; next try: in an hour");
  EXPECT_EQ(slotted("cannot open file /etc/x.conf: 42"), "cannot open file <*>: <*>");
  // A failure word as a JSON key's closing quote, and a word that contains one.
  EXPECT_EQ(slotted("got {\"error\": \"disk full\"} back", 2), "got {\"error\": \"<*>\"} back");
  EXPECT_EQ(slotted("ErrorHandler started: pool ready"), "ErrorHandler started: pool ready");
}

TEST(SlotRules, AUnitAfterANumberIsPartOfItsValue) {
  // A byte or time formatter picks the unit with the size: one statement.
  const std::string tmpl = "uploaded it in <*> <*>, <*> <*> (<*> <*>)";
  EXPECT_EQ(slotted("uploaded it in 12 s, 1.5 GB (130.2 MB/s)"), tmpl);
  EXPECT_EQ(slotted("uploaded it in 250 ms, 830 KB (3.3 KB/sec)"), tmpl);
  EXPECT_EQ(slotted("uploaded it in 3 minutes, 12 bytes (0.1 B/s)"), tmpl);
  EXPECT_EQ(slotted("freed 512 MiB, now 1.2 GiB"), "freed <*> <*>, now <*> <*>");
  EXPECT_EQ(slotted("took 17 \xc2\xb5s"), "took <*> <*>");
  EXPECT_EQ(slotted("slept 2 seconds."), "slept <*> <*>.");
  // Not a unit: no number before it, not one blank after the value, glued
  // to more, or not a unit word at all.
  EXPECT_EQ(slotted("MB free"), "MB free");
  EXPECT_EQ(slotted("read 5  MB"), "read <*>  MB");
  EXPECT_EQ(slotted("got 5 s=3"), "got <*> s=<*>");
  EXPECT_EQ(slotted("got 5 s.example.org"), "got <*> s.example.org");
  EXPECT_EQ(slotted("got 5 B-tree pages"), "got <*> B-tree pages");
  EXPECT_EQ(slotted("sent 5 packets"), "sent <*> packets");
  EXPECT_EQ(slotted("sent 5 Mbps"), "sent <*> Mbps");
}

TEST(SlotRules, JsonFragmentsAreOneVariable) {
  const std::string tmpl = "received payload <*> from client";
  EXPECT_EQ(slotted("received payload {\"id\":42,\"name\":\"x\"} from client"), tmpl);
  EXPECT_EQ(slotted("received payload {\"user\":\"bob\",\"roles\":[\"admin\",\"dev\"],\"m\":{\"a\":1}} from client"), tmpl);
  EXPECT_EQ(slotted("received payload {'id': 42, 'tags': ['a', 'b']} from client"), tmpl);  // a Python dict
  EXPECT_EQ(slotted("received payload [\"a\",\"b\"] from client"), tmpl);
  EXPECT_EQ(slotted("received payload [{\"a\":1},{\"a\":2}] from client"), tmpl);
  EXPECT_EQ(slotted("body={\"k\":\"a}b\\\"c\"} sent"), "body=<*> sent");  // a brace and an escaped quote in a string
  // Not a fragment: no quote after the opening, glued to a word, an object
  // with no ':', never closed, or the whole line.
  EXPECT_EQ(slotted("tags [a, b, c] applied"), "tags [a, b, c] applied");
  EXPECT_EQ(slotted("args[\"x\"] set"), "args[\"<*>\"] set");
  EXPECT_EQ(slotted("set {\"a\", \"b\"} done"), "set {\"<*>\", \"<*>\"} done");
  EXPECT_EQ(slotted("open {\"a\":1 and more"), "open {\"a\":<*> and more");  // "a" is a JSON key
  EXPECT_EQ(slotted("{\"a\":1}"), "{\"a\":<*>}");
  EXPECT_EQ(slotted("[\"a\",\"b\"]"), "[\"<*>\",\"<*>\"]");
  // An object with a message key keeps its message (and so its object).
  EXPECT_EQ(slotted("payload {\"msg\": \"disk full\", \"device\":\"sda\"} dropped"),
            "payload {\"msg\": \"disk full\", \"device\":\"<*>\"} dropped");
  EXPECT_EQ(slotted("got {\"error\": \"disk full\"} back"), "got <*> back");
}

TEST(SlotRules, BacktickSpansAreOneVariable) {
  EXPECT_EQ(slotted("unknown field `retries` in config"), "unknown field <*> in config");
  EXPECT_EQ(slotted("unknown field `max conns` in config"), "unknown field <*> in config");
  EXPECT_EQ(slotted("run `apt-get update`, then retry"), "run <*>, then retry");
  // Not a span: glued to a word before, never closed, or a lone backtick.
  EXPECT_EQ(slotted("a`b` c"), "a`b` c");
  EXPECT_EQ(slotted("open `x and more"), "open `x and more");
  EXPECT_EQ(slotted("a ` b"), "a ` b");
}

TEST(SlotRules, VersionsSelectTheRules) {
  const std::string line = "failed to sync pod web: context deadline exceeded, retrying";
  EXPECT_EQ(slotted(line, 1), line);
  EXPECT_EQ(slotted(line, 2), "failed to sync pod web: <*>, retrying");
  EXPECT_EQ(slotted("open 'x' failed: gone", kSlotRulesOff), "open 'x' failed: gone");
  EXPECT_EQ(slotted("open 'x' failed: gone", 1), "open '<*>' failed: gone");
  EXPECT_EQ(parse_slot_rules("slots-v1"), 1);
  EXPECT_EQ(parse_slot_rules("slots-v2"), 2);
  EXPECT_EQ(parse_slot_rules("slots-v3"), 3);
  EXPECT_EQ(parse_slot_rules("slots-v4"), 4);
  EXPECT_EQ(parse_slot_rules("off"), kSlotRulesOff);
  EXPECT_EQ(parse_slot_rules("slots-v5"), -1);
  EXPECT_EQ(slotted("wrote 5 MB", 2), "wrote <*> MB");
  EXPECT_EQ(slotted("wrote 5 MB", 3), "wrote <*> <*>");
  EXPECT_EQ(slotted("unknown field `a`", 2), "unknown field `a`");
  EXPECT_EQ(slotted("unknown field `a`", 3), "unknown field <*>");
  EXPECT_EQ(slot_rules_name(kSlotRulesLatest), kSlotRulesVersion);
}

TEST(SlotRules, NcsaAccessLinesKeepOnlyTheirFieldStructure) {
  const std::string common = "<*> <*> <*> [<*>] \"<*>\" <*> <*>";
  const std::string combined = common + " \"<*>\" \"<*>\"";
  EXPECT_EQ(slotted("127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326"), common);
  EXPECT_EQ(slotted("10.1.2.3 - - [25/Nov/2026:10:00:01 +0000] \"POST /api/v1/login HTTP/1.1\" 401 - "
                    "\"-\" \"Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\""),
            combined);
  EXPECT_EQ(slotted("2001:db8::1 - - [25/Nov/2026:10:00:02 +0000] \"HEAD / HTTP/2.0\" 304 0 "
                    "\"https://example.org/\" \"curl/8.4.0\""),
            combined);
  // A virtual host in front (vhost_combined), and extra fields behind.
  EXPECT_EQ(slotted("www.example.org:443 10.1.2.3 - - [25/Nov/2026:10:00:03 +0000] \"GET / HTTP/1.1\" 200 612 "
                    "\"-\" \"Go-http-client/1.1\" rt=0.004 \"10.0.0.9\""),
            "<*> " + combined + " <*> \"<*>\"");
  // A malformed request line is still the same statement.
  EXPECT_EQ(slotted("10.1.2.3 - - [25/Nov/2026:10:00:04 +0000] \"-\" 400 0 \"-\" \"-\""), combined);
}

// Whether the access rule takes `line` (`wide`: the slots-v3 form).
bool is_access(const std::string& line, bool wide = false) {
  static const Premasker pm(Config::defaults().premask);
  std::vector<Token> toks;
  tokenize(line, pm.find(line), &toks);
  return mark_access_line(line, toks, wide);
}

TEST(SlotRules, OnlyTheAccessShapeIsAnAccessLine) {
  EXPECT_TRUE(is_access("1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 2326"));
  // An nginx error line quotes a request too, but has no access-log fields.
  EXPECT_FALSE(is_access("*5 upstream timed out (110: Connection timed out) while reading response header from "
                         "upstream, client: 1.2.3.4, request: \"GET / HTTP/1.1\""));
  // No timestamp in the brackets, a word where the status goes, a quote never closed.
  EXPECT_FALSE(is_access("a b c [d] \"GET / HTTP/1.0\" 200 1"));
  EXPECT_FALSE(is_access("1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" OK 2326"));
  EXPECT_FALSE(is_access("1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0 200 2326"));
  EXPECT_FALSE(is_access(""));
}

TEST(SlotRules, OtherAccessLayoutsKeepOnlyTheirFieldStructure) {
  // Envoy's / Istio's default access log: response flags, "-" for a missing
  // upstream, the agent and the authority all vary for one statement.
  const std::string envoy = "[<*>] \"<*>\" <*> <*> <*> <*> <*> <*> \"<*>\" \"<*>\" \"<*>\" \"<*>\" \"<*>\"";
  EXPECT_EQ(slotted("[2024-05-01T12:00:00.123Z] \"GET /api/v1/users HTTP/1.1\" 200 - 0 1534 12 10 \"10.0.0.1\" "
                    "\"curl/7.68.0\" \"a1b2c3d4-1111-2222-3333-444455556666\" \"api.example.com\" \"10.0.0.2:8080\""),
            envoy);
  EXPECT_EQ(slotted("[2024-05-01T12:00:02.789Z] \"GET /healthz HTTP/1.1\" 503 UF 0 91 1 - \"-\" \"kube-probe/1.27\" "
                    "\"c1b2c3d4-1111-2222-3333-444455556666\" \"10.0.0.3:15021\" \"-\""),
            envoy);
  // slots-v2 keeps the flags in the template.
  EXPECT_NE(slotted("[2024-05-01T12:00:02.789Z] \"GET /healthz HTTP/1.1\" 503 UF 0 91 1 - \"-\" \"kube-probe/1.27\" "
                    "\"c1b2c3d4-1111-2222-3333-444455556666\" \"10.0.0.3:15021\" \"-\"",
                    2),
            envoy);
  // Not an access line: no status after the request, a word where the status
  // goes, not a method, no "HTTP/", or fewer than seven fields.
  for (const char* line : {
           "upstream reset, request: \"GET / HTTP/1.1\", host: \"a\" x y z w",
           "[t] \"GET / HTTP/1.1\" OK a b c d e",
           "[t] \"FETCH / HTTP/1.1\" 200 a b c d e",
           "[t] \"GET / now\" 200 a b c d e",
           "served \"GET / HTTP/1.1\" 200 in 3 ms",
       }) {
    EXPECT_FALSE(is_access(line, true)) << line;
  }
}

TEST(SlotRules, NeverReadThePreMaskedBytes) {
  // Lines with the same pre-masked form (the line cache's key) get the same
  // marks: "/a/b" and "/a/b/" are both one path span before the quote.
  std::string t1 = slotted("open /a/b'x' failed"), t2 = slotted("open /a/b/'x' failed");
  EXPECT_EQ(t1, t2);
}

TEST(SlotRules, LinearOnAdversarialLines) {
  // 64 KB of openings that never close, and of pairs: both finish at once
  // (a quadratic scan would take seconds here).
  std::string opens, pairs, kvs;
  for (int i = 0; i < 16384; ++i) opens += " 'a";
  for (int i = 0; i < 8192; ++i) pairs += " 'a' ";
  std::string causes, ticks, braces;
  for (int i = 0; i < 8192; ++i) kvs += "k=v:";
  for (int i = 0; i < 16384; ++i) ticks += " `a";
  for (int i = 0; i < 16384; ++i) braces += " {\"a";
  for (int i = 0; i < 8192; ++i) causes += "a b: x failed: ";
  EXPECT_EQ(slotted(opens), opens);
  EXPECT_EQ(slotted(pairs).size(), pairs.size() + 2 * 8192);  // each a -> <*>
  EXPECT_EQ(slotted(kvs), "k=<*>:");
  EXPECT_EQ(slotted(causes), "a b: x failed: <*> ");
  EXPECT_EQ(slotted(ticks), ticks);
  EXPECT_EQ(slotted(braces), braces);  // the trailing blank is no part of the cause
}

}  // namespace
}  // namespace logsift
