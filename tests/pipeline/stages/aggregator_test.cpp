// The aggregator and rule engine, driven by injected timestamps only.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/stages/aggregator.h"

namespace logsift {
namespace {

using json = nlohmann::json;

// 2023-11-14T22:00:00Z: aligned to the hour, so every bucket boundary below
// is a round offset from it.
constexpr int64_t kT0 = 1699999200000;

// The message of the std::invalid_argument that fn() throws ("" if none).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

RuleSpec rule(const char* text) { return RuleSpec::from_json(json::parse(text)); }

AggregatorOptions small_options() {
  AggregatorOptions o;
  o.series_windows_ms = {60000};
  o.max_clusters = 1000;
  return o;
}

// ---------------------------------------------------------------- levels

TEST(LevelParse, NamesAndSyslogNumbers) {
  EXPECT_EQ(parse_severity("WARN"), Severity::kWarn);
  EXPECT_EQ(parse_severity("warning"), Severity::kWarn);
  EXPECT_EQ(parse_severity("W"), Severity::kWarn);
  EXPECT_EQ(parse_severity("ERROR"), Severity::kError);
  EXPECT_EQ(parse_severity("err"), Severity::kError);
  EXPECT_EQ(parse_severity("E"), Severity::kError);
  EXPECT_EQ(parse_severity("FATAL"), Severity::kFatal);
  EXPECT_EQ(parse_severity("CRITICAL"), Severity::kFatal);
  EXPECT_EQ(parse_severity("crit"), Severity::kFatal);
  EXPECT_EQ(parse_severity("panic"), Severity::kFatal);
  EXPECT_EQ(parse_severity("INFO"), Severity::kInfo);
  EXPECT_EQ(parse_severity("I"), Severity::kInfo);
  EXPECT_EQ(parse_severity("notice"), Severity::kInfo);
  EXPECT_EQ(parse_severity("Debug"), Severity::kDebug);
  EXPECT_EQ(parse_severity("TRACE"), Severity::kTrace);
  EXPECT_EQ(parse_severity("  Warning\t"), Severity::kWarn);
  // Syslog: 0 emerg, 1 alert, 2 crit, 3 err, 4 warning, 5 notice, 6 info, 7 debug.
  const Severity syslog[] = {Severity::kFatal, Severity::kFatal, Severity::kFatal, Severity::kError,
                             Severity::kWarn,  Severity::kInfo,  Severity::kInfo,  Severity::kDebug};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(parse_severity(std::to_string(i)), syslog[i]) << i;
  EXPECT_EQ(parse_severity("8"), Severity::kUnknown);
  EXPECT_EQ(parse_severity("42"), Severity::kUnknown);
  EXPECT_EQ(parse_severity(""), Severity::kUnknown);
  EXPECT_EQ(parse_severity("loud"), Severity::kUnknown);
  EXPECT_EQ(parse_severity("a-very-long-level-name-indeed"), Severity::kUnknown);
  EXPECT_LT(Severity::kUnknown, Severity::kTrace);
  EXPECT_LT(Severity::kWarn, Severity::kError);
  EXPECT_EQ(severity_name(Severity::kWarn), "warn");
}

TEST(LevelParse, LineSeverityFromLabels) {
  EXPECT_EQ(line_severity({{"service", "api"}, {"level", "ERROR"}}), Severity::kError);
  EXPECT_EQ(line_severity({{"severity", "3"}}), Severity::kError);
  EXPECT_EQ(line_severity({{"severity", "debug"}, {"level", "warn"}}), Severity::kWarn);  // "level" wins
  EXPECT_EQ(line_severity({{"service", "api"}}), Severity::kUnknown);
}

// ---------------------------------------------------------------- RuleSpec

TEST(RuleSpecJson, ParsesFieldsAndDurations) {
  RuleSpec r = rule(R"({"kind": "threshold", "window": "5m", "threshold": 50, "cooldown": "1h",
                        "min_level": "WARNING", "labels": {"service": "api", "env": "prod"}})");
  EXPECT_EQ(r.kind, "threshold");
  EXPECT_EQ(r.window_ms, 300000);
  EXPECT_EQ(r.threshold, 50u);
  EXPECT_EQ(r.cooldown_ms, 3600000);
  EXPECT_EQ(r.min_level, Severity::kWarn);
  ASSERT_EQ(r.label_filters.size(), 2u);

  EXPECT_EQ(rule(R"({"kind": "spike", "window": "30s"})").window_ms, 30000);
  EXPECT_EQ(rule(R"({"kind": "spike", "window": 90000})").window_ms, 90000);
  EXPECT_EQ(rule(R"({"kind": "spike", "window": "1h"})").window_ms, 3600000);
  EXPECT_EQ(rule(R"({"kind": "spike", "window": "1d", "cooldown": 0})").cooldown_ms, 0);

