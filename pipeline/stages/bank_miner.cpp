#include "pipeline/stages/bank_miner.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <stdexcept>
#include <unordered_set>

#include "pipeline/stages/format_bank.h"

namespace logsift {
namespace {

constexpr std::string_view kWild = "<*>";

struct Tmpl {
  std::string_view text;
  uint64_t count = 0;
  std::vector<std::string_view> toks;  // views into text
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

void split_blanks(std::string_view s, std::vector<std::string_view>* out) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_blank(s[j])) ++j;
    if (j > i) out->push_back(s.substr(i, j - i));
    i = j;
  }
}

// Punctuation a slot keeps around its value when every member has it there
// ("li.wei:" / "ravi.kumar:" -> "%s:", "(localhost)" / "(<*>)" -> "(%s)"). Not
// '<', '*' or '>': those of a template's <*> are no text of the line.
bool is_affix(char c) { return std::string_view(".,:;()[]{}'\"=/@#|!?").find(c) != std::string_view::npos; }

struct Affix {
  size_t prefix = 0, suffix = 0;
};

Affix common_affix(const std::vector<const Tmpl*>& ms, size_t i) {
  std::string_view first = ms[0]->toks[i];
  size_t shortest = first.size(), p = 0, q = 0;
  for (const Tmpl* m : ms) shortest = std::min(shortest, m->toks[i].size());
  while (p < shortest && is_affix(first[p]) &&
         std::all_of(ms.begin(), ms.end(), [&](const Tmpl* m) { return m->toks[i][p] == first[p]; }))
    ++p;
  while (q < shortest - p && is_affix(first[first.size() - 1 - q]) &&
         std::all_of(ms.begin(), ms.end(), [&](const Tmpl* m) {
           std::string_view t = m->toks[i];
           return t[t.size() - 1 - q] == first[first.size() - 1 - q];
         }))
    ++q;
  return {p, q};
}

// Literal text of a format: '%' as "%%", each <*> as %s.
void append_literal(std::string_view s, std::string* out) {
  for (size_t k = 0; k < s.size();) {
    if (s.compare(k, kWild.size(), kWild) == 0) {
      *out += "%s";
      k += kWild.size();
      continue;
    }
    if (s[k] == '%') *out += '%';
    *out += s[k++];
  }
}

// The member's text with each slot token (less the punctuation all members
// share around it) and each <*> as %s, '%' as "%%".
std::string format_of(const Tmpl& t, const std::vector<bool>& slot, const std::vector<Affix>& affix) {
  std::string out;
  const char* base = t.text.data();
  size_t pos = 0;
  for (size_t i = 0; i < t.toks.size(); ++i) {
    const size_t at = static_cast<size_t>(t.toks[i].data() - base);
    out.append(t.text.substr(pos, at - pos));  // the blanks between tokens, as they were
    std::string_view tok = t.toks[i];
    if (slot[i]) {
      append_literal(tok.substr(0, affix[i].prefix), &out);
      out += "%s";
      append_literal(tok.substr(tok.size() - affix[i].suffix), &out);
    } else {
      append_literal(tok, &out);
    }
    pos = at + t.toks[i].size();
  }
  out.append(t.text.substr(pos));
  return out;
}

}  // namespace

void BankMiner::add(std::string_view template_text, uint64_t count) {
  if (count == 0) return;
  counts_[std::string(template_text)] += count;
  lines_ += count;
}

