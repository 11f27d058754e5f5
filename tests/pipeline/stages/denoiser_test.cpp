// The denoiser runtime against the Python model on a fixed sample
// (tests/data/denoiser_fixture.json, written by
// models/training/denoiser/make_fixture.py from the shipped model), and the
// stage's history-independence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "models/token_scorer.h"
#include "pipeline/stages/denoiser.h"
#include "pipeline/pipeline.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

using json = nlohmann::json;

const json& fixture() {
  static const json j = [] {
    std::ifstream in(LOGSIFT_SOURCE_DIR "/tests/data/denoiser_fixture.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
  }();
  return j;
}

const char* kind_name(TokenKind k) {
  return k == TokenKind::kWord ? "word" : k == TokenKind::kDelim ? "delim" : "var";
}

TEST(DenoiseParity, ShippedModelMatchesPythonOnTheFixtureInputs) {
  auto scorer = models::load_token_scorer(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.pt");
  const json& fx = fixture();
  EXPECT_EQ(scorer->info().version, fx["version"].get<std::string>());
  const int L = scorer->info().max_len;
  std::vector<int64_t> ids;
  std::vector<float> expected;
  for (const auto& line : fx["lines"]) {
    for (const auto& x : line["x"])
      for (const auto& row : x)
        for (const auto& id : row) ids.push_back(id.get<int64_t>());
    for (const auto& p : line["p"]) expected.push_back(p.get<float>());
  }
  ASSERT_GT(expected.size(), 500u);
  ASSERT_EQ(ids.size(), expected.size() * 3 * L);
  std::vector<float> got(expected.size());
  scorer->score(ids, expected.size(), got);
  double max_diff = 0;
  for (size_t i = 0; i < got.size(); ++i) max_diff = std::max(max_diff, std::abs(double(got[i]) - expected[i]));
  EXPECT_LE(max_diff, 1e-5);
  RecordProperty("max_abs_diff", std::to_string(max_diff));
}

TEST(DenoiseParity, BuiltinModelIsTheShippedFile) {
  auto builtin = models::load_token_scorer("builtin");
  auto file = models::load_token_scorer(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.pt");
  EXPECT_EQ(builtin->info().version, file->info().version);
  std::vector<int64_t> ids(3 * 32, 0);
  for (int i = 0; i < 8; ++i) ids[32 + i] = 'a' + i + 1;
  float a = 0, b = 0;
  builtin->score(ids, 1, std::span<float>(&a, 1));
  file->score(ids, 1, std::span<float>(&b, 1));
  EXPECT_EQ(a, b);
}

// Lines of the labelled real sets (models/validation, models/tuning): up to
// `per_set` of each program's log.
std::vector<std::string> real_lines(size_t per_set) {
  std::vector<std::string> out;
  for (const char* dir : {LOGSIFT_SOURCE_DIR "/models/validation", LOGSIFT_SOURCE_DIR "/models/tuning"}) {
    std::vector<std::filesystem::path> logs;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
      if (e.path().extension() == ".log") logs.push_back(e.path());
    std::sort(logs.begin(), logs.end());
    for (const auto& f : logs) {
      std::ifstream in(f);
      std::string line;
      for (size_t n = 0; n < per_set && std::getline(in, line); ++n) out.push_back(line);
    }
  }
  return out;
}

// The native pass (models/cnn_denoiser.h) is what the shipped model runs by
// default; it must compute the TorchScript forward's function: on every
// scored token of real programs' lines, the same probability within float
// rounding and the same decision at the threshold.
TEST(DenoiseParity, NativePassMatchesTheModulesForwardOnRealLines) {
  auto native = models::load_token_scorer("builtin", true);
  auto torch = models::load_token_scorer("builtin", false);
  EXPECT_EQ(native->runtime(), "native");
  EXPECT_EQ(torch->runtime(), "torchscript");
  EXPECT_TRUE(native->can_probe());
  EXPECT_FALSE(torch->can_probe());
  const auto& info = native->info();
  const size_t row = 3 * static_cast<size_t>(info.max_len);
  Premasker premasker(Config::defaults().premask);
  std::vector<Token> tokens;
  std::vector<int64_t> ids;
  for (const auto& text : real_lines(200)) {
    tokenize(text, premasker.find(text), &tokens);
    std::vector<uint32_t> words;
    for (uint32_t k = 0; k < tokens.size(); ++k)
      if (tokens[k].kind == TokenKind::kWord) words.push_back(k);
    for (size_t wi = 0; wi < words.size(); ++wi) {
      ids.resize(ids.size() + row);
      denoise_encode(text, tokens, words, wi, info, ids.data() + ids.size() - row);
    }
  }
  const size_t n = ids.size() / row;
  ASSERT_GT(n, 20000u);
  std::vector<float> a(n), b(n);
  native->score(ids, n, a);
  torch->score(ids, n, b);
  const float t = static_cast<float>(Config::defaults().denoiser_threshold);
  double max_diff = 0;
  size_t flips = 0;
  for (size_t i = 0; i < n; ++i) {
    max_diff = std::max(max_diff, std::abs(double(a[i]) - b[i]));
    flips += (a[i] >= t) != (b[i] >= t);
  }
  EXPECT_LE(max_diff, 2e-6);
  EXPECT_EQ(flips, 0u);
  RecordProperty("rows", std::to_string(n));
  std::ostringstream diff;
  diff << max_diff;
  RecordProperty("max_abs_diff", diff.str());
}

// Probe scoring gives, for each token row, what score() gives on the rows
// assembled from that token and each probe's context.
TEST(DenoiseParity, NativeProbeScoresEqualScoresOfTheAssembledRows) {
  auto scorer = models::load_token_scorer("builtin", true);
  const size_t L = static_cast<size_t>(scorer->info().max_len);
  std::mt19937 rng(7);
  auto fill = [&](int64_t* row, bool vars) {
    std::fill(row, row + L, 0);
    const size_t len = rng() % (L + 1);
    for (size_t i = 0; i < len; ++i) row[i] = vars && rng() % 10 == 0 ? 257 : 1 + static_cast<int64_t>(rng() % 256);
  };
  constexpr size_t P = 5, N = 300;
  std::vector<int64_t> ctx(P * 2 * L), toks(N * L), rows(N * P * 3 * L);
  for (size_t k = 0; k < 2 * P; ++k) fill(ctx.data() + k * L, true);
  for (size_t r = 0; r < N; ++r) fill(toks.data() + r * L, false);
  for (size_t r = 0; r < N; ++r)
    for (size_t k = 0; k < P; ++k) {
      int64_t* x = rows.data() + (r * P + k) * 3 * L;
      std::copy_n(ctx.data() + k * 2 * L, L, x);
      std::copy_n(toks.data() + r * L, L, x + L);
      std::copy_n(ctx.data() + k * 2 * L + L, L, x + 2 * L);
    }
  scorer->set_probe_contexts(ctx, P);
  std::vector<float> probed(N * P), scored(N * P);
  scorer->probe_scores(toks, N, probed);
  scorer->score(rows, N * P, scored);
  double max_diff = 0;
  for (size_t i = 0; i < N * P; ++i) max_diff = std::max(max_diff, std::abs(double(probed[i]) - scored[i]));
  EXPECT_LE(max_diff, 1e-6);
  // Ids out of the model's range are an error, not a read out of bounds.
  toks[3] = 258;
  EXPECT_THROW(scorer->probe_scores(toks, N, probed), std::out_of_range);
}

// A TorchScript file that breaks the denoiser contract (here the tiny sentence
// encoder: forward(input_ids, attention_mask) -> [B, D]) is refused at load by
// the warm-up forward, before any traffic, with an error naming the contract.
TEST(TinyEncoderAsDenoiser, WrongContractFailsAtLoadWithAClearError) {
  const std::string path = LOGSIFT_TINY_ENCODER_DIR "/tiny_encoder.pt";
  try {
    models::load_token_scorer(path);
    FAIL() << "a sentence encoder loaded as a denoiser";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("warm-up forward failed"), std::string::npos) << what;
    EXPECT_NE(what.find("[B, 3, max_len]"), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
}

// The serving tokenizer and encoder reproduce the training side's rows, so
// the end-to-end probabilities match too.
TEST(DenoiseParity, ServingTokenizerAndEncoderMatchTraining) {
  auto scorer = models::load_token_scorer(LOGSIFT_SOURCE_DIR "/models/denoiser-v2.pt");
  const auto& info = scorer->info();
  Premasker premasker(Config::defaults().premask);
  size_t lines = 0, same_tokens = 0, compared = 0;
  double max_diff = 0;
  std::vector<Token> tokens;
  std::vector<std::string> mismatches;
  for (const auto& line : fixture()["lines"]) {
    ++lines;
    std::string text = line["text"];
    tokenize(text, premasker.find(text), &tokens);
    json mine = json::array();
    for (const auto& t : tokens) mine.push_back({t.begin, t.end, kind_name(t.kind)});
    if (mine != line["tokens"]) {
      if (mismatches.size() < 5) mismatches.push_back(text);
      continue;
    }
    ++same_tokens;
    std::vector<uint32_t> words;
    for (uint32_t k = 0; k < tokens.size(); ++k)
      if (tokens[k].kind == TokenKind::kWord) words.push_back(k);
    const auto& scored = line["scored"];
    std::vector<int64_t> ids(3 * info.max_len);
    for (size_t s = 0; s < scored.size(); ++s) {
      uint32_t tok = scored[s].get<uint32_t>();
      size_t wi = std::find(words.begin(), words.end(), tok) - words.begin();
      ASSERT_LT(wi, words.size());
      denoise_encode(text, tokens, words, wi, info, ids.data());
      std::vector<int64_t> want;
      for (const auto& row : line["x"][s])
        for (const auto& id : row) want.push_back(id.get<int64_t>());
      EXPECT_EQ(ids, want) << text << " token " << tok;
      float p = 0;
      scorer->score(ids, 1, std::span<float>(&p, 1));
      max_diff = std::max(max_diff, std::abs(double(p) - line["p"][s].get<double>()));
      ++compared;
    }
  }
  for (const auto& m : mismatches) ADD_FAILURE() << "tokenization differs from training for: " << m;
  EXPECT_EQ(same_tokens, lines);
  EXPECT_GT(compared, 500u);
  EXPECT_LE(max_diff, 1e-5);
}

// Caches must never make a line's template depend on what came before it.
TEST(DenoiseStage, TemplatesIndependentOfHistoryAndBatching) {
  std::vector<std::string> lines;
  for (const auto& line : fixture()["lines"]) lines.push_back(line["text"]);
  Config big = Config::defaults();
  Config one = Config::defaults();
  one.batch_max_lines = 1;
  one.batch_max_delay_us = 0;
  Pipeline a(big, nullptr), b(one, nullptr);
  auto forward = a.run(lines);
  std::vector<std::string> reversed(lines.rbegin(), lines.rend());
  auto backward = b.run(reversed);
  auto again = a.run(lines);  // warm caches
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(forward[i].template_text, backward[lines.size() - 1 - i].template_text) << lines[i];
    EXPECT_EQ(forward[i].template_text, again[i].template_text) << lines[i];
    EXPECT_EQ(forward[i].cluster_id, again[i].cluster_id);
  }
  auto stats = a.stats();
  EXPECT_GT(stats["denoise"]["tokens"].get<uint64_t>(), 0u);
  // The second pass is all hits: the line cache answers before the denoiser.
  EXPECT_GE(stats["analysis"]["line_cache_hit_rate"].get<double>(), 0.49);
}

// Words with digits (a counter inside a word) are probed once per digit
// shape: forty connection names are one probe, not forty, and the decision
// does not depend on which of them came first.
TEST(DenoiseStage, WordsWithDigitsAreProbedOncePerDigitShape) {
  std::vector<std::string> lines, reversed;
  for (int i = 0; i < 40; ++i)
    lines.push_back("closing idle session conn" + std::to_string(100 + i * 7) + " of pool mx" + std::to_string(i % 9));
  reversed.assign(lines.rbegin(), lines.rend());
  auto probed = [](bool shapes, const std::vector<std::string>& input, std::vector<std::string>* templates) {
    Config c = Config::defaults();
    c.denoiser_digit_shapes = shapes;
    Pipeline p(c, nullptr);
    for (const auto& r : p.run(input)) templates->push_back(std::string(r.template_text));
    return p.stats()["denoise"]["probed_strings"].get<uint64_t>();
  };
  std::vector<std::string> by_word, by_shape, by_shape_reversed;
  const uint64_t words = probed(false, lines, &by_word);
  const uint64_t shapes = probed(true, lines, &by_shape);
  probed(true, reversed, &by_shape_reversed);
  // closing, idle, session, of, pool + conn### and mx# as one shape each,
  // against one string per distinct word.
  EXPECT_LE(shapes, 7u);
  EXPECT_GE(words, 40u + 9u);
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_EQ(by_shape[i], by_shape_reversed[lines.size() - 1 - i]) << lines[i] << ": history changed a decision";
}

// The runtime is how the models are computed, not what: both give the same
// templates and ids, and the native denoiser probes a new token with one row
// instead of twelve. The contract (what a store is migrated by) is the same.
TEST(DenoiseStage, NativeAndTorchScriptRuntimesGiveTheSameIds) {
  const auto lines = real_lines(300);
  Config nc = Config::defaults();
  Config tc = Config::defaults();
  tc.denoiser_runtime = "torchscript";
  tc.encoder_runtime = "torchscript";
  Pipeline native(nc, nullptr), torch(tc, nullptr);
  EXPECT_EQ(native.info()["denoiser"]["runtime"], "native");
  EXPECT_EQ(torch.info()["denoiser"]["runtime"], "torchscript");
  EXPECT_EQ(native.info()["encoder"]["runtime"], "native");
  EXPECT_EQ(torch.info()["encoder"]["runtime"], "torchscript");
  EXPECT_EQ(native.contract(), torch.contract());
  auto a = native.run(lines);
  auto b = torch.run(lines);
  ASSERT_EQ(a.size(), b.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    differ += a[i].cluster_id != b[i].cluster_id;
    EXPECT_EQ(a[i].template_text, b[i].template_text) << lines[i];
  }
  EXPECT_EQ(differ, 0u);
  auto ns = native.stats()["denoise"], ts = torch.stats()["denoise"];
  EXPECT_EQ(ns["probed_strings"], ts["probed_strings"]);
  EXPECT_GT(ns["probed_strings"].get<uint64_t>(), 1000u);
  EXPECT_LT(ns["model_rows"].get<uint64_t>(), ts["model_rows"].get<uint64_t>() / 2);
}

TEST(DenoiseStage, BadModelPathIsAClearError) {
  Config c = Config::defaults();
  c.denoiser_model = "/nonexistent/model.pt";
  try {
    Pipeline p(c, nullptr);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.pt"), std::string::npos);
  }
}

}  // namespace
}  // namespace logsift