  RuleSpec s = rule(R"({"kind": "spike", "spike_factor": 4, "min_count": 7, "ewma_alpha": 0.5})");
  EXPECT_EQ(s.spike_factor, 4.0);
  EXPECT_EQ(s.min_count, 7u);
  EXPECT_EQ(s.ewma_alpha, 0.5);
  EXPECT_EQ(s.window_ms, 60000);  // defaults
  EXPECT_EQ(s.cooldown_ms, 300000);
  EXPECT_EQ(rule(R"({"kind": "new_cluster", "min_level": "any"})").min_level, Severity::kUnknown);
}

TEST(RuleSpecJson, ErrorsNameTheField) {
  struct Case {
    const char* json;
    const char* message_start;
  };
  const Case cases[] = {
      {R"({})", "rules[].kind: missing"},
      {R"({"kind": 3})", "rules[].kind: expected a string"},
      {R"({"kind": "bogus"})", "rules[].kind: expected \"new_cluster\""},
      {R"({"kind": "threshold", "window": "5x"})", "rules[].window: expected milliseconds or a duration"},
      {R"({"kind": "threshold", "window": "m"})", "rules[].window: expected"},
      {R"({"kind": "threshold", "window": true})", "rules[].window: expected"},
      {R"({"kind": "threshold", "window": "500ms"})", "rules[].window: must be in [1s, 7d]"},
      {R"({"kind": "threshold", "window": "30d"})", "rules[].window: too long"},
      {R"({"kind": "threshold", "window": "999999999999d"})", "rules[].window: too long"},
      {R"({"kind": "threshold", "window": "8d"})", "rules[].window: too long (at most 7d)"},
      {R"({"kind": "threshold", "window": 604800001})", "rules[].window: too long (at most 7d)"},
      {R"({"kind": "threshold", "cooldown": -5})", "rules[].cooldown: must be in [0, 7d]"},
      {R"({"kind": "threshold", "threshold": 0})", "rules[].threshold: must be at least 1"},
      {R"({"kind": "threshold", "threshold": -3})", "rules[].threshold: expected a positive integer"},
      {R"({"kind": "threshold", "threshold": 2.5})", "rules[].threshold: expected a positive integer"},
      {R"({"kind": "spike", "spike_factor": "x"})", "rules[].spike_factor: expected a number"},
      {R"({"kind": "spike", "spike_factor": 0.5})", "rules[].spike_factor: must be a number >= 1"},
      {R"({"kind": "spike", "ewma_alpha": 1.5})", "rules[].ewma_alpha: must be in (0, 1]"},
      {R"({"kind": "spike", "ewma_alpha": 0})", "rules[].ewma_alpha: must be in (0, 1]"},
      {R"({"kind": "spike", "min_count": 0})", "rules[].min_count: must be at least 1"},
      {R"({"kind": "spike", "threshold": 5})", "rules[].threshold: not used by kind \"spike\""},
      {R"({"kind": "new_cluster", "window": "1m"})", "rules[].window: not used by kind \"new_cluster\""},
      {R"({"kind": "new_cluster", "cooldown": "1m"})", "rules[].cooldown: not used"},
      {R"({"kind": "threshold", "treshold": 5})", "rules[].treshold: unknown field"},
      {R"({"kind": "threshold", "min_level": "loud"})", "rules[].min_level: unknown level \"loud\""},
      {R"({"kind": "threshold", "min_level": 3})", "rules[].min_level: expected a level name"},
      {R"({"kind": "threshold", "labels": ["service"]})", "rules[].labels: expected an object"},
      {R"({"kind": "threshold", "labels": {"service": 3}})", "rules[].labels.service: expected a string"},
      {R"({"kind": "threshold", "labels": {"": "x"}})", "rules[].labels: empty label name"},
      {R"([1, 2])", "rules[]: expected an object"},
  };
  for (const auto& c : cases) {
    std::string msg = error_of([&] { RuleSpec::from_json(json::parse(c.json)); });
    EXPECT_EQ(msg.rfind(c.message_start, 0), 0u) << c.json << " -> \"" << msg << "\"";
  }
  // The caller can say which rule it was.
  EXPECT_EQ(error_of([] { RuleSpec::from_json(json::parse(R"({"kind": "x"})"), "alerts.rules[2]"); })
                .rfind("alerts.rules[2].kind: ", 0),
            0u);
}

TEST(RuleSpecId, StableAndDistinct) {
  RuleSpec a = rule(R"({"kind": "threshold", "window": "5m", "threshold": 50,
                        "labels": {"service": "api", "env": "prod"}})");
  const std::string id = a.id();
  EXPECT_EQ(id.size(), 16u);
  auto hex_digit = [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); };
  EXPECT_TRUE(std::all_of(id.begin(), id.end(), hex_digit)) << id;
  EXPECT_EQ(id, a.id());
  EXPECT_EQ(a.to_json().dump(),
            R"({"cooldown":300000,"kind":"threshold","labels":{"env":"prod","service":"api"},)"
            R"("threshold":50,"window":300000})");

  // Spelling does not matter: ms vs "5m", label order, explicit defaults.
  RuleSpec b = rule(R"({"kind": "threshold", "window": 300000, "threshold": 50, "cooldown": "5m",
                        "labels": {"env": "prod", "service": "api"}})");
  EXPECT_EQ(b.id(), id);
  RuleSpec c = a;
  std::swap(c.label_filters[0], c.label_filters[1]);
  EXPECT_EQ(c.id(), id);
  EXPECT_EQ(RuleSpec::from_json(a.to_json()).id(), id);  // round trip

  // Any field that matters changes it.
  std::vector<std::string> ids = {id};
  for (const char* text : {
           R"({"kind": "threshold", "window": "5m", "threshold": 51, "labels": {"service": "api", "env": "prod"}})",
           R"({"kind": "threshold", "window": "6m", "threshold": 50, "labels": {"service": "api", "env": "prod"}})",
           R"({"kind": "threshold", "window": "5m", "threshold": 50, "labels": {"service": "api"}})",
           R"({"kind": "threshold", "window": "5m", "threshold": 50, "labels": {"service": "api", "env": "dev"}})",
           R"({"kind": "threshold", "window": "5m", "threshold": 50, "cooldown": "1m",
               "labels": {"service": "api", "env": "prod"}})",
           R"({"kind": "threshold", "window": "5m", "threshold": 50, "min_level": "error",
               "labels": {"service": "api", "env": "prod"}})",
           R"({"kind": "spike"})",
           R"({"kind": "spike", "spike_factor": 3.5})",
           R"({"kind": "spike", "ewma_alpha": 0.2})",
           R"({"kind": "spike", "min_count": 21})",
           R"({"kind": "new_cluster"})",
           R"({"kind": "new_cluster", "min_level": "warn"})",
       }) {
    std::string other = rule(text).id();
    for (const auto& seen : ids) EXPECT_NE(other, seen) << text;
    ids.push_back(other);
  }
}

