#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/structured.h"

namespace logsift {
namespace {

std::string error_key(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.key;
  }
  return "<no error>";
}

TEST(Config, EmbeddedDefaultsAreValidAndDocumented) {
  Config c = Config::defaults();
  EXPECT_EQ(c.http_port, 8080);
  EXPECT_EQ(c.lsh_bits, 64);
  EXPECT_GE(c.premask.size(), 10u);
  auto docs = Config::key_docs();
  for (const auto& k : Config::keys()) {
    if (k == "premask") continue;  // documented by the block comment above it
    EXPECT_FALSE(docs[k].empty()) << "undocumented key " << k;
  }
  // A "//" inside a string value is not where the comment starts.
  EXPECT_EQ(docs["redis_url"].rfind("store \"redis\": redis://", 0), 0u) << docs["redis_url"];
  EXPECT_EQ(docs["slot_rules"].find("after the denoiser"), 0u) << docs["slot_rules"];
}

TEST(Config, FlagsAndEnvOverride) {
  Config c = Config::defaults();
  c.apply_string("http-port", "0");
  c.apply_string("tcp_replies", "false");
  c.apply_string("data-dir", "/tmp/x");
  EXPECT_EQ(c.http_port, 0);
  EXPECT_FALSE(c.tcp_replies);
  EXPECT_EQ(c.data_dir, "/tmp/x");
  setenv("LOGSIFT_MAX_LINE_BYTES", "100", 1);
  c.apply_env();
  unsetenv("LOGSIFT_MAX_LINE_BYTES");
  EXPECT_EQ(c.max_line_bytes, 100);
  c.validate();
}

TEST(Config, ValidationNamesTheBadKey) {
  Config c = Config::defaults();
  EXPECT_EQ(error_key([&] { c.apply_string("http_port", "abc"); }), "http_port");
  EXPECT_EQ(error_key([&] { c.apply_string("no_such_key", "1"); }), "no_such_key");
  EXPECT_EQ(error_key([&] { c.apply_string("tcp_replies", "maybe"); }), "tcp_replies");
  // A value the key takes but validate() refuses: the error names the key.
  auto invalid = [](const char* key, const char* value) {
    return error_key([&] {
      Config d = Config::defaults();
      d.apply_string(key, value);
      d.validate();
    });
  };
  EXPECT_EQ(invalid("http_port", "99999"), "http_port");
  EXPECT_EQ(invalid("lsh_bits", "0"), "lsh_bits");
  EXPECT_EQ(invalid("denoiser_runtime", "gpu"), "denoiser_runtime");
  EXPECT_EQ(invalid("encoder_runtime", "onnx"), "encoder_runtime");
  EXPECT_EQ(invalid("log_level", "loud"), "log_level");
  EXPECT_EQ(error_key([&] {
              Config d = Config::defaults();
              d.apply_json(nlohmann::json::parse(R"({"premask": [{"name": "x", "regex": "a*"}]})"));
              d.validate();
            }),
            "premask[0].regex");
}

TEST(Config, AppLayoutsTakeAVersionOrABoolean) {
  Config c = Config::defaults();
  EXPECT_EQ(c.app_layouts, "layouts-v3");
  c.apply_string("app_layouts", "layouts-v2");
  EXPECT_EQ(c.app_layouts, "layouts-v2");
  EXPECT_EQ(structured_options(c).app_layouts, 2);
  c.apply_string("app_layouts", "layouts-v1");
  EXPECT_EQ(c.app_layouts, "layouts-v1");
  EXPECT_EQ(structured_options(c).app_layouts, 1);
  // The boolean of earlier releases: false is off, true the latest layouts.
  c.apply_string("app_layouts", "false");
  EXPECT_EQ(c.app_layouts, "off");
  EXPECT_EQ(structured_options(c).app_layouts, kAppLayoutsOff);
  c.apply_json(nlohmann::json::parse(R"({"app_layouts": true})"));
  EXPECT_EQ(c.app_layouts, "layouts-v3");
  EXPECT_EQ(structured_options(c).app_layouts, kAppLayoutsLatest);
  EXPECT_EQ(error_key([&] { c.apply_string("app_layouts", "layouts-v9"); }), "app_layouts");
  EXPECT_EQ(error_key([&] { c.apply_json(nlohmann::json::parse(R"({"app_layouts": 1})")); }), "app_layouts");
  EXPECT_EQ(error_key([&] { c.apply_string("app_layouts", "\xff\xfe"); }), "app_layouts");
  EXPECT_EQ(c.app_layouts, "layouts-v3");  // a rejected value changes nothing
}

TEST(Config, SlotRulesTakeAVersionOrABoolean) {
  Config c = Config::defaults();
  EXPECT_EQ(c.slot_rules, "slots-v4");
  c.apply_string("slot_rules", "slots-v3");
  EXPECT_EQ(c.slot_rules, "slots-v3");
  c.apply_string("slot_rules", "slots-v1");
  EXPECT_EQ(c.slot_rules, "slots-v1");
  // The boolean of earlier releases: false is off, true the latest rules.
  c.apply_string("slot_rules", "false");
  EXPECT_EQ(c.slot_rules, "off");
  c.apply_json(nlohmann::json::parse(R"({"slot_rules": true})"));
  EXPECT_EQ(c.slot_rules, "slots-v4");
  c.apply_json(nlohmann::json::parse(R"({"slot_rules": false})"));
  EXPECT_EQ(c.slot_rules, "off");
  EXPECT_EQ(error_key([&] { c.apply_string("slot_rules", "slots-v9"); }), "slot_rules");
  EXPECT_EQ(error_key([&] { c.apply_json(nlohmann::json::parse(R"({"slot_rules": 2})")); }), "slot_rules");
  // Bytes that are no UTF-8 are a ConfigError too, not a JSON exception (found by fuzz_config).
  EXPECT_EQ(error_key([&] { c.apply_string("slot_rules", "\xff\xfe"); }), "slot_rules");
  EXPECT_EQ(c.slot_rules, "off");  // a rejected value changes nothing
}

TEST(Config, RedisStoreNeedsAValidUrlAndNeverShowsItsPassword) {
  Config c = Config::defaults();
  EXPECT_EQ(c.store, "sqlite");
  c.validate();  // the default redis_url is not used by the sqlite store
  auto invalid = [](const std::string& key, const std::string& value) {
    Config d = Config::defaults();
    d.apply_string("store", "redis");
    d.apply_string(key, value);
    try {
      d.validate();
    } catch (const ConfigError& e) {
      return e.key + ": " + e.what();
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(invalid("store", "mongo").rfind("store: ", 0), 0u);
  const std::string bad_url = invalid("redis_url", "redis://ops:hunter2hunter2@cache:99999");
  EXPECT_EQ(bad_url.rfind("redis_url: ", 0), 0u) << bad_url;
  EXPECT_EQ(bad_url.find("hunter2"), std::string::npos) << bad_url;
  EXPECT_EQ(invalid("redis_url", "http://cache").rfind("redis_url: ", 0), 0u);
  EXPECT_EQ(invalid("redis_timeout_ms", "0").rfind("redis_timeout_ms: ", 0), 0u);
  EXPECT_EQ(invalid("redis_url", "rediss://ops:hunter2hunter2@cache.internal:6380/1"), "<no error>");

  c.apply_string("store", "redis");
  c.apply_string("redis_url", "rediss://ops:hunter2hunter2@cache.internal:6380/1");
  c.validate();
  const std::string shown = c.to_json().dump();
  EXPECT_EQ(shown.find("hunter2"), std::string::npos) << shown;
  EXPECT_EQ(c.to_json()["redis_url"], "rediss://ops:***@cache.internal:6380/1");
}

TEST(Config, FileWithCommentsOverlaysDefaults) {
  std::string path = ::testing::TempDir() + "/logsift_test_config.jsonc";
  {
    std::ofstream f(path);
    f << "// comment\n{ \"tcp_port\": 0, // inline\n \"catalog_examples\": 2 }\n";
  }
  Config c = Config::defaults();
  c.apply_file(path);
  EXPECT_EQ(c.tcp_port, 0);
  EXPECT_EQ(c.catalog_examples, 2);
  EXPECT_EQ(c.http_port, 8080);  // untouched default
  {
    std::ofstream f(path);
    f << "{ \"tcp_port\": \"x\" }";
  }
  EXPECT_EQ(error_key([&] { Config::defaults().apply_file(path); }), "tcp_port");
  EXPECT_EQ(error_key([&] { Config::defaults().apply_file(path + ".missing"); }), "config");
}

TEST(Config, FloatKeysAndDurations) {
  Config c = Config::defaults();
  c.apply_string("alert-spike-factor", "2.5");
  EXPECT_DOUBLE_EQ(c.alert_spike_factor, 2.5);
  EXPECT_EQ(error_key([&] { c.apply_string("alert_spike_factor", "x"); }), "alert_spike_factor");
  // Past DBL_MAX or below its smallest value std::stod throws out_of_range; found by fuzz_config
  // (input "77e6519"), it escaped as a non-ConfigError and would abort the CLI.
  EXPECT_EQ(error_key([&] { c.apply_string("alert_spike_factor", "7e6519"); }), "alert_spike_factor");
  EXPECT_EQ(error_key([&] { c.apply_string("alert_spike_factor", "1e-400"); }), "alert_spike_factor");
  EXPECT_DOUBLE_EQ(c.alert_spike_factor, 2.5);
  EXPECT_EQ(parse_duration_ms("5m"), 300000);
  EXPECT_EQ(parse_duration_ms("250ms"), 250);
  EXPECT_EQ(parse_duration_ms("1500"), 1500);
  EXPECT_FALSE(parse_duration_ms("5 minutes"));
  EXPECT_EQ(c.series_windows_ms(), (std::vector<int64_t>{60000, 300000, 3600000}));
  c.series_windows = "1m,,x";
  EXPECT_EQ(error_key([&] { c.validate(); }), "series_windows");
}

TEST(Config, PremaskAsJsonFromEnvOrFlag) {
  Config c = Config::defaults();
  c.apply_string("premask", R"([{"name": "ticket", "regex": "TICKET-[0-9]+"}])");
  ASSERT_EQ(c.premask.size(), 1u);
  EXPECT_TRUE(c.premask[0].boundary);
  EXPECT_EQ(error_key([&] { c.apply_string("premask", R"([{"name": "x"}])"); }), "premask[0].regex");
}

}  // namespace
}  // namespace logsift
