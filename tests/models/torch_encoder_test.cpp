// The TorchScript sentence-encoder runtime (models/torch_encoder.cpp) against
// the Python reference: tests/models/make_tiny_encoder.py writes a tiny
// BERT-style model, its vocab and expected ids/embeddings into
// LOGSIFT_TINY_ENCODER_DIR (ctest fixture tiny_encoder, test
// tiny_encoder_generate). Every suite here is named TinyEncoder* so CMake
// gives exactly these tests the fixture.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "models/builtin_models.h"
#include "models/sentence_encoder.h"
#include "models/wordpiece.h"
#include "pipeline/pipeline.h"
#include "tests/test_util.h"

namespace logsift::models {
namespace {

using json = nlohmann::json;

std::string tiny(const std::string& file) { return std::string(LOGSIFT_TINY_ENCODER_DIR) + "/" + file; }

const json& expected() {
  static const json j = [] {
    std::ifstream in(tiny("expected.json"));
    if (!in) throw std::runtime_error("missing " + tiny("expected.json") + ": run ctest -R tiny_encoder_generate first");
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
  }();
  return j;
}

std::vector<std::string> case_texts() {
  std::vector<std::string> v;
  for (const auto& c : expected()["cases"]) v.push_back(c["text"].get<std::string>());
  return v;
}

std::vector<float> encode_all(SentenceEncoder& enc, const std::vector<std::string>& texts) {
  std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<float> out(texts.size() * static_cast<size_t>(enc.dim()), -7.0f);
  enc.encode(views, out);
  return out;
}

using test::error_of;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TinyEncoderParity, WordPieceIdsMatchPython) {
  const json& ex = expected();
  WordPieceOptions o;
  o.max_len = ex["max_len"].get<int>();
  o.wildcard_token = ex["wildcard_token"].get<std::string>();
  auto with_wildcard = WordPieceTokenizer::from_file(tiny("vocab.txt"), o);
  WordPieceOptions cased = o;
  cased.lower_case = false;
  auto cased_tok = WordPieceTokenizer::from_file(tiny("vocab.txt"), cased);
  WordPieceOptions plain = o;
  plain.wildcard_token.clear();
  auto plain_tok = WordPieceTokenizer::from_file(tiny("vocab.txt"), plain);
  EXPECT_EQ(with_wildcard.vocab_size(), ex["vocab_size"].get<size_t>());
  ASSERT_GE(ex["cases"].size(), 10u);
  for (const auto& c : ex["cases"]) {
    const std::string text = c["text"].get<std::string>();
    SCOPED_TRACE(json(text).dump());
    EXPECT_EQ(with_wildcard.encode(text), c["ids"].get<std::vector<int64_t>>());
    EXPECT_EQ(cased_tok.encode(text), c["ids_cased"].get<std::vector<int64_t>>());
    EXPECT_EQ(plain_tok.encode(text), c["ids_no_wildcard"].get<std::vector<int64_t>>());
  }
}

void expect_embeddings_match(SentenceEncoder& enc) {
  const json& ex = expected();
  ASSERT_EQ(enc.dim(), ex["dim"].get<int>());
  auto texts = case_texts();
  auto got = encode_all(enc, texts);
  const size_t d = static_cast<size_t>(enc.dim());
  double max_diff = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto want = ex["cases"][i]["embedding"].get<std::vector<double>>();
    ASSERT_EQ(want.size(), d);
    double norm = 0;
    for (size_t k = 0; k < d; ++k) {
      max_diff = std::max(max_diff, std::abs(got[i * d + k] - want[k]));
      norm += double(got[i * d + k]) * got[i * d + k];
    }
    EXPECT_NEAR(norm, 1.0, 1e-5) << "row " << i << " is not L2-normalised";
  }
  EXPECT_LE(max_diff, 1e-5);
  std::ostringstream diff_text;
  diff_text << max_diff;
  ::testing::Test::RecordProperty("max_abs_diff", diff_text.str());
}