TEST(RuleSpecId, PinnedAcrossProcesses) {
  // A literal, so a change in hashing or canonical form fails here rather
  // than silently re-keying every stored alert.
  RuleSpec spec;
  spec.kind = "new_cluster";
  EXPECT_EQ(spec.to_json().dump(), R"({"kind":"new_cluster"})");
  EXPECT_EQ(rule(R"({"kind": "new_cluster"})").id(), spec.id());
  EXPECT_EQ(spec.id(), "2cdc78e51a620e81");
}

// ---------------------------------------------------------------- options

TEST(AggregatorOptionsTest, ValidateNamesTheField) {
  AggregatorOptions o;
  o.buckets_per_window = 0;
  EXPECT_EQ(error_of([&] { Aggregator a(o); }).rfind("aggregator.buckets_per_window: ", 0), 0u);
  o = AggregatorOptions{};
  o.series_windows_ms = {60000, 60000};
  EXPECT_EQ(error_of([&] { Aggregator a(o); }).rfind("aggregator.series_windows_ms: ", 0), 0u);
  o = AggregatorOptions{};
  o.max_clusters = 0;
  EXPECT_EQ(error_of([&] { Aggregator a(o); }).rfind("aggregator.max_clusters: ", 0), 0u);
  EXPECT_EQ(error_of([] { Aggregator a(AggregatorOptions{}); }), "");
}

// ---------------------------------------------------------------- series

TEST(AggregatorSeries, CountsAndBucketRollover) {
  AggregatorOptions o;
  o.series_windows_ms = {60000, 300000};
  Aggregator agg(o);
  std::vector<AlertEvent> out;
  for (int i = 0; i < 3; ++i) agg.observe(7, true, "t", {}, "x", kT0 + 500, &out);
  for (int i = 0; i < 2; ++i) agg.observe(7, false, "t", {}, "x", kT0 + 1500, &out);
  agg.observe(7, false, "t", {}, "x", kT0 + 59999, &out);
  EXPECT_TRUE(out.empty());

  json s = *agg.series(7, 60000, kT0 + 59999);
  EXPECT_EQ(s["cluster_id"], "0000000000000007");
  EXPECT_EQ(s["window_seconds"], 60);
  EXPECT_EQ(s["bucket_seconds"], 1);
  ASSERT_EQ(s["points"].size(), 60u);
  EXPECT_EQ(s["points"][0]["t"], "2023-11-14T22:00:00.000Z");
  EXPECT_EQ(s["points"][0]["count"], 3);
  EXPECT_EQ(s["points"][1]["t"], "2023-11-14T22:00:01.000Z");
  EXPECT_EQ(s["points"][1]["count"], 2);
  EXPECT_EQ(s["points"][59]["count"], 1);
  EXPECT_EQ(s["total"], 6);

  // One second later the first bucket has left the window.
  s = *agg.series(7, 60000, kT0 + 60000);
  EXPECT_EQ(s["points"][0]["t"], "2023-11-14T22:00:01.000Z");
  EXPECT_EQ(s["points"][0]["count"], 2);
  EXPECT_EQ(s["points"][59]["count"], 0);
  EXPECT_EQ(s["total"], 3);

  // A new line rolls the ring itself: the recycled slot starts from zero.
  agg.observe(7, false, "t", {}, "x", kT0 + 61000, &out);
  s = *agg.series(7, 60000, kT0 + 61000);
  EXPECT_EQ(s["points"][57]["count"], 1);  // kT0 + 59s
  EXPECT_EQ(s["points"][58]["count"], 0);  // kT0 + 60s
  EXPECT_EQ(s["points"][59]["count"], 1);  // kT0 + 61s, in the slot kT0 + 1s had
  EXPECT_EQ(s["total"], 2);
  // Far in the future everything is gone, and the ring is still readable.
  EXPECT_EQ((*agg.series(7, 60000, kT0 + 3600000))["total"], 0);

  // The 5-minute window has 5-second buckets and still holds all 7 lines.
  s = *agg.series(7, 300000, kT0 + 61000);
  EXPECT_EQ(s["bucket_seconds"], 5);
  EXPECT_EQ(s["points"].size(), 60u);
  EXPECT_EQ(s["points"][59]["t"], "2023-11-14T22:01:00.000Z");
  EXPECT_EQ(s["points"][59]["count"], 1);
  EXPECT_EQ(s["total"], 7);

  EXPECT_FALSE(agg.series(8, 60000, kT0).has_value());
  EXPECT_NE(error_of([&] { agg.series(7, 120000, kT0); }), "");
  EXPECT_EQ(agg.clusters(), 1u);
}

