#include "pipeline/stages/denoiser.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <future>
#include <unordered_map>

#include "models/torch_runtime.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/text.h"

namespace logsift {
namespace {

constexpr int64_t kPad = 0;
constexpr int64_t kVarId = 257;

// Token row: bytes+1, long tokens keep head + tail, right-padded.
void encode_token(std::string_view t, const models::TokenScorerInfo& info, int64_t* row) {
  const size_t L = static_cast<size_t>(info.max_len);
  std::fill(row, row + L, kPad);
  if (t.size() <= L) {
    for (size_t i = 0; i < t.size(); ++i) row[i] = static_cast<unsigned char>(t[i]) + 1;
    return;
  }
  size_t head = static_cast<size_t>(info.head), tail = static_cast<size_t>(info.tail);
  for (size_t i = 0; i < head; ++i) row[i] = static_cast<unsigned char>(t[i]) + 1;
  for (size_t i = 0; i < tail; ++i) row[head + i] = static_cast<unsigned char>(t[t.size() - tail + i]) + 1;
}

// ids of tokens[lo, hi) with variables as one id each.
void span_ids(std::string_view line, std::span<const Token> tokens, size_t lo, size_t hi,
              std::vector<int64_t>* out) {
  out->clear();
  for (size_t k = lo; k < hi; ++k) {
    const Token& t = tokens[k];
    if (t.kind == TokenKind::kVar) {
      out->push_back(kVarId);
    } else {
      for (uint32_t b = t.begin; b < t.end; ++b) out->push_back(static_cast<unsigned char>(line[b]) + 1);
    }
  }
}

// Two independent 64-bit multiply-mix hashes of the ids: a 128-bit key.
Key128 hash_ids(const int64_t* ids, size_t n) {
  uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = static_cast<uint64_t>(ids[i]);
    a = (a ^ x) * 0x100000001B3ull;
    a ^= a >> 29;
    b = (b + x + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    b ^= b >> 31;
  }
  return {a, b};
}

}  // namespace

void denoise_encode(std::string_view line, std::span<const Token> tokens, std::span<const uint32_t> words, size_t wi,
                    const models::TokenScorerInfo& info, int64_t* out) {
  const size_t L = static_cast<size_t>(info.max_len);
  const Token& t = tokens[words[wi]];
  int64_t* left = out;
  int64_t* mid = out + L;
  int64_t* right = out + 2 * L;
  encode_token(line.substr(t.begin, t.end - t.begin), info, mid);
  if (info.context == "word") {
    if (wi > 0) {
      const Token& p = tokens[words[wi - 1]];
      encode_token(line.substr(p.begin, p.end - p.begin), info, left);
    } else {
      std::fill(left, left + L, kPad);
    }
    if (wi + 1 < words.size()) {
      const Token& n = tokens[words[wi + 1]];
      encode_token(line.substr(n.begin, n.end - n.begin), info, right);
    } else {
      std::fill(right, right + L, kPad);
    }
    return;
  }
  thread_local std::vector<int64_t> buf;
  size_t i = words[wi];
  size_t lo = wi > 0 ? words[wi - 1] : 0;
  size_t hi = wi + 1 < words.size() ? words[wi + 1] + 1 : tokens.size();
  span_ids(line, tokens, lo, i, &buf);  // keep the last L (nearest the token)
  std::fill(left, left + L, kPad);
  size_t take = std::min(L, buf.size());
  std::copy(buf.end() - static_cast<std::ptrdiff_t>(take), buf.end(), left);
  span_ids(line, tokens, i + 1, hi, &buf);  // keep the first L
  std::fill(right, right + L, kPad);
  take = std::min(L, buf.size());
  std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(take), right);
}

namespace {

// Probe contexts for the context-independence test: (left, right) text
// around the token, "\x01" standing for a pre-masked variable.
const std::pair<std::string_view, std::string_view> kProbes[] = {
    {"", ""},
    {"\x01 ", " \x01"},
    {"\x01 ", ""},
    {"", " \x01"},
    {"error: ", " failed"},
    {"for ", " from \x01"},
    {"port \x01 ", ""},
    {"user ", " from \x01"},
    {"", ": \x01"},
    {"[", "]"},
    {"id=", ","},
    {"The ", " is"},
};
constexpr size_t kNumProbes = std::size(kProbes);

void probe_rows(std::string_view token, const models::TokenScorerInfo& info, int64_t* out) {
  const size_t L = static_cast<size_t>(info.max_len);
  auto ids = [](std::string_view s) {
    std::vector<int64_t> v;
    for (unsigned char c : s) v.push_back(c == 1 ? kVarId : c + 1);
    return v;
  };
  for (size_t p = 0; p < kNumProbes; ++p) {
    int64_t* rows = out + p * 3 * L;
    std::fill(rows, rows + 3 * L, kPad);
    auto l = ids(kProbes[p].first), r = ids(kProbes[p].second);
    if (info.context == "word") {  // neighbour words only: the probe's words
      std::string_view lw = kProbes[p].first, rw = kProbes[p].second;
      auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == 1 || s.front() == ':')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == 1 || s.back() == ':')) s.remove_suffix(1);
        return s;
      };
      encode_token(trim(lw), info, rows);
      encode_token(trim(rw), info, rows + 2 * L);
    } else {
      size_t take = std::min(L, l.size());
      std::copy(l.end() - static_cast<std::ptrdiff_t>(take), l.end(), rows);
      take = std::min(L, r.size());
      std::copy(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(take), rows + 2 * L);
    }
    encode_token(token, info, rows + L);
  }
}

}  // namespace

