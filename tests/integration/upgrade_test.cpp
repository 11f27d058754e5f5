// Upgrades keep identity: a server started on a store written under another
// cluster-id contract (changed here by configuration: the LSH seed, the LSH
// width, the slot rules) migrates it. Real SQLite files, a real redis-server
// and a real webhook receiver: the same events posted again raise no
// new_cluster alert, old ids answer with what they became, counts carry,
// merges and splits add up, a kill -9 mid-migration loses nothing, an older
// release refuses to write to a store that moved on, and two replicas of
// different contracts on one Redis never mix their ids.
#include <sqlite3.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

const std::vector<std::string> kEvents = {
    "Connection from 10.0.0.1 closed after 35 seconds",
    "User alice logged in from host web-1",
    "Disk /dev/sda1 is 91% full",
    "Failed to open file /var/log/app.log: permission denied",
    "Job 4711 finished in 120 ms",
    "Cache miss for key user:42",
};

// Posts `texts`; returns each line's (cluster id, new).
std::vector<std::pair<std::string, bool>> post_texts(int port, const std::vector<std::string>& texts) {
  json body = {{"texts", texts}};
  HttpResponse r = post_json(port, body);
  EXPECT_EQ(r.status, 200) << r.describe();
  std::vector<std::pair<std::string, bool>> out;
  const json j = r.json_body();
  if (!j.contains("results")) return out;
  for (const auto& item : j["results"]) out.emplace_back(item.value("cluster_id", ""), item.value("new", false));
  return out;
}

std::vector<std::string> times(const std::vector<std::string>& lines, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.insert(out.end(), lines.begin(), lines.end());
  return out;
}

json last_migration(int port) {
  const json info = http_get(port, "/info").json_body();
  if (!info.contains("migrations") || info["migrations"].empty()) return json(nullptr);
  return info["migrations"].back();
}

ServerOptions on(const std::string& dir, std::vector<std::string> args) {
  ServerOptions o;
  o.data_dir = dir;
  o.args = std::move(args);
  return o;
}

// The number of new_cluster alerts the receiver got per cluster id.
std::map<std::string, int> alerts_by_cluster(const WebhookReceiver& rcv) {
  std::map<std::string, int> out;
  for (const auto& q : rcv.requests()) ++out[q.json_body().value("cluster_id", "")];
  return out;
}

// The lines re-posted after an upgrade raise nothing: a marker (a line no
// contract saw before) is posted last and its alert awaited, so every alert
// the re-posted lines could have raised would have arrived before it.
void expect_no_alert_but_the_marker(WebhookReceiver& rcv, int port, size_t before) {
  auto marker = post_texts(port, {"marker event 8d1f0c never seen before the upgrade"});
  ASSERT_EQ(marker.size(), 1u);
  ASSERT_TRUE(marker[0].second);
  EXPECT_TRUE(rcv.wait_for_count(before + 1, Millis(15000)));
  auto got = alerts_by_cluster(rcv);
  EXPECT_EQ(rcv.count(), before + 1) << "an upgrade raised new_cluster alerts for known events";
  EXPECT_EQ(got[marker[0].first], 1);
}

TEST(Upgrade, ANewSeedKeepsClustersCountsAlertsAndOldIds) {
  TempDir data("logsift-upgrade-");
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  std::vector<std::string> old_ids;
  {
    ServerProcess before(on(data.path(), {"--lsh-seed", "4242"}));
    ASSERT_TRUE(before.start_ready());
    HttpResponse sub = http_request(before.http_port(), "POST", "/subscriptions",
                                    json{{"url", rcv.url()}, {"rules", json::array({"new_cluster"})}}.dump(),
                                    "application/json");
    ASSERT_EQ(sub.status, 201) << sub.describe();
    for (const auto& [id, is_new] : post_texts(before.http_port(), times(kEvents, 3))) old_ids.push_back(id);
    ASSERT_TRUE(rcv.wait_for_count(kEvents.size(), Millis(15000)));
    EXPECT_TRUE(before.stop().clean());
  }
  old_ids.resize(kEvents.size());
  ASSERT_EQ(std::set<std::string>(old_ids.begin(), old_ids.end()).size(), kEvents.size());

  ServerProcess after(on(data.path(), {}));  // the default seed: another contract
  ASSERT_TRUE(after.start_ready()) << after.log_text();
  const int port = after.http_port();
  const json m = last_migration(port);
  ASSERT_TRUE(m.is_object()) << http_get(port, "/info").body;
  EXPECT_EQ(m.value("clusters_before", 0), 6);
  EXPECT_EQ(m.value("clusters_after", 0), 6);
  EXPECT_EQ(m.value("mapped", 0), 6);
  EXPECT_EQ(m.value("split", -1), 0);
  EXPECT_EQ(m.value("merged", -1), 0);
  EXPECT_EQ(m.value("examples_reclustered", 0), 18);

  // The same events: known, under new ids, counts carried (3 + 1).
  auto again = post_texts(port, kEvents);
  ASSERT_EQ(again.size(), kEvents.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_FALSE(again[i].second) << kEvents[i] << " is new again after the upgrade";
    EXPECT_NE(again[i].first, old_ids[i]) << "the seed changed: the id must too";
    HttpResponse old = http_get(port, "/clusters/" + old_ids[i]);
    ASSERT_EQ(old.status, 200) << old.describe();
    const json c = old.json_body();
    EXPECT_EQ(c.value("cluster_id", ""), again[i].first);
    EXPECT_EQ(c.value("count", 0), 4);
    EXPECT_EQ(c["migrated_from"].value("cluster_id", ""), old_ids[i]);
  }
  auto counts = cluster_counts(port);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->size(), 6u) << "the old ids must not stay as orphans";
  EXPECT_EQ(total_count(*counts), 24);
  EXPECT_EQ(http_get(port, "/subscriptions").json_body()["subscriptions"].size(), 1u);
  expect_no_alert_but_the_marker(rcv, port, kEvents.size());

  // Restarted under the same contract: nothing more to do.
  EXPECT_TRUE(after.stop().clean());
  ServerProcess again_same(on(data.path(), {}));
  ASSERT_TRUE(again_same.start_ready());
  EXPECT_EQ(http_get(again_same.http_port(), "/info").json_body()["migrations"].size(), 1u);
}