TEST(AggregatorSeries, CompactFormReadsLikeTheRings) {
  // A cluster whose lines all fall in one bucket keeps a count instead of
  // rings; every read (series, window_counts) and the switch to rings on the
  // first line of another bucket give what rings from the start would.
  AggregatorOptions o;
  o.series_windows_ms = {60000, 300000};
  Aggregator agg(o);
  std::vector<AlertEvent> out;
  for (int i = 0; i < 4; ++i) agg.observe(9, true, "t", {}, "x", kT0 + 200 + i, &out);
  json s = *agg.series(9, 60000, kT0 + 30000);
  EXPECT_EQ(s["points"][29]["count"], 4);  // kT0's bucket, 30 s before now
  EXPECT_EQ(s["total"], 4);
  EXPECT_EQ((*agg.series(9, 300000, kT0 + 30000))["points"][53]["count"], 4);
  EXPECT_EQ(agg.window_counts(60000, kT0 + 30000), (std::vector<std::pair<uint64_t, uint64_t>>{{9, 4}}));
  EXPECT_TRUE(agg.window_counts(60000, kT0 + 60000).empty()) << "the bucket left the 1-minute window";
  EXPECT_EQ(agg.window_counts(300000, kT0 + 60000), (std::vector<std::pair<uint64_t, uint64_t>>{{9, 4}}));
  // A line 2 s later: rings take over with the 4 lines in their bucket.
  agg.observe(9, false, "t", {}, "x", kT0 + 2000, &out);
  s = *agg.series(9, 60000, kT0 + 2000);
  EXPECT_EQ(s["points"][57]["count"], 4);
  EXPECT_EQ(s["points"][58]["count"], 0);
  EXPECT_EQ(s["points"][59]["count"], 1);
  EXPECT_EQ(s["total"], 5);
  s = *agg.series(9, 300000, kT0 + 2000);  // both lines in one 5-second bucket
  EXPECT_EQ(s["points"][59]["count"], 5);
  EXPECT_EQ(s["total"], 5);
  // A late line (an earlier second) after the switch lands in its own bucket.
  agg.observe(9, false, "t", {}, "x", kT0 + 1000, &out);
  s = *agg.series(9, 60000, kT0 + 2000);
  EXPECT_EQ(s["points"][58]["count"], 1);
  EXPECT_EQ(s["total"], 6);
  // A late line while compact switches too.
  agg.observe(10, true, "t", {}, "x", kT0 + 5000, &out);
  agg.observe(10, false, "t", {}, "x", kT0 + 4000, &out);
  s = *agg.series(10, 60000, kT0 + 5000);
  EXPECT_EQ(s["points"][58]["count"], 1);
  EXPECT_EQ(s["points"][59]["count"], 1);
  EXPECT_EQ(s["total"], 2);
}

// ---------------------------------------------------------------- new_cluster

TEST(AggregatorNewCluster, FiresOnceForANewCluster) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "new_cluster"})")});
  std::vector<AlertEvent> out;
  agg.observe(1, true, "disk <*> full", {{"host", "h1"}}, "disk sda full", kT0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, "new_cluster");
  EXPECT_EQ(out[0].state, "firing");
  EXPECT_EQ(out[0].rule_id, agg.rules()[0].id());
  EXPECT_EQ(out[0].cluster_id, 1u);
  EXPECT_EQ(out[0].count, 1u);
  EXPECT_EQ(out[0].at_ms, kT0);
  EXPECT_EQ(out[0].template_text, "disk <*> full");
  EXPECT_EQ(out[0].labels, (Labels{{"host", "h1"}}));
  EXPECT_EQ(out[0].examples, std::vector<std::string>{"disk sda full"});
  out.clear();
  for (int i = 0; i < 100; ++i) agg.observe(1, false, "disk <*> full", {}, "x", kT0 + i, &out);
  agg.tick(kT0 + 10000000, &out);
  EXPECT_TRUE(out.empty());  // once, and never resolved
  // A cluster the catalog already knew (restart, eviction) is not new.
  agg.observe(2, false, "t2", {}, "x", kT0, &out);
  EXPECT_TRUE(out.empty());
}

TEST(AggregatorNewCluster, MinLevelWaitsForTheFirstPassingLine) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "new_cluster", "min_level": "warn"})")});
  std::vector<AlertEvent> out;
  agg.observe(1, true, "t", {{"level", "INFO"}}, "first", kT0, &out);
  agg.observe(1, false, "t", {{"level", "debug"}}, "second", kT0 + 1, &out);
  agg.observe(1, false, "t", {}, "no level", kT0 + 2, &out);
  EXPECT_TRUE(out.empty());
  agg.observe(1, false, "t", {{"level", "ERROR"}}, "third", kT0 + 3, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].labels, (Labels{{"level", "ERROR"}}));
  EXPECT_EQ(out[0].examples.back(), "third");
  out.clear();
  agg.observe(1, false, "t", {{"level", "FATAL"}}, "fourth", kT0 + 4, &out);
  EXPECT_TRUE(out.empty());

  // A new cluster whose first line already passes fires on it.
  agg.observe(2, true, "t2", {{"level", "W"}}, "x", kT0 + 5, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cluster_id, 2u);
}

TEST(AggregatorNewCluster, OnlyForClustersBornAfterTheRule) {
  Aggregator agg(small_options());
  std::vector<AlertEvent> out;
  agg.observe(1, true, "t", {{"level", "info"}}, "x", kT0, &out);  // no rules yet
  agg.set_rules({rule(R"({"kind": "new_cluster", "min_level": "warn"})")});
  agg.observe(1, false, "t", {{"level", "error"}}, "x", kT0 + 1, &out);
  EXPECT_TRUE(out.empty());  // it was new before the rule existed
  agg.observe(2, true, "t", {{"level", "info"}}, "x", kT0 + 2, &out);
  // Reloading the same rules keeps its pending state.
  agg.set_rules({rule(R"({"kind": "new_cluster", "min_level": "warn"})")});
  agg.observe(2, false, "t", {{"level", "error"}}, "x", kT0 + 3, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cluster_id, 2u);
}