Denoiser::Denoiser(const Config& c, std::unique_ptr<models::TokenScorer> scorer)
    : scorer_(std::move(scorer)),
      threshold_(static_cast<float>(c.denoiser_threshold)),
      probe_margin_(static_cast<float>(c.denoiser_probe_margin)),
      digit_shapes_(c.denoiser_digit_shapes),
      torch_threads_(c.torch_threads),
      max_forward_(static_cast<size_t>(c.denoiser_max_forward_tokens)),
      token_(static_cast<size_t>(c.denoiser_cache_entries), static_cast<size_t>(c.denoiser_cache_bytes)),
      exact_(static_cast<size_t>(c.denoiser_cache_entries), static_cast<size_t>(c.denoiser_cache_bytes)) {
  const auto& info = scorer_->info();
  if (scorer_->has_token_logit() && info.context_bound > 0) {
    bounded_ = true;
    double t = std::clamp(c.denoiser_threshold, 1e-6, 1 - 1e-6);
    threshold_logit_ = static_cast<float>(std::log(t / (1 - t)));
    // float32 rounding of two forward passes: far below this allowance.
    bound_ = static_cast<float>(info.context_bound) + 1e-3f;
  } else if (scorer_->can_probe()) {
    // The probes' context rows, fixed once: the scorer then probes a token
    // for about the cost of one row.
    const size_t L = static_cast<size_t>(info.max_len);
    std::vector<int64_t> rows(kNumProbes * 3 * L), ctx(kNumProbes * 2 * L);
    probe_rows("", info, rows.data());
    for (size_t p = 0; p < kNumProbes; ++p) {
      std::copy_n(rows.data() + p * 3 * L, L, ctx.data() + p * 2 * L);
      std::copy_n(rows.data() + p * 3 * L + 2 * L, L, ctx.data() + p * 2 * L + L);
    }
    scorer_->set_probe_contexts(ctx, kNumProbes);
    probe_native_ = true;
  }
}

DenoiseStats Denoiser::stats() const {
  std::lock_guard l(stats_mu_);
  return stats_;
}

void Denoiser::record(const DenoiseStats& st) {
  metrics().denoise_tokens.inc(st.tokens);
  metrics().denoise_token_cache_hits.inc(st.token_cache_hits);
  metrics().denoise_model_rows.inc(st.model_rows);
  std::lock_guard l(stats_mu_);
  stats_.tokens += st.tokens;
  stats_.token_cache_hits += st.token_cache_hits;
  stats_.exact_cache_hits += st.exact_cache_hits;
  stats_.probed_strings += st.probed_strings;
  stats_.model_rows += st.model_rows;
  stats_.forward_calls += st.forward_calls;
}

namespace {

// Indices of the word tokens (the context rows' neighbours), reused per thread.
std::vector<uint32_t>& word_indices(std::span<const Token> tokens) {
  thread_local std::vector<uint32_t> words;
  words.clear();
  for (uint32_t k = 0; k < tokens.size(); ++k)
    if (tokens[k].kind == TokenKind::kWord) words.push_back(k);
  return words;
}

}  // namespace

bool Denoiser::decide_cached(std::string_view line, std::span<Token> tokens, DenoiseStats* stats) {
  const auto& info = scorer_->info();
  const size_t row = 3 * static_cast<size_t>(info.max_len);
  thread_local std::vector<int64_t> one;
  one.resize(row);
  const auto& words = word_indices(tokens);
  bool all = true;
  DenoiseStats& st = *stats;
  for (uint32_t wi = 0; wi < words.size(); ++wi) {
    Token& t = tokens[words[wi]];
    std::string_view text = line.substr(t.begin, t.end - t.begin);
    t.mark = kMarkNone;
    if (!has_word_char(text)) continue;
    ++st.tokens;
    std::string shape;
    auto d = token_.get(token_key(text, &shape));
    if (!d) {
      t.mark = kMarkUndecided;
      all = false;
      continue;
    }
    if (*d != Decision::kContextual) {
      ++st.token_cache_hits;
      if (*d == Decision::kVar) t.mark = kMarkVar;
      continue;
    }
    denoise_encode(line, tokens, words, wi, info, one.data());
    if (auto p = exact_.get(hash_ids(one.data(), row))) {
      ++st.exact_cache_hits;
      if (*p >= threshold_) t.mark = kMarkVar;
      continue;
    }
    t.mark = kMarkUndecided;
    all = false;
  }
  return all;
}

