// Curation end to end on the embedded store (SQLite): a person merges two
// clusters, names one, mutes one and undoes a merge through the API; the
// replies, the list, the detail of a merged id and the alerts follow at
// once, bad actions are refused with their reason and leave nothing
// behind, and everything holds over a restart.
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "harness.h"
#include "webhook_receiver.h"

using namespace logsift_it;

namespace {

std::string id_of(int port, const std::string& text) {
  const HttpResponse r = post_infer(port, text);
  if (r.status != 200) return "status " + std::to_string(r.status) + ": " + r.body;
  return r.json_body().value("cluster_id", "");
}

HttpResponse act(int port, const std::string& target, const json& body) {
  return http_request(port, "POST", target, body.dump(), "application/json");
}

json cluster_row(int port, const std::string& id) {
  const auto all = fetch_all_clusters(port);
  if (all)
    for (const auto& c : *all)
      if (c.value("cluster_id", "") == id) return c;
  return json();
}

constexpr const char* kLogin = "User alice logged in from 10.0.0.1";
constexpr const char* kTimeout = "Connection to db-7 timed out after 30 s";
constexpr const char* kDisk = "Disk /dev/sda1 is 91 percent full on host web-3";

}  // namespace

TEST(Curation, MergeNameMuteAndUndoTakeEffectOnTheNextLineAndSurviveARestart) {
  TempDir data("logsift-curation-it-");
  ServerOptions o;
  o.data_dir = data.path();
  auto server = std::make_unique<ServerProcess>(o);
  ASSERT_TRUE(server->start_ready());
  int port = server->http_port();
  const std::string login = id_of(port, kLogin), timeout = id_of(port, kTimeout), disk = id_of(port, kDisk);
  ASSERT_TRUE(is_hex16(login) && is_hex16(timeout) && is_hex16(disk)) << login << " " << timeout << " " << disk;
  ASSERT_NE(login, timeout);

  // Merge: the next line of the merged cluster gets the id it joined.
  HttpResponse m = act(port, "/clusters/" + login + "/merge", {{"into", timeout}});
  ASSERT_EQ(m.status, 201) << m.describe();
  const json merge = m.json_body();
  EXPECT_EQ(merge.value("seq", 0), 1);
  EXPECT_EQ(merge.value("kind", ""), "merge");
  EXPECT_FALSE(merge.value("by", "").empty()) << "each action says who took it: " << merge;
  EXPECT_EQ(id_of(port, "User bob logged in from 10.0.0.2"), timeout);
  // The merged id answers with the cluster it joined; the list says both.
  HttpResponse d = http_get(port, "/clusters/" + login);
  ASSERT_EQ(d.status, 200) << d.describe();
  EXPECT_EQ(d.json_body().value("cluster_id", ""), timeout);
  EXPECT_EQ(d.json_body()["merged_from"].value("cluster_id", ""), login);
  EXPECT_EQ(cluster_row(port, login).value("merged_into", ""), timeout);
  EXPECT_EQ(cluster_row(port, timeout)["merged"], json::array({login}));

  // Refused, with the reason, and nothing written.
  EXPECT_EQ(act(port, "/clusters/" + timeout + "/merge", {{"into", timeout}}).status, 400) << "into itself";
  HttpResponse again = act(port, "/clusters/" + login + "/merge", {{"into", disk}});
  EXPECT_EQ(again.status, 409) << again.describe();
  EXPECT_NE(again.body.find("merged into"), std::string::npos) << again.body;
  EXPECT_EQ(act(port, "/clusters/" + disk + "/merge", {{"into", login}}).status, 409) << "into a merged cluster";
  EXPECT_EQ(act(port, "/clusters/00000000deadbeef/merge", {{"into", disk}}).status, 404);
  EXPECT_EQ(act(port, "/clusters/" + disk + "/merge", {{"into", "nope"}}).status, 400);
  EXPECT_EQ(http_request(port, "POST", "/clusters/" + disk + "/merge", "{", "application/json").status, 400);
  EXPECT_EQ(act(port, "/clusters/" + disk + "/name", {{"name", ""}}).status, 400);
  EXPECT_EQ(act(port, "/clusters/" + disk + "/mute", {{"for", "soon"}}).status, 400);
  EXPECT_EQ(act(port, "/clusters/" + disk + "/mute", {{"until", "2001-01-01T00:00:00Z"}}).status, 400);
  EXPECT_EQ(http_request(port, "POST", "/curation/99/undo", "", "application/json").status, 404);
  EXPECT_EQ(http_request(port, "GET", "/clusters/" + disk + "/merge", "", "").status, 405);
  EXPECT_EQ(http_get(port, "/curation").json_body().value("version", -1), 1) << "refusals write nothing";

  // Name and mute; an alert rule on every cluster shows both.
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  HttpResponse sub = act(port, "/subscriptions",
                         {{"url", rcv.url()}, {"rules", json::array({{{"kind", "threshold"}, {"threshold", 3}, {"window", "1m"}}})}});
  ASSERT_EQ(sub.status, 201) << sub.describe();
  ASSERT_EQ(act(port, "/clusters/" + timeout + "/name", {{"name", "db timeouts"}, {"note", "see runbook 12"}}).status, 201);
  ASSERT_EQ(act(port, "/clusters/" + disk + "/mute", json::object()).status, 201);
  EXPECT_EQ(cluster_row(port, timeout).value("name", ""), "db timeouts");
  EXPECT_TRUE(cluster_row(port, disk).value("muted", false));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(id_of(port, "Connection to db-" + std::to_string(i) + " timed out after 30 s"), timeout);
    EXPECT_EQ(id_of(port, "Disk /dev/sdb" + std::to_string(i) + " is 9" + std::to_string(i) + " percent full on host web-1"), disk);
  }
  ASSERT_TRUE(rcv.wait_for_count(1, Millis(15000))) << "the named cluster's threshold alert";
  std::this_thread::sleep_for(Millis(1500));  // room for an alert the mute should have stopped
  for (const auto& r : rcv.requests()) {
    const json a = r.json_body();
    EXPECT_NE(a.value("cluster_id", ""), disk) << "a muted cluster's alert went out: " << a.dump();
    if (a.value("cluster_id", "") == timeout) {
      EXPECT_EQ(a.value("cluster_name", ""), "db timeouts");
      EXPECT_EQ(a.value("cluster_note", ""), "see runbook 12");
    }
  }
  bool found = false;
  EXPECT_GE(fetch_metric(port, "logsift_alerts_muted_total", &found).value_or(0), 1.0);
  EXPECT_TRUE(found);

  // Undo the merge: the cluster's lines get their own id again.
  ASSERT_EQ(http_request(port, "POST", "/curation/1/undo", "", "application/json").status, 201);
  EXPECT_EQ(http_request(port, "POST", "/curation/1/undo", "", "application/json").status, 409) << "undone already";
  EXPECT_EQ(id_of(port, "User carol logged in from 10.0.0.3"), login);
  EXPECT_FALSE(cluster_row(port, login).contains("merged_into"));

  // Over a restart: the log, and its effect, are the store's.
  ASSERT_EQ(act(port, "/clusters/" + login + "/merge", {{"into", disk}}).status, 201);
  const json before = http_get(port, "/curation").json_body();
  ASSERT_TRUE(server->stop().clean());
  server = std::make_unique<ServerProcess>(o);
  ASSERT_TRUE(server->start_ready());
  port = server->http_port();
  const json after = http_get(port, "/curation").json_body();
  EXPECT_EQ(after["actions"], before["actions"]);
  EXPECT_EQ(after.value("version", 0), 5);
  EXPECT_EQ(id_of(port, "User dave logged in from 10.0.0.4"), disk);
  EXPECT_EQ(cluster_row(port, timeout).value("name", ""), "db timeouts");
  EXPECT_TRUE(cluster_row(port, disk).value("muted", false));
}