// ---------------------------------------------------------------- threshold

TEST(AggregatorThreshold, BurstFiresOnceResolvesAndFiresAgainAfterCooldown) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "threshold", "window": "1m", "threshold": 100, "cooldown": "5m"})")});
  const Labels labels = {{"service", "api"}};
  std::vector<AlertEvent> out;
  // 100k lines in the first second.
  for (int i = 0; i < 100000; ++i) agg.observe(9, true, "boom", labels, "boom", kT0 + i / 100, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "firing");
  EXPECT_EQ(out[0].kind, "threshold");
  EXPECT_EQ(out[0].count, 100u);
  EXPECT_EQ(out[0].window_ms, 60000);
  EXPECT_EQ(out[0].at_ms, kT0 + 99 / 100);
  EXPECT_EQ(out[0].labels, labels);
  EXPECT_EQ(out[0].first_seen_ms, kT0);
  out.clear();

  agg.tick(kT0 + 30000, &out);
  agg.tick(kT0 + 59999, &out);  // the burst's bucket is still in the window
  EXPECT_TRUE(out.empty());
  agg.tick(kT0 + 60000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "resolved");
  EXPECT_EQ(out[0].count, 0u);
  EXPECT_EQ(out[0].at_ms, kT0 + 60000);
  EXPECT_EQ(out[0].labels, labels);  // of the line that fired
  EXPECT_EQ(out[0].last_seen_ms, kT0 + 999);
  out.clear();
  agg.tick(kT0 + 61000, &out);
  EXPECT_TRUE(out.empty());  // resolved once

  // A second incident inside the cooldown (5 min from the firing) is silent,
  // both firing and resolving.
  for (int i = 0; i < 1000; ++i) agg.observe(9, false, "boom", labels, "boom", kT0 + 120000, &out);
  agg.tick(kT0 + 200000, &out);
  EXPECT_TRUE(out.empty());

  // After the cooldown the same cluster fires again.
  for (int i = 0; i < 150; ++i) agg.observe(9, false, "boom", labels, "boom", kT0 + 400000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "firing");
  EXPECT_EQ(out[0].count, 100u);
  EXPECT_EQ(out[0].at_ms, kT0 + 400000);
}

TEST(AggregatorThreshold, ResolvedOnObserveWhenTheWindowDrained) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "threshold", "window": "10s", "threshold": 3, "cooldown": 0})")});
  std::vector<AlertEvent> out;
  for (int i = 0; i < 3; ++i) agg.observe(1, false, "t", {}, "x", kT0, &out);
  ASSERT_EQ(out.size(), 1u);
  out.clear();
  agg.observe(1, false, "t", {}, "x", kT0 + 10000, &out);  // no tick in between
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "resolved");
  EXPECT_EQ(out[0].count, 1u);
  out.clear();
  agg.tick(kT0 + 10001, &out);  // the stale firing entry is dropped quietly
  EXPECT_TRUE(out.empty());
  // Cooldown 0: the next incident fires right away.
  for (int i = 0; i < 2; ++i) agg.observe(1, false, "t", {}, "x", kT0 + 10001, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "firing");
}

TEST(AggregatorThreshold, LabelAndLevelFilters) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "threshold", "threshold": 3, "labels": {"service": "api", "env": "prod"}})"),
                 rule(R"({"kind": "threshold", "threshold": 3, "min_level": "error"})")});
  const std::string api_rule = agg.rules()[0].id(), error_rule = agg.rules()[1].id();
  std::vector<AlertEvent> out;
  // Wrong value, missing label, a matching key with the wrong value: none count.
  agg.observe(1, false, "t", {{"service", "db"}, {"env", "prod"}}, "x", kT0, &out);
  agg.observe(1, false, "t", {{"service", "api"}}, "x", kT0, &out);
  agg.observe(1, false, "t", {{"env", "dev"}, {"service", "api"}}, "x", kT0, &out);
  // WARN and no level do not pass min_level error.
  agg.observe(1, false, "t", {{"level", "warn"}}, "x", kT0, &out);
  agg.observe(1, false, "t", {}, "x", kT0, &out);
  EXPECT_TRUE(out.empty());
  // Label order and extra labels do not matter.
  for (int i = 0; i < 3; ++i)
    agg.observe(1, false, "t", {{"host", "h"}, {"env", "prod"}, {"level", "info"}, {"service", "api"}}, "x", kT0 + 1,
                &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, api_rule);
  out.clear();
  agg.observe(1, false, "t", {{"level", "ERROR"}}, "x", kT0 + 2, &out);
  agg.observe(1, false, "t", {{"severity", "2"}}, "x", kT0 + 2, &out);  // crit
  agg.observe(1, false, "t", {{"level", "E"}}, "x", kT0 + 2, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, error_rule);
}

// ---------------------------------------------------------------- spike

// Lines at the start of window w (window = 1 min from kT0).
void lines_in_window(Aggregator& agg, uint64_t cluster, int w, int n, std::vector<AlertEvent>* out,
                     int64_t offset_ms = 0) {
  for (int j = 0; j < n; ++j) agg.observe(cluster, false, "t", {}, "x", kT0 + w * 60000 + offset_ms + j * 10, out);
}