TEST(TinyEncoderParity, EmbeddingsMatchPythonWithVocabFile) {
  auto enc = load_torchscript_encoder({tiny("tiny_encoder.pt"), tiny("vocab.txt"), 0});
  EXPECT_EQ(enc->version(), expected()["version"].get<std::string>());
  auto d = enc->describe();
  EXPECT_EQ(d.kind, "torchscript");
  EXPECT_EQ(d.source, tiny("tiny_encoder.pt"));
  EXPECT_EQ(d.max_len, expected()["max_len"].get<int>());
  EXPECT_EQ(d.vocab_size, expected()["vocab_size"].get<int64_t>());
  expect_embeddings_match(*enc);
}

TEST(TinyEncoderParity, EmbeddingsMatchPythonWithVocabInsideArchive) {
  auto enc = load_torchscript_encoder({tiny("tiny_encoder_with_vocab.pt"), "", 0});
  EXPECT_EQ(enc->describe().vocab_size, expected()["vocab_size"].get<int64_t>());
  expect_embeddings_match(*enc);
}

// Rows are independent of what else is in the batch (padding is masked),
// and come back in input order whatever the length sort did.
TEST(TinyEncoderParity, RowsDoNotDependOnBatchComposition) {
  auto enc = load_torchscript_encoder({tiny("tiny_encoder_with_vocab.pt"), "", 0});
  auto texts = case_texts();
  auto together = encode_all(*enc, texts);
  std::vector<std::string> reversed(texts.rbegin(), texts.rend());
  auto backwards = encode_all(*enc, reversed);
  const size_t d = static_cast<size_t>(enc->dim()), n = texts.size();
  double max_diff = 0;
  for (size_t i = 0; i < n; ++i) {
    auto alone = encode_all(*enc, {texts[i]});
    for (size_t k = 0; k < d; ++k) {
      max_diff = std::max(max_diff, double(std::abs(alone[k] - together[i * d + k])));
      max_diff = std::max(max_diff, double(std::abs(backwards[(n - 1 - i) * d + k] - together[i * d + k])));
    }
  }
  EXPECT_LE(max_diff, 1e-5);
  // Over 256 rows: several micro-batches (of 64).
  std::vector<std::string> many;
  for (int i = 0; i < 600; ++i) many.push_back(texts[static_cast<size_t>(i) % n]);
  auto big = encode_all(*enc, many);
  for (size_t i = 0; i < many.size(); ++i)
    for (size_t k = 0; k < d; ++k)
      ASSERT_NEAR(big[i * d + k], together[(i % n) * d + k], 1e-5) << "row " << i;
}