// The curation as one reviewable file: GET /curation from one deployment,
// kept in version control, applied to another at its start
// (--curation-file); applying it again takes nothing; a bad file stops the
// start, naming it.
TEST(Curation, AnExportedLogAppliesToAnotherDeploymentOnce) {
  std::string exported;
  std::string login, timeout;
  {
    ServerProcess first;
    ASSERT_TRUE(first.start_ready());
    const int port = first.http_port();
    login = id_of(port, kLogin);
    timeout = id_of(port, kTimeout);
    const std::string disk = id_of(port, kDisk);
    ASSERT_EQ(act(port, "/clusters/" + login + "/merge", {{"into", timeout}}).status, 201);
    ASSERT_EQ(act(port, "/clusters/" + timeout + "/name", {{"name", "db timeouts"}, {"metric", true}}).status, 201);
    ASSERT_EQ(act(port, "/clusters/" + disk + "/mute", json::object()).status, 201);
    ASSERT_EQ(http_request(port, "POST", "/curation/3/undo", "", "application/json").status, 201);
    exported = http_get(port, "/curation").body;
  }
  TempDir work("logsift-curation-file-");
  const std::string file = work.path() + "/curation.json";
  std::ofstream(file) << exported;
  TempDir data("logsift-curation-other-");
  ServerOptions o;
  o.data_dir = data.path();
  o.args = {"--curation-file", file};
  {
    ServerProcess other(o);
    ASSERT_TRUE(other.start_ready()) << other.log_text();
    const int port = other.http_port();
    const json log = http_get(port, "/curation").json_body();
    EXPECT_EQ(log.value("version", 0), 2) << "the merge and the name; the undone mute is not taken: " << log.dump();
    EXPECT_EQ(id_of(port, "User erin logged in from 10.0.0.5"), timeout) << "ids are the same on every deployment";
    EXPECT_EQ(cluster_row(port, timeout).value("name", ""), "db timeouts");
    EXPECT_TRUE(cluster_row(port, timeout).value("metric", false));
    EXPECT_NE(log["actions"][0].value("by", "").find("curation.json"), std::string::npos) << log.dump();
  }
  {
    ServerProcess again(o);
    ASSERT_TRUE(again.start_ready()) << again.log_text();
    EXPECT_EQ(http_get(again.http_port(), "/curation").json_body().value("version", 0), 2) << "nothing taken twice";
  }
  std::ofstream(file) << "{\"actions\": [{\"kind\": \"merge\", \"cluster_id\": \"zz\"}]}";
  auto bad = run_logsift({"serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1", "--data-dir",
                          data.path(), "--curation-file", file},
                         "", {}, Millis(20000));
  EXPECT_TRUE(bad.exit.exited && bad.exit.code != 0) << bad.describe();
  EXPECT_NE((bad.out + bad.err).find("curation file: action 1"), std::string::npos) << bad.describe();
}