// Runs fn(begin, count) over [0, m): large passes of a scorer that allows
// it in two halves, the second on another thread, so a flood of new
// templates keeps both cores busy (the encoder stage is not always ready to
// take the other one). Each row's result is the same whichever thread
// computes it.
template <typename Fn>
void Denoiser::split_rows(size_t m, Fn&& fn) {
  constexpr size_t kSplitRows = 256;
  if (!scorer_->thread_safe() || m < kSplitRows) return fn(size_t{0}, m);
  const size_t half = m / 2;
  auto other = std::async(std::launch::async, [&] { fn(half, m - half); });
  try {
    fn(size_t{0}, half);
  } catch (...) {
    other.wait();
    throw;
  }
  other.get();
}

void Denoiser::run_model(size_t n, DenoiseStats* st) {
  const size_t row = 3 * static_cast<size_t>(scorer_->info().max_len);
  probs_.resize(n);
  for (size_t off = 0; off < n; off += max_forward_) {
    size_t m = std::min(max_forward_, n - off);
    const int64_t t0 = mono_ns();
    split_rows(m, [&](size_t b, size_t k) {
      scorer_->score(std::span<const int64_t>(ids_.data() + (off + b) * row, k * row), k,
                     std::span<float>(probs_.data() + off + b, k));
    });
    metrics().forward(Model::kDenoiser, m, mono_ns() - t0);
    ++st->forward_calls;
  }
  st->model_rows += n;
}

void Denoiser::run_token_logits(size_t n, DenoiseStats* st) {
  const size_t L = static_cast<size_t>(scorer_->info().max_len);
  probs_.resize(n);
  for (size_t off = 0; off < n; off += max_forward_) {
    size_t m = std::min(max_forward_, n - off);
    const int64_t t0 = mono_ns();
    scorer_->token_logits(std::span<const int64_t>(ids_.data() + off * L, m * L), m,
                          std::span<float>(probs_.data() + off, m));
    metrics().forward(Model::kDenoiser, m, mono_ns() - t0);
    ++st->forward_calls;
  }
  st->model_rows += n;
}

void Denoiser::run_probes(size_t n, DenoiseStats* st) {
  const size_t L = static_cast<size_t>(scorer_->info().max_len);
  probs_.resize(n * kNumProbes);
  for (size_t off = 0; off < n; off += max_forward_) {
    size_t m = std::min(max_forward_, n - off);
    const int64_t t0 = mono_ns();
    split_rows(m, [&](size_t b, size_t k) {
      scorer_->probe_scores(std::span<const int64_t>(ids_.data() + (off + b) * L, k * L), k,
                            std::span<float>(probs_.data() + (off + b) * kNumProbes, k * kNumProbes));
    });
    metrics().forward(Model::kDenoiser, m, mono_ns() - t0);
    ++st->forward_calls;
  }
  st->model_rows += n;
}

std::string_view Denoiser::token_key(std::string_view text, std::string* buf) const {
  if (!digit_shapes_) return text;
  size_t i = 0;
  while (i < text.size() && !text::is_digit(text[i])) ++i;
  if (i == text.size()) return text;
  buf->assign(text);
  for (; i < buf->size(); ++i)
    if (text::is_digit((*buf)[i])) (*buf)[i] = '0';
  return *buf;
}

void Denoiser::decide(std::span<DenoiseLine> lines) {
  size_t begin = 0, tokens = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    for (const Token& t : lines[i].tokens) tokens += t.kind == TokenKind::kWord && t.mark == kMarkUndecided;
    if (tokens >= kSliceTokens || i + 1 == lines.size()) {
      decide_slice(lines.subspan(begin, i + 1 - begin));
      begin = i + 1;
      tokens = 0;
    }
  }
}