// The curation taken under one contract holds under the next: the log keeps
// the ids as they were, and the migration's id map carries them, so a merge,
// a name and a mute apply to the new ids, and an undo still takes them back.
TEST(Upgrade, CurationIsCarriedToTheNewIds) {
  TempDir data("logsift-upgrade-curation-");
  std::vector<std::string> old_ids;
  {
    ServerProcess before(on(data.path(), {"--lsh-seed", "4242"}));
    ASSERT_TRUE(before.start_ready());
    const int port = before.http_port();
    for (const auto& [id, is_new] : post_texts(port, kEvents)) old_ids.push_back(id);
    ASSERT_EQ(old_ids.size(), kEvents.size());
    auto act = [&](const std::string& target, const json& body) {
      return http_request(port, "POST", target, body.dump(), "application/json").status;
    };
    ASSERT_EQ(act("/clusters/" + old_ids[0] + "/merge", {{"into", old_ids[1]}}), 201);
    ASSERT_EQ(act("/clusters/" + old_ids[2] + "/name", {{"name", "disk full"}}), 201);
    ASSERT_EQ(act("/clusters/" + old_ids[3] + "/mute", json::object()), 201);
    ASSERT_EQ(act("/clusters/" + old_ids[4] + "/merge", {{"into", old_ids[5]}}), 201);
    EXPECT_TRUE(before.stop().clean());
  }
  ServerProcess after(on(data.path(), {}));  // another seed: every id changes
  ASSERT_TRUE(after.start_ready()) << after.log_text();
  const int port = after.http_port();
  ASSERT_TRUE(last_migration(port).is_object());
  const auto now = post_texts(port, kEvents);
  ASSERT_EQ(now.size(), kEvents.size());
  for (size_t i = 0; i < kEvents.size(); ++i) EXPECT_NE(now[i].first, old_ids[i]);
  EXPECT_EQ(now[0].first, now[1].first) << "the merge holds under the new ids";
  EXPECT_EQ(now[4].first, now[5].first);
  const json curation = http_get(port, "/curation").json_body();
  EXPECT_EQ(curation.value("version", 0), 4);
  EXPECT_EQ(curation["named"][now[2].first].value("name", ""), "disk full");
  EXPECT_TRUE(curation["muted"].contains(now[3].first)) << curation.dump();
  // An action taken before the upgrade is still undone by its number.
  ASSERT_EQ(http_request(port, "POST", "/curation/1/undo", "", "application/json").status, 201);
  const auto undone = post_texts(port, {kEvents[0]});
  ASSERT_EQ(undone.size(), 1u);
  EXPECT_NE(undone[0].first, now[1].first);
}

