#include <cctype>
#include <cmath>

#include "lsh/lsh.h"
#include "models/sentence_encoder.h"

namespace logsift::models {
namespace {

class HashedFeatureEncoder final : public SentenceEncoder {
 public:
  explicit HashedFeatureEncoder(int dim) : dim_(dim) {}
  int dim() const override { return dim_; }
  std::string version() const override { return "hashed-features-v1"; }
  EncoderDescription describe() const override { return {"hashed", "hashed", 0, 0}; }

  void encode(std::span<const std::string_view> templates, std::span<float> out) override {
    for (size_t t = 0; t < templates.size(); ++t) embed_one(templates[t], out.subspan(t * dim_, dim_));
  }

 private:
  void add_feature(std::string_view f, uint64_t salt, std::span<float> v) const {
    uint64_t h = lsh::stable_hash64(f, salt);
    v[h % static_cast<uint64_t>(dim_)] += (h >> 63) ? 1.0f : -1.0f;
  }

  void embed_one(std::string_view text, std::span<float> v) const {
    std::fill(v.begin(), v.end(), 0.0f);
    std::string prev, word;
    auto flush = [&] {
      if (word.empty()) return;
      add_feature(word, 1, v);
      if (!prev.empty()) add_feature(prev + " " + word, 2, v);
      prev = std::move(word);
      word.clear();
    };
    for (size_t i = 0; i < text.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(text[i]);
      if (text.compare(i, 3, "<*>") == 0) {  // wildcard: a word boundary, no feature
        flush();
        i += 2;
      } else if (std::isalnum(c) || c == '_' || c >= 0x80) {
        word += static_cast<char>(std::tolower(c));
      } else {
        flush();
      }
    }
    flush();
    if (prev.empty()) {
      // No word at all ("<*>", "!!!", "<*> - <*>"): the template's own shape is
      // the only feature, so such templates still get distinct, stable vectors.
      std::string shape;
      for (char ch : text)
        if (ch != ' ' && ch != '\t') shape += ch;
      add_feature(shape, 3, v);
    }
    double norm = 0;
    for (float x : v) norm += static_cast<double>(x) * x;
    if (norm > 0) {
      float inv = static_cast<float>(1.0 / std::sqrt(norm));
      for (auto& x : v) x *= inv;
    }
  }

  int dim_;
};

}  // namespace

std::unique_ptr<SentenceEncoder> make_hashed_feature_encoder(int dim) {
  return std::make_unique<HashedFeatureEncoder>(dim);
}

}  // namespace logsift::models