TEST(AggregatorSpike, FiresAgainstALearnedBaseline) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "spike", "window": "1m", "spike_factor": 3, "min_count": 20,
                          "ewma_alpha": 0.5, "cooldown": "10m"})")});
  std::vector<AlertEvent> out;
  // The cluster starts mid-window 0 with 50 lines: that partial window is not
  // learned (the baseline would otherwise not be exactly 10 below).
  lines_in_window(agg, 1, 0, 50, &out, 30000);
  for (int w = 1; w <= 5; ++w) lines_in_window(agg, 1, w, 10, &out);
  EXPECT_TRUE(out.empty());
  // Window 6: 29 lines is under 3 x 10, the 30th fires.
  lines_in_window(agg, 1, 6, 29, &out);
  EXPECT_TRUE(out.empty());
  lines_in_window(agg, 1, 6, 11, &out, 500);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, "spike");
  EXPECT_EQ(out[0].state, "firing");
  EXPECT_EQ(out[0].count, 30u);
  EXPECT_EQ(out[0].baseline, 10.0);
  EXPECT_EQ(out[0].window_ms, 60000);
  out.clear();
  // Resolves once the burst has left the sliding window; window 6 (40
  // lines) has been learned by then: 0.5 * 40 + 0.5 * 10.
  agg.tick(kT0 + 7 * 60000 - 1, &out);
  EXPECT_TRUE(out.empty());
  agg.tick(kT0 + 7 * 60000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "resolved");
  EXPECT_EQ(out[0].count, 0u);
  EXPECT_EQ(out[0].baseline, 25.0);
}

TEST(AggregatorSpike, NotOnANewClusterAndNotUnderMinCount) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "spike", "window": "1m", "spike_factor": 3, "min_count": 20})")});
  std::vector<AlertEvent> out;
  // A brand-new chatty cluster: no baseline in its first (partial) window
  // nor in its first full one, then a baseline of 1000 it does not exceed 3x.
  lines_in_window(agg, 1, 0, 1000, &out, 1000);
  lines_in_window(agg, 1, 1, 1000, &out);
  lines_in_window(agg, 1, 2, 1000, &out);
  EXPECT_TRUE(out.empty());

  // A quiet cluster (baseline ~0) going to 19 lines: under min_count.
  agg.observe(2, false, "t", {}, "x", kT0, &out);
  lines_in_window(agg, 2, 3, 19, &out);
  EXPECT_TRUE(out.empty());
  // At 20 it fires: max(baseline, 1) keeps a zero baseline from firing on 1 line.
  lines_in_window(agg, 2, 3, 1, &out, 500);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cluster_id, 2u);
  EXPECT_LT(out[0].baseline, 1.0);
}

// ---------------------------------------------------------------- cooldown

TEST(AggregatorCooldown, PerRuleAndCluster) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "threshold", "window": "10s", "threshold": 5, "cooldown": "1m"})"),
                 rule(R"({"kind": "threshold", "window": "10s", "threshold": 5, "cooldown": "2m"})")});
  std::vector<AlertEvent> out;
  auto burst = [&](uint64_t cluster, int64_t at) {
    for (int i = 0; i < 5; ++i) agg.observe(cluster, false, "t", {}, "x", at, &out);
  };
  burst(1, kT0);
  EXPECT_EQ(out.size(), 2u);  // both rules
  burst(2, kT0 + 1000);
  EXPECT_EQ(out.size(), 4u);  // another cluster has its own cooldown
  out.clear();
  agg.tick(kT0 + 20000, &out);
  EXPECT_EQ(out.size(), 4u);  // all resolved
  out.clear();

  burst(1, kT0 + 30000);  // inside both cooldowns: flapping stays quiet
  agg.tick(kT0 + 50000, &out);
  EXPECT_TRUE(out.empty());
  burst(1, kT0 + 60000);  // rule 0's cooldown has passed, rule 1's has not
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, agg.rules()[0].id());
  out.clear();
  agg.tick(kT0 + 80000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].state, "resolved");
  out.clear();
  burst(1, kT0 + 119000);  // both still cooling down
  EXPECT_TRUE(out.empty());
  agg.tick(kT0 + 119999, &out);
  burst(1, kT0 + 120000);  // rule 1's 2 minutes and rule 0's second minute are up
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].rule_id, agg.rules()[0].id());
  EXPECT_EQ(out[1].rule_id, agg.rules()[1].id());
}

// ---------------------------------------------------------------- LRU

TEST(AggregatorLru, EvictsLeastRecentlySeenWithinTheBound) {
  AggregatorOptions o = small_options();
  o.max_clusters = 3;
  Aggregator agg(o);
  std::vector<AlertEvent> out;
  agg.observe(1, true, "t", {}, "x", kT0, &out);
  agg.observe(2, true, "t", {}, "x", kT0 + 1, &out);
  agg.observe(3, true, "t", {}, "x", kT0 + 2, &out);
  agg.observe(1, false, "t", {}, "x", kT0 + 3, &out);  // 2 is now the oldest
  agg.observe(4, true, "t", {}, "x", kT0 + 4, &out);
  EXPECT_EQ(agg.clusters(), 3u);
  EXPECT_EQ(agg.evictions(), 1u);
  EXPECT_FALSE(agg.series(2, 60000, kT0 + 4).has_value());
  EXPECT_EQ((*agg.series(1, 60000, kT0 + 4))["total"], 2);  // survived with its counts
  for (uint64_t id = 100; id < 10100; ++id) agg.observe(id, true, "t", {}, "x", kT0 + 5, &out);
  EXPECT_EQ(agg.clusters(), 3u);
  EXPECT_EQ(agg.evictions(), 10001u);
  // An evicted cluster comes back as a fresh one.
  agg.observe(1, false, "t", {}, "x", kT0 + 6, &out);
  EXPECT_EQ((*agg.series(1, 60000, kT0 + 6))["total"], 1);
}