TEST(Upgrade, ANarrowerContractMergesAndAWiderOneSplitsWithCountsAddingUp) {
  TempDir data("logsift-upgrade-");
  {
    ServerProcess wide(on(data.path(), {}));
    ASSERT_TRUE(wide.start_ready());
    post_texts(wide.http_port(), times(kEvents, 2));
    EXPECT_TRUE(wide.stop().clean());
  }
  // One LSH bit: at most two ids for word templates, so six clusters merge.
  {
    ServerProcess narrow(on(data.path(), {"--lsh-bits", "1"}));
    ASSERT_TRUE(narrow.start_ready()) << narrow.log_text();
    const json m = last_migration(narrow.http_port());
    EXPECT_EQ(m.value("clusters_before", 0), 6);
    EXPECT_LT(m.value("clusters_after", 99), 6);
    EXPECT_GE(m.value("merged", 0), 1);
    auto counts = cluster_counts(narrow.http_port());
    ASSERT_TRUE(counts);
    EXPECT_EQ(total_count(*counts), 12) << "merged counts are added";
    EXPECT_EQ(static_cast<int>(counts->size()), m.value("clusters_after", 0));
    EXPECT_TRUE(narrow.stop().clean());
  }
  // Back to 64 bits with the offline command: the merged clusters split by
  // their examples, each getting its share.
  RunResult dry = run_logsift({"migrate", "--data-dir", data.path(), "--dry-run"}, "", {}, Millis(60000));
  ASSERT_TRUE(dry.exit.clean()) << dry.describe();
  const json d = json::parse(dry.out, nullptr, false);
  ASSERT_TRUE(d.is_object()) << dry.out;
  EXPECT_GE(d["report"].value("split", 0), 1) << dry.out;
  EXPECT_EQ(d["report"].value("clusters_after", 0), 6);
  EXPECT_EQ(d.value("result", ""), "dry run: nothing written");
  RunResult real = run_logsift({"migrate", "--data-dir", data.path()}, "", {}, Millis(60000));
  ASSERT_TRUE(real.exit.clean()) << real.describe();
  ServerProcess wide(on(data.path(), {}));
  ASSERT_TRUE(wide.start_ready());
  EXPECT_EQ(http_get(wide.http_port(), "/info").json_body()["migrations"].size(), 2u)
      << "serving after the offline migration needs none";
  auto counts = cluster_counts(wide.http_port());
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->size(), 6u);
  EXPECT_EQ(total_count(*counts), 12);
  for (const auto& [id, is_new] : post_texts(wide.http_port(), kEvents)) EXPECT_FALSE(is_new) << id;
}

// A format bank added: its formats say that the user and the host are
// values, so lines the model kept apart become one cluster (a merge).
TEST(Upgrade, AFormatBankAddedMergesWhatItJoins) {
  TempDir data("logsift-upgrade-");
  // Queue names are words: the model keeps some of them (three clusters today).
  const std::vector<std::string> lines = {"queue orders drained after retries", "queue payments drained after retries",
                                          "queue invoices drained after retries"};
  std::set<std::string> before_ids;
  std::vector<std::string> ids;
  {
    ServerProcess plain(on(data.path(), {}));
    ASSERT_TRUE(plain.start_ready());
    for (const auto& [id, is_new] : post_texts(plain.http_port(), lines)) {
      before_ids.insert(id);
      ids.push_back(id);
    }
    EXPECT_TRUE(plain.stop().clean());
  }
  const std::string bank = data.path() + "/../bank-" + std::to_string(::getpid()) + ".txt";
  {
    std::ofstream f(bank);
    f << "queue %s drained after retries\n";
  }
  ServerProcess banked(on(data.path(), {"--format-bank", bank}));
  ASSERT_TRUE(banked.start_ready()) << banked.log_text();
  std::filesystem::remove(bank);
  const json m = last_migration(banked.http_port());
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m.value("clusters_before", 0), static_cast<int>(before_ids.size()));
  EXPECT_EQ(m.value("clusters_after", 0), 1);
  ASSERT_GT(before_ids.size(), 1u) << "the model alone must keep some queue names apart for this test";
  EXPECT_EQ(m.value("merged", 0), 1);
  auto counts = cluster_counts(banked.http_port());
  ASSERT_TRUE(counts);
  ASSERT_EQ(counts->size(), 1u);
  EXPECT_EQ(total_count(*counts), 3);
  const std::string merged = counts->begin()->first;
  for (const auto& id : ids) {
    HttpResponse r = http_get(banked.http_port(), "/clusters/" + id);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.json_body().value("cluster_id", ""), merged);
  }
  auto again = post_texts(banked.http_port(), {"queue refunds drained after retries"});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].first, merged);
  EXPECT_FALSE(again[0].second);
}

