// The cluster-id contract (pipeline/contract.h): built from named fields, its
// digest pinned, and every field of Pipeline::info() classed as a contract
// field (with the contract's value) or a diagnostic. A field added to info()
// without deciding which it is fails here.
#include "pipeline/contract.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/pipeline.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

using json = nlohmann::json;

// JSON pointers of every leaf (a scalar, null or array) of `j`.
void leaves(const json& j, const std::string& at, std::vector<std::string>* out) {
  if (!j.is_object() || j.empty()) {
    out->push_back(at);
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it) leaves(it.value(), at + "/" + it.key(), out);
}

bool is_diagnostic(const std::string& pointer) {
  return std::find(kInfoDiagnostics.begin(), kInfoDiagnostics.end(), pointer) != kInfoDiagnostics.end();
}

// Every leaf of info() is a diagnostic (and then not in the contract) or a
// contract field with the contract's value.
void expect_every_info_field_classed(const Pipeline& p) {
  const json info = p.info();
  const json contract = p.contract().to_json();
  std::vector<std::string> fields;
  leaves(info, "", &fields);
  ASSERT_FALSE(fields.empty());
  for (const auto& f : fields) {
    const json::json_pointer ptr(f);
    if (is_diagnostic(f)) {
      EXPECT_FALSE(contract.contains(ptr)) << f << " is listed as a diagnostic but is in the contract";
      continue;
    }
    ASSERT_TRUE(contract.contains(ptr))
        << f << " is in Pipeline::info() but is neither a contract field (pipeline/contract.h) nor listed in "
                "kInfoDiagnostics: decide whether it changes ids";
    EXPECT_EQ(info[ptr], contract[ptr]) << f;
  }
}

TEST(IdContract, DefaultDigestIsPinned) {
  // The shipped models and defaults: a change here makes every store migrate
  // every cluster at its next start. (6d31fc2dca9e13bf until events-v1 joined
  // it, with the format bank's slot_words and encoder_canonicalize, which
  // decided ids without being part of it.)
  Pipeline p(Config::defaults(), nullptr);
  const IdContract c = p.contract();
  EXPECT_EQ(c.digest(), "00cde4c908159eb2") << c.to_json().dump();
  EXPECT_EQ(c.to_json().size(), 8u);
  EXPECT_EQ(c.to_json()["events"]["version"], "events-v1");
}

TEST(IdContract, EveryInfoFieldIsContractOrDiagnostic) {
  Pipeline p(Config::defaults(), nullptr);
  expect_every_info_field_classed(p);
}

TEST(IdContract, EveryInfoFieldIsClassedWithABankAndNoDenoiser) {
  // The optional parts present (a format bank) and absent (no denoiser).
  const auto dir = test::scratch_dir("contract_");
  std::filesystem::create_directories(dir);
  const std::string bank = (dir / "formats.bank").string();
  std::ofstream(bank) << "Connection from %s port %d closed\n";
  Config c = Config::defaults();
  c.format_bank = bank;
  c.denoiser_model = "none";
  Pipeline p(c, nullptr);
  expect_every_info_field_classed(p);
  EXPECT_TRUE(p.contract().format_bank.has_value());
  EXPECT_FALSE(p.contract().denoiser.has_value());
  std::filesystem::remove_all(dir);
}

TEST(IdContract, DiagnosticsDoNotChangeTheDigest) {
  // How the pipeline runs is not what it computes.
  Config a = Config::defaults();
  Config b = Config::defaults();
  b.analysis_threads = a.analysis_threads + 1;
  b.batch_max_lines = a.batch_max_lines * 2;
  b.denoiser_runtime = "torchscript";
  b.encoder_runtime = "torchscript";
  Pipeline pa(a, nullptr), pb(b, nullptr);
  EXPECT_NE(pa.info()["batching"], pb.info()["batching"]);
  EXPECT_EQ(pa.contract(), pb.contract());
  EXPECT_EQ(pa.contract().digest(), pb.contract().digest());
}

TEST(IdContract, AnIdDecidingSettingChangesTheDigest) {
  Config a = Config::defaults();
  Config b = Config::defaults();
  b.denoiser_threshold = a.denoiser_threshold + 0.1;
  Config d = Config::defaults();
  d.slot_rules = "off";
  Config e = Config::defaults();
  e.multiline_max_lines = 100;  // cuts an event's text elsewhere: its id
  Config f = Config::defaults();
  f.encoder_canonicalize = false;
  Pipeline pa(a, nullptr), pb(b, nullptr), pd(d, nullptr), pe(e, nullptr), pf(f, nullptr);
  EXPECT_NE(pa.contract().digest(), pb.contract().digest());
  EXPECT_NE(pa.contract().digest(), pd.contract().digest());
  EXPECT_NE(pa.contract().digest(), pe.contract().digest());
  EXPECT_NE(pa.contract().digest(), pf.contract().digest());
  EXPECT_EQ(pd.contract().to_json()["slot_rules"], nullptr);
}

}  // namespace
}  // namespace logsift