std::vector<MinedFormat> BankMiner::mine(const MineOptions& o) const {
  if (!(o.similarity > 0.0 && o.similarity <= 1.0))
    throw std::invalid_argument("similarity must be in (0, 1]");
  if (o.min_values < 2) throw std::invalid_argument("min_values must be 2 or more");

  std::vector<Tmpl> all;
  all.reserve(counts_.size());
  for (const auto& [text, n] : counts_) {
    Tmpl t;
    t.text = text;
    t.count = n;
    split_blanks(t.text, &t.toks);
    if (!t.toks.empty()) all.push_back(std::move(t));
  }
  std::sort(all.begin(), all.end(), [](const Tmpl& a, const Tmpl& b) {
    return a.count != b.count ? a.count > b.count : a.text < b.text;
  });
  std::map<size_t, std::vector<const Tmpl*>> groups;  // token count -> members, most frequent first
  for (const auto& t : all) groups[t.toks.size()].push_back(&t);

  std::map<std::string, MinedFormat> found;
  for (const auto& [n, items] : groups) {
    struct Cluster {
      std::vector<std::string_view> pattern;
      std::vector<const Tmpl*> members;
    };
    std::vector<Cluster> clusters;
    // The candidates of a template: the clusters whose pattern starts with its
    // first token or with <*> (every cluster for a template that starts with
    // <*>), in creation order, so the earliest still wins a tie as in a scan
    // of all clusters; a sample with many templates does not compare each with
    // every cluster.
    std::unordered_map<std::string_view, std::vector<uint32_t>> by_first;
    std::vector<uint32_t> wild_first;  // sorted
    std::vector<uint32_t> cand;
    const std::vector<uint32_t> none;
    // The most differing positions a join allows: n - miss >= similarity * n.
    size_t max_miss = 0;
    while (max_miss < n && static_cast<double>(n - max_miss - 1) + 1e-9 >= o.similarity * static_cast<double>(n))
      ++max_miss;
    for (const Tmpl* t : items) {
      const std::string_view t0 = t->toks[0];
      cand.clear();
      size_t group = 0;  // the clusters of the template's first token
      if (t0 == kWild) {
        group = clusters.size();
        for (uint32_t k = 0; k < clusters.size() && k < kMaxCandidates; ++k) cand.push_back(k);
      } else {
        auto it = by_first.find(t0);
        const auto& same = it == by_first.end() ? none : it->second;
        group = same.size();
        std::merge(same.begin(), same.end(), wild_first.begin(), wild_first.end(), std::back_inserter(cand));
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        if (cand.size() > kMaxCandidates) cand.resize(kMaxCandidates);  // the earliest (most frequent) clusters
      }
      uint32_t best = 0;
      size_t best_miss = 0;
      bool found = false;
      for (uint32_t k : cand) {
        const auto& p = clusters[k].pattern;
        // A candidate is dropped at its first mismatch past what the
        // similarity allows (most candidates of a large group fail early).
        size_t miss = 0;
        for (size_t i = 0; i < n && miss <= max_miss; ++i) miss += p[i] != kWild && p[i] != t->toks[i];
        if (miss > max_miss) continue;
        if (!found || miss < best_miss) {  // the most equal positions; the earliest on a tie
          best = k;
          best_miss = miss;
          found = true;
        }
      }
      if (!found) {
        // A full group leaves a template that joins none of its clusters alone.
        if (group >= kMaxCandidates) continue;
        const auto k = static_cast<uint32_t>(clusters.size());
        clusters.push_back({t->toks, {t}});
        if (t0 == kWild) {
          wild_first.push_back(k);
        } else {
          by_first[t0].push_back(k);
        }
        continue;
      }
      Cluster& c = clusters[best];
      const bool was_wild = c.pattern[0] == kWild;
      for (size_t i = 0; i < n; ++i)
        if (c.pattern[i] != t->toks[i]) c.pattern[i] = kWild;
      if (!was_wild && c.pattern[0] == kWild)
        wild_first.insert(std::lower_bound(wild_first.begin(), wild_first.end(), best), best);
      c.members.push_back(t);
    }
    for (const auto& c : clusters) {
      if (c.members.size() < 2) continue;
      auto distinct = [&](const std::vector<const Tmpl*>& ms, size_t i) {
        std::vector<std::string_view> v;
        for (const Tmpl* m : ms) v.push_back(m->toks[i]);
        std::sort(v.begin(), v.end());
        return static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin());
      };
      std::vector<size_t> low;  // varying positions with too few values: they tell statements apart
      for (size_t i = 0; i < n; ++i) {
        const size_t d = distinct(c.members, i);
        if (d < 2 || d >= static_cast<size_t>(o.min_values)) continue;
        // mine-v2: where the model masked a value in some member, the tokens
        // differ in the value's shape ("<*>" / "<*>,<*>"), not as two
        // statements' words. Not the first token: a leading %s is read as a
        // prefix (format_bank.h), which the model masks otherwise.
        const bool masked = i > 0 && std::any_of(c.members.begin(), c.members.end(), [&](const Tmpl* m) {
          return m->toks[i].find(kWild) != std::string_view::npos;
        });
        if (!masked) low.push_back(i);
      }
      std::vector<std::vector<const Tmpl*>> parts;  // in order of their first member
      std::unordered_map<std::string, size_t> part_of;
      for (const Tmpl* m : c.members) {
        std::string key;
        for (size_t i : low) {
          key.append(m->toks[i]);
          key.push_back('\x1f');
        }
        auto [it, added] = part_of.try_emplace(std::move(key), parts.size());
        if (added) parts.emplace_back();
        parts[it->second].push_back(m);
      }
      for (const auto& ms : parts) {
        if (ms.size() < 2) continue;
        std::vector<bool> slot(n);
        std::vector<Affix> affix(n);
        bool varies = false;
        for (size_t i = 0; i < n; ++i) {
          varies |= slot[i] = distinct(ms, i) > 1;
          if (slot[i]) affix[i] = common_affix(ms, i);
        }
        if (!varies) continue;  // the same tokens, other blanks: nothing to learn
        std::string f = format_of(*ms[0], slot, affix);
        FormatBank::Format parsed;  // the bank's own reading: what it would skip, the miner leaves out
        if (!FormatBank::parse(f, &parsed) || parsed.literal_chars < static_cast<uint32_t>(FormatBank::kMinLiteral))
          continue;
        auto& mf = found[f];
        if (mf.format.empty()) {  // the first part that gives this format names its slots' words
          mf.format = f;
          for (size_t i = 0; i < n; ++i) {
            if (!slot[i]) continue;
            MinedFormat::Slot sl;
            std::unordered_set<std::string_view> seen;
            for (const Tmpl* m : ms) {
              const std::string_view v = m->toks[i];
              if (!seen.insert(v).second) continue;
              if (sl.examples.size() < MinedFormat::kExampleValues) sl.examples.emplace_back(v);
            }
            sl.values = static_cast<uint32_t>(seen.size());
            mf.slots.push_back(std::move(sl));
          }
        }
        for (const Tmpl* m : ms) mf.lines += m->count;
        mf.templates += static_cast<uint32_t>(ms.size());
      }
    }
  }
  std::vector<MinedFormat> out;
  out.reserve(found.size());
  for (auto& [f, mf] : found) out.push_back(std::move(mf));
  return out;
}