// The byte estimate behind logsift_aggregator_bytes: grows with clusters,
// their examples and rule states, and stays bounded once max_clusters is hit.
TEST(AggregatorLru, ByteEstimateTracksClustersAndStaysBounded) {
  AggregatorOptions o;  // default windows: 3 x 60 buckets
  o.max_clusters = 100;
  o.max_examples = 3;
  Aggregator agg(o);
  EXPECT_EQ(agg.bytes(), 0u);
  std::vector<AlertEvent> out;
  const std::string line(200, 'x');  // examples on the heap, not in the SSO buffer
  agg.observe(1, true, "template one", {}, line, kT0, &out);
  const size_t one = agg.bytes();
  // One 200-byte example; no series rings yet (one bucket: the compact form).
  EXPECT_GE(one, 200u);
  EXPECT_LT(one, 180 * 4 + 200u);
  agg.observe(1, false, "template one", {}, line, kT0 + 1, &out);
  agg.observe(1, false, "template one", {}, line, kT0 + 2, &out);
  EXPECT_GE(agg.bytes(), one + 2 * 200) << "two more examples held";
  const size_t full_one = agg.bytes();
  agg.observe(1, false, "template one", {}, line, kT0 + 3, &out);
  EXPECT_EQ(agg.bytes(), full_one) << "the example ring is full: a 4th line reuses a slot";
  // A line in the next second needs the rings (3 windows x 60 buckets x 4 bytes).
  agg.observe(1, false, "template one", {}, line, kT0 + 1000, &out);
  EXPECT_GE(agg.bytes(), full_one + 180 * 4);
  const size_t with_rings = agg.bytes() - (full_one - one);  // one line's worth of examples

  for (uint64_t id = 2; id <= 100; ++id) agg.observe(id, true, "t", {}, line, kT0 + 4, &out);
  const size_t at_bound = agg.bytes();
  EXPECT_GE(at_bound, with_rings + 99 * one - 100 * 64);
  EXPECT_LT(at_bound, 100 * with_rings) << "99 clusters seen in one second hold no rings";
  // A threshold rule gives every cluster that matches a rule state.
  agg.set_rules({rule(R"({"kind": "threshold", "threshold": 1000000, "window": "1m"})")});
  for (uint64_t id = 1; id <= 100; ++id) agg.observe(id, false, "t", {}, line, kT0 + 5, &out);
  const size_t with_rules = agg.bytes();
  EXPECT_GT(with_rules, at_bound);
  // 10,000 more clusters through a full aggregator: evictions, bytes flat.
  for (uint64_t id = 1000; id < 11000; ++id) agg.observe(id, true, "t", {}, line, kT0 + 6, &out);
  EXPECT_EQ(agg.clusters(), 100u);
  EXPECT_LE(agg.bytes(), with_rules + 100 * 64);
  // Dropping the rules drops their states.
  agg.set_rules({});
  EXPECT_LT(agg.bytes(), with_rules);
}

TEST(AggregatorLru, EvictingAFiringClusterResolvesIt) {
  AggregatorOptions o = small_options();
  o.max_clusters = 1;
  Aggregator agg(o);
  agg.set_rules({rule(R"({"kind": "threshold", "threshold": 1})")});
  std::vector<AlertEvent> out;
  agg.observe(1, false, "t", {}, "x", kT0, &out);
  agg.observe(2, false, "t", {}, "x", kT0 + 1, &out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].cluster_id, 1u);
  EXPECT_EQ(out[1].cluster_id, 1u);
  EXPECT_EQ(out[1].state, "resolved");
  EXPECT_EQ(out[2].cluster_id, 2u);
  EXPECT_EQ(out[2].state, "firing");
  out.clear();
  agg.tick(kT0 + 3600000, &out);
  ASSERT_EQ(out.size(), 1u);  // only cluster 2's
  EXPECT_EQ(out[0].cluster_id, 2u);
}

// ---------------------------------------------------------------- set_rules

TEST(AggregatorRules, SetRulesKeepsStateOfSurvivingRules) {
  Aggregator agg(small_options());
  const RuleSpec t = rule(R"({"kind": "threshold", "window": "1m", "threshold": 10})");
  const RuleSpec t2 = rule(R"({"kind": "threshold", "window": "2m", "threshold": 10})");
  agg.set_rules({t, t2});
  std::vector<AlertEvent> out;
  for (int i = 0; i < 6; ++i) agg.observe(1, false, "t", {}, "x", kT0, &out);
  // Reorder and add a rule: t keeps its 6 lines, t2 is gone and restarts when re-added.
  agg.set_rules({rule(R"({"kind": "new_cluster"})"), t, t, t2});
  ASSERT_EQ(agg.rules().size(), 3u);  // duplicate kept once
  agg.set_rules({rule(R"({"kind": "new_cluster"})"), t});
  agg.set_rules({t, t2});
  for (int i = 0; i < 4; ++i) agg.observe(1, false, "t", {}, "x", kT0 + 1, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, t.id());
  EXPECT_EQ(out[0].count, 10u);
  out.clear();
  // A firing alert survives a reload and still resolves.
  agg.set_rules({t2, t});
  agg.tick(kT0 + 60000, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, t.id());
  EXPECT_EQ(out[0].state, "resolved");
}

