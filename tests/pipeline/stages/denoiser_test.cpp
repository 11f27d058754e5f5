// The denoiser runtime against the Python model on a fixed sample
// (tests/data/denoiser_fixture.json, written by
// models/training/denoiser/make_fixture.py from the shipped model), and the
// stage's history-independence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
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