std::string BankMiner::bank_text(const std::vector<MinedFormat>& formats, const MineOptions& o,
                                 uint64_t sample_lines, size_t sample_templates) {
  char head[512];
  std::snprintf(head, sizeof head,
                "# logsift format bank, mined by `logsift mine` (%s, similarity %.2f, min values %d)\n"
                "# from %llu sample lines, %zu templates: %zu formats. One printf-style format a line\n"
                "# (pipeline/stages/format_bank.h); the comment above each says how many sample lines\n"
                "# and templates it joins and which words its slots took there. Review it: delete a\n"
                "# format whose words tell statements apart. Then serve it with format_bank.\n",
                kVersion, o.similarity, o.min_values, static_cast<unsigned long long>(sample_lines),
                sample_templates, formats.size());
  std::string out = head;
  for (const auto& f : formats) {
    out += "# " + std::to_string(f.lines) + " lines, " + std::to_string(f.templates) + " templates";
    const char* sep = "; words: ";
    for (const auto& sl : f.slots) {
      out += sep;
      sep = " | ";
      for (size_t k = 0; k < sl.examples.size(); ++k) {
        if (k) out += ' ';
        for (char c : sl.examples[k]) out += (c == '\n' || c == '\r') ? ' ' : c;  // a comment is one line
      }
      if (sl.values > sl.examples.size()) out += " (" + std::to_string(sl.values) + " in all)";
    }
    out += '\n';
    for (char c : f.format) {
      if (c == '\\') {
        out += "\\\\";
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += c;
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace logsift