// Suggestions: one statement whose templates differ in one word that took
// many values is proposed as one merge, with its evidence; accepting it is
// one action (undone as one); a rejected suggestion is not proposed again.
TEST(Curation, SuggestionsProposeMergesWithEvidenceAndRememberRejections) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  const std::vector<std::string> tables = {"orders", "customers", "invoices", "payments", "shipments", "refunds"};
  std::set<std::string> ids;
  for (int round = 0; round < 2; ++round)
    for (size_t i = 0; i < tables.size(); ++i)
      ids.insert(id_of(port, "Replication of table " + tables[i] + " to the standby replica finished within the window"));
  ASSERT_GE(ids.size(), 3u) << "the table names must split the statement, or there is nothing to suggest";
  auto suggestions = [&] {
    const HttpResponse r = http_get(port, "/clusters/suggestions");
    EXPECT_EQ(r.status, 200) << r.describe();
    return r.json_body()["suggestions"];
  };
  json list = suggestions();
  json found;
  for (const auto& s : list)
    for (const auto& c : s["clusters"])
      if (ids.count(c.value("cluster_id", ""))) found = s;
  ASSERT_TRUE(found.is_object()) << "no suggestion for the replication statement: " << list.dump();
  EXPECT_GE(found["clusters"].size(), 3u) << found.dump();
  EXPECT_NE(found.value("template", "").find("<*>"), std::string::npos) << found.dump();
  ASSERT_FALSE(found["slots"].empty()) << "the evidence: the values the varying place took";
  EXPECT_GE(found["slots"][0].value("values", 0), 3) << found.dump();

  // Accept: one action merges them all.
  json members = json::array();
  for (const auto& c : found["clusters"])
    if (c["cluster_id"] != found["into"]) members.push_back(c["cluster_id"]);
  const std::string into = found.value("into", "");
  const std::string sid = found.value("id", "");
  HttpResponse wrong = act(port, "/clusters/suggestions/" + sid + "/accept", {{"into", into}, {"members", json::array({into})}});
  EXPECT_EQ(wrong.status, 409) << "another list is another suggestion: " << wrong.describe();
  HttpResponse ok = act(port, "/clusters/suggestions/" + sid + "/accept", {{"into", into}, {"members", members}});
  ASSERT_EQ(ok.status, 201) << ok.describe();
  for (const auto& t : tables)
    EXPECT_EQ(id_of(port, "Replication of table " + t + " to the standby replica finished within the window"), into);
  for (const auto& s : suggestions()) EXPECT_NE(s.value("id", ""), sid) << "an accepted suggestion is not proposed again";

  // Undone as one; then rejected, and not proposed again.
  const int seq = ok.json_body().value("seq", 0);
  ASSERT_EQ(http_request(port, "POST", "/curation/" + std::to_string(seq) + "/undo", "", "application/json").status, 201);
  bool back = false;
  for (const auto& s : suggestions()) back = back || s.value("id", "") == sid;
  EXPECT_TRUE(back) << "undoing the accept proposes it again";
  ASSERT_EQ(http_request(port, "POST", "/clusters/suggestions/" + sid + "/reject", "", "application/json").status, 201);
  EXPECT_EQ(http_request(port, "POST", "/clusters/suggestions/" + sid + "/reject", "", "application/json").status, 409);
  for (const auto& s : suggestions()) EXPECT_NE(s.value("id", ""), sid) << "a rejected suggestion came back";
}