void Denoiser::decide_slice(std::span<DenoiseLine> lines) {
  if (!threads_set_) {  // torch thread settings are per thread: set them here
    models::configure_torch_threads(torch_threads_);
    threads_set_ = true;
  }
  const auto& info = scorer_->info();
  const size_t L = static_cast<size_t>(info.max_len);
  const size_t row = 3 * L;
  DenoiseStats st;

  // Step 1: token strings no cache knows yet -> a decision for the token cache.
  std::deque<std::string> fresh_keys;  // owns the digit shapes (stable addresses)
  std::unordered_map<std::string_view, uint32_t, StringHash, std::equal_to<>> slot_of;
  std::vector<std::string_view> fresh;
  ids_.clear();
  for (auto& l : lines) {
    for (Token& t : l.tokens) {
      if (t.kind != TokenKind::kWord || t.mark != kMarkUndecided) continue;
      std::string_view word = l.text.substr(t.begin, t.end - t.begin);
      std::string shape;
      const std::string_view key = token_key(word, &shape);
      if (slot_of.count(key) || token_.get(key)) continue;
      // The decision is made on the key itself (the shape for a word with
      // digits), so it is the same whichever word of the shape came first.
      // A shape is kept here; a word is a view of its line, which outlives
      // the slice.
      std::string_view text = key;
      if (key.data() == shape.data()) text = fresh_keys.emplace_back(std::move(shape));
      slot_of.emplace(text, static_cast<uint32_t>(fresh.size()));
      fresh.push_back(text);
      if (bounded_ || probe_native_) {
        ids_.resize(ids_.size() + L);
        encode_token(text, info, ids_.data() + ids_.size() - L);
      } else {
        ids_.resize(ids_.size() + kNumProbes * row);
        probe_rows(text, info, ids_.data() + ids_.size() - kNumProbes * row);
      }
    }
  }
  if (!fresh.empty()) {
    st.probed_strings = fresh.size();
    if (bounded_) run_token_logits(fresh.size(), &st);
    else if (probe_native_) run_probes(fresh.size(), &st);
    else run_model(fresh.size() * kNumProbes, &st);
    for (size_t i = 0; i < fresh.size(); ++i) {
      Decision d;
      if (bounded_) {
        const float z = probs_[i];  // token_logit
        d = z - bound_ >= threshold_logit_ ? Decision::kVar
            : z + bound_ < threshold_logit_ ? Decision::kConst
                                            : Decision::kContextual;
      } else {
        const float* p = probs_.data() + i * kNumProbes;
        bool all_var = true, all_const = true;
        for (size_t k = 0; k < kNumProbes; ++k) {
          all_var &= p[k] >= threshold_ + probe_margin_;
          all_const &= p[k] <= threshold_ - probe_margin_;
        }
        d = all_var ? Decision::kVar : all_const ? Decision::kConst : Decision::kContextual;
      }
      token_.put(std::string(fresh[i]), d, fresh[i].size());
    }
  }

  // Step 2: every undecided token again: context-free now, or its exact input
  // through the model.
  struct Pending {
    Token* token;
    Key128 key;
    uint32_t slot;  // row of this step's forward pass
  };
  std::vector<Pending> pending;
  std::unordered_map<Key128, uint32_t, Key128Hash> row_of;
  ids_.clear();
  thread_local std::vector<int64_t> one;
  one.resize(row);
  for (auto& l : lines) {
    const auto& words = word_indices(l.tokens);
    for (uint32_t wi = 0; wi < words.size(); ++wi) {
      Token& t = l.tokens[words[wi]];
      if (t.mark != kMarkUndecided) continue;
      std::string_view text = l.text.substr(t.begin, t.end - t.begin);
      std::string shape;
      auto d = token_.get(token_key(text, &shape));
      if (d && *d != Decision::kContextual) {
        t.mark = *d == Decision::kVar ? kMarkVar : kMarkNone;
        continue;
      }
      // decide_cached() missed this input in the exact cache moments ago; the
      // rows this thread scored since (a batch just before, still in flight
      // then) are in its own direct-mapped table: one probe, no lock, where a
      // second exact-cache lookup (two generations, cold memory) cost as much
      // as the row on a stream of new templates.
      denoise_encode(l.text, l.tokens, words, wi, info, one.data());
      Key128 k = hash_ids(one.data(), row);
      if (const RecentRow& r = recent_[k.a & (kRecentRows - 1)]; r.used && r.key == k) {
        t.mark = r.p >= threshold_ ? kMarkVar : kMarkNone;
        continue;
      }
      auto [it, inserted] = row_of.emplace(k, static_cast<uint32_t>(row_of.size()));
      if (inserted) ids_.insert(ids_.end(), one.begin(), one.end());
      pending.push_back({&t, k, it->second});
    }
  }
  if (!row_of.empty()) run_model(row_of.size(), &st);
  for (const auto& p : pending) {
    float prob = probs_[p.slot];
    recent_[p.key.a & (kRecentRows - 1)] = {p.key, prob, true};
    exact_.put(p.key, prob);
    p.token->mark = prob >= threshold_ ? kMarkVar : kMarkNone;
  }
  record(st);
}

}  // namespace logsift