TEST(TinyEncoderParity, MaxLenOverride) {
  auto enc = load_torchscript_encoder({tiny("tiny_encoder_with_vocab.pt"), "", 8});
  EXPECT_EQ(enc->describe().max_len, 8);
  // Truncation to 8 ids changes a long template's embedding, not a short one's.
  auto full = load_torchscript_encoder({tiny("tiny_encoder_with_vocab.pt"), "", 0});
  std::vector<std::string> texts = {"warm up", "failed to connect: error=timeout (retrying)"};
  auto a = encode_all(*enc, texts), b = encode_all(*full, texts);
  const size_t d = static_cast<size_t>(enc->dim());
  double short_diff = 0, long_diff = 0;
  for (size_t k = 0; k < d; ++k) {
    short_diff = std::max(short_diff, double(std::abs(a[k] - b[k])));
    long_diff = std::max(long_diff, double(std::abs(a[d + k] - b[d + k])));
  }
  EXPECT_LE(short_diff, 1e-5);
  EXPECT_GT(long_diff, 1e-3);
  // The model has 32 positions: max_len 64 fails at load (warm-up), not on traffic.
  std::string err = error_of([] { load_torchscript_encoder({tiny("tiny_encoder_with_vocab.pt"), "", 64}); });
  EXPECT_NE(err.find("tiny_encoder_with_vocab.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("forward failed"), std::string::npos) << err;
}

TEST(TinyEncoderParity, PipelineReportsTheEncoder) {
  Config c = Config::defaults();
  c.encoder_model = tiny("tiny_encoder.pt");
  c.encoder_vocab = tiny("vocab.txt");
  c.denoiser_model = "none";
  c.validate();
  Pipeline p(c, nullptr);
  json info = p.info()["encoder"];
  EXPECT_EQ(info["version"], expected()["version"]);
  EXPECT_EQ(info["dim"], expected()["dim"]);
  EXPECT_EQ(info["kind"], "torchscript");
  EXPECT_EQ(info["source"], c.encoder_model);
  EXPECT_EQ(info["max_len"], expected()["max_len"]);
  EXPECT_EQ(info["vocab_size"], expected()["vocab_size"]);
  // Not the shipped architecture: its own forward runs, and /info says why.
  EXPECT_EQ(info["runtime"].get<std::string>().rfind("torchscript (not native: ", 0), 0u) << info["runtime"];
  auto r = p.run({"Connection from 10.0.0.1 port 22 closed", "Connection from 10.0.0.2 port 23 closed",
                  "Disk /dev/sda1 is full"});
  ASSERT_TRUE(r[0].ok() && r[1].ok() && r[2].ok());
  EXPECT_EQ(r[0].cluster_id, r[1].cluster_id);
  EXPECT_NE(r[0].cluster_id, r[2].cluster_id);
  p.stop();
}

// --- errors: std::runtime_error naming the file and the problem ---

TEST(TinyEncoderErrors, MissingVocabFile) {
  std::string err = error_of([] { load_torchscript_encoder({tiny("tiny_encoder.pt"), tiny("no-such-vocab.txt"), 0}); });
  EXPECT_NE(err.find("tiny_encoder.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("no-such-vocab.txt"), std::string::npos) << err;
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
}

TEST(TinyEncoderErrors, NoVocabInArchiveAndNoneGiven) {
  std::string err = error_of([] { load_torchscript_encoder({tiny("tiny_encoder.pt"), "", 0}); });
  EXPECT_NE(err.find("tiny_encoder.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("no vocab"), std::string::npos) << err;
}

TEST(TinyEncoderErrors, VocabWithoutUnk) {
  std::string vocab = read_file(tiny("vocab.txt"));
  auto pos = vocab.find("[UNK]\n");
  ASSERT_NE(pos, std::string::npos);
  vocab.replace(pos, 6, "[UNKNOWN]\n");
  std::string path = ::testing::TempDir() + "tiny_vocab_no_unk.txt";
  write_file(path, vocab);
  std::string err = error_of([&] { load_torchscript_encoder({tiny("tiny_encoder.pt"), path, 0}); });
  EXPECT_NE(err.find("tiny_encoder.pt"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("no [UNK]"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(TinyEncoderErrors, WildcardTokenMissingFromVocab) {
  std::string vocab = read_file(tiny("vocab.txt"));
  auto pos = vocab.find("[VAR]\n");
  ASSERT_NE(pos, std::string::npos);
  vocab.replace(pos, 6, "[VAR2]\n");
  std::string path = ::testing::TempDir() + "tiny_vocab_no_var.txt";
  write_file(path, vocab);
  std::string err = error_of([&] { load_torchscript_encoder({tiny("tiny_encoder.pt"), path, 0}); });
  EXPECT_NE(err.find("wildcard_token '[VAR]'"), std::string::npos) << err;
  std::remove(path.c_str());
}

TEST(TinyEncoderErrors, WrongOutputShape) {
  std::string err = error_of([] { load_torchscript_encoder({tiny("bad_output_encoder.pt"), "", 0}); });
  EXPECT_NE(err.find("bad_output_encoder.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("[B,D]"), std::string::npos) << err;
}

TEST(TinyEncoderErrors, NotAModelOrNoFile) {
  std::string err = error_of([] { load_torchscript_encoder({tiny("vocab.txt"), "", 0}); });
  EXPECT_NE(err.find("vocab.txt"), std::string::npos) << err;
  EXPECT_NE(err.find("cannot load as TorchScript"), std::string::npos) << err;
  err = error_of([] { load_torchscript_encoder({tiny("nope.pt"), "", 0}); });
  EXPECT_NE(err.find("nope.pt"), std::string::npos) << err;
  EXPECT_NE(err.find("no such file"), std::string::npos) << err;
}

// Without models/encoder-v1.pt at build time "builtin" fails clearly; with
// it, the embedded model must follow the contract (vocab inside the archive).
TEST(TinyEncoderErrors, BuiltinEncoder) {
  if (builtin_encoder().empty()) {
    std::string err = error_of([] { load_torchscript_encoder({"builtin", "", 0}); });
    EXPECT_NE(err.find("no built-in encoder"), std::string::npos) << err;
    return;
  }
  auto enc = load_torchscript_encoder({"builtin", "", 0});
  EXPECT_GT(enc->dim(), 0);
  EXPECT_EQ(enc->describe().source, "builtin");
  EXPECT_EQ(enc->version().rfind("unversioned:", 0), std::string::npos) << "the shipped encoder needs a version";
  auto out = encode_all(*enc, {"Connection from <*> port <*> closed"});
  double norm = 0;
  for (float x : out) norm += double(x) * x;
  EXPECT_NEAR(norm, 1.0, 1e-5);
}

// The shipped encoder runs natively by default (models/log_encoder_native.h).
// It must give the module's codes: on every line of the labelled real sets
// and on templates of their events, the same 32 signs as the TorchScript
// forward, bit for bit, whatever the batch.
TEST(EncoderParity, NativePassGivesTheModulesCodesOnRealLines) {
  if (builtin_encoder().empty()) GTEST_SKIP() << "no built-in encoder in this build";
  EncoderOptions native{"builtin", "", 0, true}, torch{"builtin", "", 0, false};
  auto a = load_torchscript_encoder(native);
  auto b = load_torchscript_encoder(torch);
  EXPECT_EQ(a->describe().runtime, "native");
  EXPECT_EQ(b->describe().runtime, "torchscript");
  std::vector<std::string> texts = {"", "...", "<*>", "<*> <*> <*>", "Connection from <*> port <*> closed"};
  for (const char* dir : {LOGSIFT_SOURCE_DIR "/models/validation", LOGSIFT_SOURCE_DIR "/models/tuning"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
      if (e.path().extension() != ".log") continue;
      std::ifstream in(e.path());
      std::string line;
      for (int n = 0; n < 1000 && std::getline(in, line); ++n) {
        texts.push_back(line);
        // and a template of it: digits runs as wildcards
        std::string t;
        bool digits = false;
        for (char c : line) {
          const bool d = c >= '0' && c <= '9';
          if (d && !digits) t += "<*>";
          if (!d) t += c;
          digits = d;
        }
        texts.push_back(t);
      }
    }
  }
  ASSERT_GT(texts.size(), 30000u);
  auto x = encode_all(*a, texts);
  auto y = encode_all(*b, texts);
  const size_t d = static_cast<size_t>(a->dim());
  size_t rows_differ = 0;
  for (size_t r = 0; r < texts.size(); ++r)
    rows_differ += !std::equal(x.begin() + r * d, x.begin() + (r + 1) * d, y.begin() + r * d);
  EXPECT_EQ(rows_differ, 0u);
  RecordProperty("rows", std::to_string(texts.size()));
  // One at a time as in a batch.
  auto one = encode_all(*a, {texts[7]});
  EXPECT_TRUE(std::equal(one.begin(), one.end(), x.begin() + 7 * d));
}

}  // namespace
}  // namespace logsift::models