// "This word is a value": the clusters whose templates differ from the
// chosen one only at that word join it, and so do later lines with a word
// never seen there; a rule that would join most of the catalog is refused.
TEST(Curation, AWordMarkedAValueJoinsTheStatementNowAndLater) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  auto line = [](const std::string& table) {
    return "Vacuum of table " + table + " skipped because another vacuum holds its lock";
  };
  const std::string keep = id_of(port, line("orders"));
  std::set<std::string> others;
  for (const std::string t : {"customers", "invoices", "payments"}) others.insert(id_of(port, line(t)));
  others.erase(keep);
  ASSERT_FALSE(others.empty()) << "the table names must split the statement, or there is nothing to join";
  const json c = http_get(port, "/clusters/" + keep).json_body();
  const auto words = c.value("template", "");
  ASSERT_NE(words.find("orders"), std::string::npos) << "the word must be in the template: " << c.dump();
  // "Vacuum of table orders ...": the table is word 3.
  HttpResponse r = act(port, "/clusters/" + keep + "/value", {{"position", 3}});
  ASSERT_EQ(r.status, 201) << r.describe();
  EXPECT_EQ(r.json_body().value("pattern", ""), "Vacuum of table <*> skipped because another vacuum holds its lock");
  for (const auto& o : others) EXPECT_EQ(http_get(port, "/clusters/" + o).json_body().value("cluster_id", ""), keep);
  EXPECT_EQ(id_of(port, line("refunds")), keep) << "a word never seen there joins too";
  EXPECT_EQ(id_of(port, line("payments")), keep);
  EXPECT_EQ(act(port, "/clusters/" + keep + "/value", {{"position", 3}}).status, 409) << "a value already";
  EXPECT_EQ(act(port, "/clusters/" + keep + "/value", {{"position", 99}}).status, 400);
  EXPECT_EQ(act(port, "/clusters/" + keep + "/value", {{"position", "three"}}).status, 400);
}