TEST(Upgrade, KilledMidMigrationResumesAndLosesNothing) {
  TempDir data("logsift-upgrade-");
  constexpr int kLines = 10000;
  {
    ServerProcess before(on(data.path(), {"--lsh-seed", "4242"}));
    ASSERT_TRUE(before.start_ready());
    for (int b = 0; b < kLines / 500; ++b) {
      std::vector<std::string> texts;
      for (int i = 0; i < 500; ++i) texts.push_back(distinct_line(99, static_cast<uint64_t>(b) * 500 + i));
      ASSERT_EQ(post_texts(before.http_port(), texts).size(), 500u);
    }
    EXPECT_TRUE(before.stop().clean());
  }
  long long clusters_before = 0;
  {
    ServerProcess first(on(data.path(), {}));
    ASSERT_TRUE(first.start());
    // Migrating: reads answer (old ids), writes wait with a reason.
    bool saw_migrating = false;
    HttpResponse ready = http_get(first.http_port(), "/readyz");
    if (ready.status == 503 && ready.json_body().value("status", "") == "migrating") {
      saw_migrating = true;
      HttpResponse w = post_json(first.http_port(), json{{"texts", json::array({"a line during the migration"})}});
      EXPECT_EQ(w.status, 503) << w.describe();
      EXPECT_EQ(w.headers["retry-after"], "1");
      EXPECT_NE(w.json_body().value("error", "").find("migrating"), std::string::npos) << w.describe();
      HttpResponse list = http_get(first.http_port(), "/clusters?limit=1");
      EXPECT_EQ(list.status, 200);
      clusters_before = list.json_body().value("total", 0LL);
    }
    EXPECT_TRUE(saw_migrating) << "the migration of " << kLines << " clusters was over before it was looked at";
    ::kill(first.pid(), SIGKILL);
    first.stop();
  }
  ServerProcess second(on(data.path(), {}));
  ASSERT_TRUE(second.start());
  EXPECT_TRUE(wait_until([&] { return http_get(second.http_port(), "/readyz").status == 200; }, Millis(120000)))
      << second.log_text();
  const json m = last_migration(second.http_port());
  ASSERT_TRUE(m.is_object());
  EXPECT_EQ(m.value("clusters_before", 0LL), clusters_before) << "the resumed migration started from the whole old catalog";
  auto counts = cluster_counts(second.http_port());
  ASSERT_TRUE(counts);
  EXPECT_EQ(total_count(*counts), kLines) << "every acknowledged line is counted once after the resumed migration";
  EXPECT_EQ(http_get(second.http_port(), "/info").json_body()["migrations"].size(), 1u);
}

TEST(Upgrade, AnOlderReleaseRefusesToWriteAndANewerSchemaStopsStartup) {
  TempDir data("logsift-upgrade-");
  std::string id_b;
  {
    ServerProcess a(on(data.path(), {"--slot-rules", "slots-v3"}));
    ASSERT_TRUE(a.start_ready());
    post_texts(a.http_port(), kEvents);
    EXPECT_TRUE(a.stop().clean());
  }
  {
    ServerProcess b(on(data.path(), {}));  // slots-v4: migrates
    ASSERT_TRUE(b.start_ready());
    id_b = post_texts(b.http_port(), {kEvents[0]}).at(0).first;
    EXPECT_TRUE(b.stop().clean());
  }
  {
    // The release being replaced comes back (a rollback, a stale replica):
    // it must not flip the store back, nor write ids of its contract into it.
    ServerProcess a(on(data.path(), {"--slot-rules", "slots-v3"}));
    ASSERT_TRUE(a.start());
    HttpResponse ready = http_get(a.http_port(), "/readyz");
    EXPECT_EQ(ready.status, 503);
    HttpResponse w = post_json(a.http_port(), json{{"texts", json::array({kEvents[1]})}});
    EXPECT_EQ(w.status, 503) << w.describe();
    EXPECT_NE(w.json_body().value("error", "").find("contract"), std::string::npos) << w.describe();
    EXPECT_EQ(http_get(a.http_port(), "/clusters/" + id_b).status, 200) << "reads go on";
    EXPECT_TRUE(a.stop().clean());
  }
  // Moving back is an explicit, offline step.
  RunResult back = run_logsift({"migrate", "--data-dir", data.path(), "--slot-rules", "slots-v3"}, "", {},
                               Millis(60000));
  ASSERT_TRUE(back.exit.clean()) << back.describe();
  {
    ServerProcess a(on(data.path(), {"--slot-rules", "slots-v3"}));
    ASSERT_TRUE(a.start_ready());
    EXPECT_EQ(post_texts(a.http_port(), {kEvents[1]}).size(), 1u);
    EXPECT_TRUE(a.stop().clean());
  }
  // A catalog file from a newer release (a schema this one does not know).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((data.path() + "/catalog.sqlite").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  ServerProcess newer(on(data.path(), {"--slot-rules", "slots-v3"}));
  EXPECT_FALSE(newer.start());
  EXPECT_FALSE(newer.running());
  EXPECT_NE(newer.log_text().find("newer logsift"), std::string::npos) << newer.log_text();
}

}  // namespace
}  // namespace logsift_it
