// Curation end to end on the embedded store (SQLite): a person merges two
// clusters, names one, mutes one and undoes a merge through the API; the
// replies, the list, the detail of a merged id and the alerts follow at
// once, bad actions are refused with their reason and leave nothing
// behind, and everything holds over a restart.
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