// "This value is a constant": a cluster split by the values of one word.
// The reply lists the parts its stored examples make; later lines of each
// value get their part's id and a template with the value written in; a
// value never seen gets a part of its own; the split holds over a restart,
// and undoing it sends lines back to the cluster.
TEST(Curation, AValueSplitAsConstantsGivesEachValueItsPart) {
  TempDir data("logsift-curation-split-");
  ServerOptions o;
  o.data_dir = data.path();
  auto server = std::make_unique<ServerProcess>(o);
  ASSERT_TRUE(server->start_ready());
  int port = server->http_port();
  auto line = [](const std::string& host, int secs) {
    return "Connection to " + host + ".internal timed out after " + std::to_string(secs) + " s";
  };
  const std::string whole = id_of(port, line("db-7", 30));
  for (const std::string h : {"db-9", "cache-2", "db-7"}) ASSERT_EQ(id_of(port, line(h, 12)), whole);
  const json c = http_get(port, "/clusters/" + whole).json_body();
  const std::string tmpl = c.value("template", "");
  ASSERT_EQ(tmpl.rfind("Connection to <*> timed out after <*> ", 0), 0u) << c.dump();
  EXPECT_EQ(act(port, "/clusters/" + whole + "/split", {{"position", 0}}).status, 400) << "a constant word";
  EXPECT_EQ(act(port, "/clusters/" + whole + "/split", {{"position", 42}}).status, 400);
  EXPECT_EQ(act(port, "/clusters/ffffffffffffffff/split", {{"position", 2}}).status, 404);
  HttpResponse r = act(port, "/clusters/" + whole + "/split", {{"position", 2}});
  ASSERT_EQ(r.status, 201) << r.describe();
  std::map<std::string, std::string> parts;
  const json reply = r.json_body();
  for (const auto& p : reply["parts"]) parts[p.value("value", "")] = p.value("cluster_id", "");
  ASSERT_EQ(parts.size(), 3u) << r.body;
  ASSERT_TRUE(parts.count("db-7.internal")) << r.body;
  EXPECT_EQ(act(port, "/clusters/" + whole + "/split", {{"position", 6}}).status, 409) << "split already";

  HttpResponse next = post_infer(port, line("db-7", 5));
  ASSERT_EQ(next.status, 200);
  EXPECT_EQ(next.json_body().value("cluster_id", ""), parts["db-7.internal"]);
  std::string part_tmpl = tmpl;
  part_tmpl.replace(part_tmpl.find("<*>"), 3, "db-7.internal");
  EXPECT_EQ(next.json_body().value("template", ""), part_tmpl);
  EXPECT_EQ(next.json_body()["params"][0], "5");
  EXPECT_EQ(id_of(port, line("cache-2", 1)), parts["cache-2.internal"]);
  const std::string fresh = id_of(port, line("queue-4", 3));
  EXPECT_TRUE(is_hex16(fresh)) << fresh;
  EXPECT_NE(fresh, whole);
  for (const auto& [v, id] : parts) EXPECT_NE(fresh, id) << v;
  EXPECT_EQ(cluster_row(port, whole)["split"].value("position", -1), 2);
  const json part = http_get(port, "/clusters/" + parts["db-7.internal"]).json_body();
  EXPECT_EQ(part.value("count", 0), 1) << part.dump();

  ASSERT_TRUE(server->stop().clean());
  server = std::make_unique<ServerProcess>(o);
  ASSERT_TRUE(server->start_ready());
  port = server->http_port();
  EXPECT_EQ(id_of(port, line("db-9", 8)), parts["db-9.internal"]) << "after a restart";
  const int64_t seq = http_get(port, "/curation").json_body().value("version", 0);
  ASSERT_EQ(act(port, "/curation/" + std::to_string(seq) + "/undo", json::object()).status, 201);
  EXPECT_EQ(id_of(port, line("db-9", 8)), whole) << "undone: the cluster is whole again";
}

// A value rule is bounded: one that would join more than a quarter of the
// catalog (here a catalog of one statement with a dozen table names) is
// refused with the reason, and nothing is written.
TEST(Curation, AValueRuleThatWouldJoinMostOfTheCatalogIsRefused) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  std::set<std::string> ids;
  std::string first;
  for (const std::string t : {"orders", "customers", "invoices", "payments", "shipments", "refunds", "products",
                              "vendors", "accounts", "sessions", "tickets", "reviews", "coupons", "carts"}) {
    const std::string id = id_of(port, "Vacuum of table " + t + " skipped because another vacuum holds its lock");
    if (first.empty()) first = id;
    ids.insert(id);
  }
  ASSERT_GE(ids.size(), 12u) << "the table names must split the statement into a dozen clusters";
  HttpResponse wide = act(port, "/clusters/" + first + "/value", {{"position", 3}});
  EXPECT_EQ(wide.status, 409) << wide.describe();
  EXPECT_NE(wide.body.find("more than a quarter"), std::string::npos) << wide.body;
  EXPECT_EQ(http_get(port, "/curation").json_body().value("version", -1), 0);
}