TEST(AggregatorRules, InvalidRuleSetChangesNothing) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "new_cluster"})")});
  RuleSpec bad;
  bad.kind = "threshold";
  bad.threshold = 0;
  EXPECT_EQ(error_of([&] { agg.set_rules({rule(R"({"kind": "spike"})"), bad}); }),
            "rules[1].threshold: must be at least 1");
  ASSERT_EQ(agg.rules().size(), 1u);
  EXPECT_EQ(agg.rules()[0].kind, "new_cluster");
}

// ---------------------------------------------------------------- examples, determinism

TEST(AggregatorExamples, RecentLinesTriggeringLastAndUtf8Safe) {
  AggregatorOptions o = small_options();
  o.max_example_bytes = 16;
  Aggregator agg(o);
  agg.set_rules({rule(R"({"kind": "threshold", "threshold": 4})")});
  std::vector<AlertEvent> out;
  for (const char* line : {"a", "b", "c", "d"}) agg.observe(1, false, "t", {}, line, kT0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].examples, (std::vector<std::string>{"b", "c", "d"}));

  agg.set_rules({rule(R"({"kind": "new_cluster"})")});
  out.clear();
  agg.observe(2, true, "t", {}, "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", kT0, &out);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].examples.size(), 1u);
  EXPECT_EQ(out[0].examples[0].size(), 15u);  // 17 bytes cut before the split 'é'
  EXPECT_NO_THROW(out[0].to_json().dump());
  json j = out[0].to_json();
  EXPECT_EQ(j["cluster_id"], "0000000000000002");
  EXPECT_EQ(j["state"], "firing");
  EXPECT_EQ(j["at"], "2023-11-14T22:00:00.000Z");
}

TEST(AggregatorDeterminism, SameInputsSameAlerts) {
  auto run = [] {
    Aggregator agg(small_options());
    agg.set_rules({rule(R"({"kind": "new_cluster", "min_level": "warn"})"),
                   rule(R"({"kind": "threshold", "window": "10s", "threshold": 20, "cooldown": "30s"})"),
                   rule(R"({"kind": "spike", "window": "10s", "min_count": 5, "cooldown": "30s"})")});
    std::vector<AlertEvent> out;
    uint64_t x = 12345;
    for (int i = 0; i < 20000; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // a fixed LCG: same "random" traffic each run
      uint64_t cluster = (x >> 33) % 50;
      const char* level = (x >> 20) % 7 == 0 ? "error" : "info";
      agg.observe(cluster, (x >> 40) % 100 == 0, "t", {{"level", level}}, "line", kT0 + i * 10, &out);
      if (i % 100 == 0) agg.tick(kT0 + i * 10, &out);
    }
    json all = json::array();
    for (const auto& e : out) all.push_back(e.to_json());
    return all.dump();
  };
  const std::string a = run();
  EXPECT_EQ(a, run());
  EXPECT_NE(a, "[]");
}

}  // namespace
}  // namespace logsift

// ------------------------------------------------- counts of other replicas

namespace logsift {
namespace {

// observe(count = n) is n lines at once: the same series, the same firing.
TEST(AggregatorCounts, ACountOfNIsNLines) {
  Aggregator one(small_options()), many(small_options());
  const auto r = rule(R"({"kind": "threshold", "threshold": 10, "window": "1m"})");
  one.set_rules({r});
  many.set_rules({r});
  std::vector<AlertEvent> a, b;
  for (int i = 0; i < 9; ++i) one.observe(7, false, "t", {}, "line", kT0 + 1000, &a);
  many.observe(7, false, "t", {}, "line", kT0 + 1000, &b, 9);
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(one.series(7, 60000, kT0 + 2000)->dump(), many.series(7, 60000, kT0 + 2000)->dump());
  many.observe(7, false, "t", {}, "", kT0 + 1500, &b, 3);  // crosses 10 inside the count
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].state, "firing");
  EXPECT_EQ(b[0].count, 12u);
  EXPECT_EQ((*many.series(7, 60000, kT0 + 2000))["total"], 12);
  EXPECT_EQ(b[0].examples, std::vector<std::string>{"line"});  // an empty text adds no example
}

// count 0 counts nothing: it only says that a cluster met before with
// is_new false was new after all (its catalog write landed late).
TEST(AggregatorCounts, ACountOfZeroOnlyTellsThatTheClusterIsNew) {
  Aggregator agg(small_options());
  agg.set_rules({rule(R"({"kind": "new_cluster"})"), rule(R"({"kind": "threshold", "threshold": 1})")});
  std::vector<AlertEvent> out;
  agg.observe(9, /*is_new=*/false, "t", {}, "first", kT0, &out);
  ASSERT_EQ(out.size(), 1u);  // the threshold of 1
  EXPECT_EQ(out[0].kind, "threshold");
  out.clear();
  agg.observe(9, /*is_new=*/true, "t", {}, "first", kT0, &out, 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, "new_cluster");
  EXPECT_EQ((*agg.series(9, 60000, kT0 + 1000))["total"], 1);
  out.clear();
  agg.observe(9, /*is_new=*/true, "t", {}, "first", kT0, &out, 0);
  EXPECT_TRUE(out.empty()) << "new_cluster fires once";
}

}  // namespace
}  // namespace logsift
