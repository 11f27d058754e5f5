#include "pipeline/eval/curate.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "pipeline/eval/eval.h"
#include "pipeline/stages/suggest.h"
#include "pipeline/store/curation.h"

namespace logsift::eval {
namespace {

// cluster -> the cluster its lines go to (chains resolved as the fold
// does), and the value rules, which match a line by its template.
struct Merges {
  std::unordered_map<uint64_t, uint64_t> into;
  std::vector<ValueRule> rules;
  uint64_t line(uint64_t id, const std::string& tmpl) const {
    if (into.count(id)) return resolve(id);
    for (const auto& r : rules)
      if (r.matches(tmpl)) return resolve(r.cluster_id);
    return id;
  }
  uint64_t resolve(uint64_t id) const {
    for (int hop = 0; hop < 64; ++hop) {
      auto it = into.find(id);
      if (it == into.end()) return id;
      id = it->second;
    }
    return id;
  }
  void merge(uint64_t from, uint64_t to) {
    from = resolve(from);
    to = resolve(to);
    if (from != to) into[from] = to;
  }
};

std::vector<uint64_t> applied(const Merges& m, const std::vector<uint64_t>& ids, const std::vector<std::string>& templates,
                              size_t begin, size_t end) {
  std::vector<uint64_t> out;
  for (size_t i = begin; i < end; ++i) out.push_back(m.line(ids[i], templates[i]));
  return out;
}

// The one word where two templates differ, or -1.
int64_t one_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return -1;
  int64_t at = -1;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) {
      if (at >= 0) return -1;
      at = static_cast<int64_t>(i);
    }
  return at;
}

}  // namespace

CurationScore simulate_curation(const std::vector<std::string>& truth, const std::vector<uint64_t>& ids,
                                const std::vector<std::string>& templates, size_t manual) {
  CurationScore s;
  const size_t half = truth.size() / 2;
  s.lines_seen = half;
  s.lines_other = truth.size() - half;
  const std::vector<std::string> truth_seen(truth.begin(), truth.begin() + static_cast<long>(half));
  const std::vector<std::string> truth_other(truth.begin() + static_cast<long>(half), truth.end());
  Merges m;
  s.ga_before_seen = grouping_accuracy(truth_seen, applied(m, ids, templates, 0, half));
  s.ga_before_other = grouping_accuracy(truth_other, applied(m, ids, templates, half, truth.size()));

  // What the first half shows: each cluster's template, count and the
  // labels of its lines.
  std::map<uint64_t, std::map<std::string, uint64_t>> labels;  // cluster -> label -> lines
  std::map<uint64_t, size_t> first_line;
  for (size_t i = 0; i < half; ++i) {
    ++labels[ids[i]][truth[i]];
    first_line.emplace(ids[i], i);
  }
  auto majority = [&labels](uint64_t id) {
    const auto& l = labels.at(id);
    return std::max_element(l.begin(), l.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  };
  std::vector<ClusterTemplate> rows;
  for (const auto& [id, l] : labels) {
    uint64_t n = 0;
    for (const auto& [label, k] : l) n += k;
    rows.push_back({id, templates[first_line.at(id)], n});
  }
  // Suggestions: accepted when their clusters are one event.
  for (const auto& sug : suggest_merges(rows)) {
    ++s.suggested;
    const std::string event = majority(rows[sug.members.front()].cluster_id);
    const bool one = std::all_of(sug.members.begin(), sug.members.end(),
                                 [&](size_t k) { return majority(rows[k].cluster_id) == event; });
    std::vector<uint64_t> members;
    for (size_t k : sug.members) members.push_back(rows[k].cluster_id);
    if (!one) {
      ++s.rejected;
      s.steps.push_back({"reject", 0, 0, -1, std::move(members)});
      continue;
    }
    ++s.accepted;
    s.steps.push_back({"accept", 0, rows[sug.members[0]].cluster_id, -1,
                       std::vector<uint64_t>(members.begin() + 1, members.end())});
    for (size_t k = 1; k < sug.members.size(); ++k) m.merge(rows[sug.members[k]].cluster_id, rows[sug.members[0]].cluster_id);
  }
  // Actions by hand: the pieces of split events, most lines first. Where
  // an event's pieces differ from its largest piece in one word of the
  // template, the same word each time, that word is a value (one action
  // for every piece, and for the words to come); else a piece is merged.
  std::map<std::string, std::map<uint64_t, uint64_t>> pieces;  // event -> resolved cluster -> its lines of it
  std::map<uint64_t, std::string> template_of;                // resolved cluster -> a template of its lines
  for (size_t i = 0; i < half; ++i) {
    ++pieces[truth[i]][m.resolve(ids[i])];
    template_of.emplace(ids[i], templates[i]);
  }
  struct Candidate {
    uint64_t lines, from, to;
    int64_t position = -1;  // a value rule on `to` at this word
  };
  std::vector<Candidate> candidates;
  for (const auto& [event, by_cluster] : pieces) {
    if (by_cluster.size() < 2) continue;
    const auto largest = std::max_element(by_cluster.begin(), by_cluster.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
    // A value rule: every other piece one word off the largest, at one place,
    // and every cluster of the half the rule would join mostly this event.
    if (template_of.count(largest->first)) {
      const auto base = template_words(template_of.at(largest->first));
      std::map<int64_t, uint64_t> at;  // word -> lines of the pieces differing there
      for (const auto& [cluster, n] : by_cluster)
        if (cluster != largest->first && template_of.count(cluster))
          if (int64_t p = one_difference(base, template_words(template_of.at(cluster))); p >= 0) at[p] += n;
      if (!at.empty()) {
        const auto best = std::max_element(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
        ValueRule rule{largest->first, base, 0};
        rule.words[static_cast<size_t>(best->first)] = "<*>";
        bool pure = true;
        for (const auto& [id, tmpl] : template_of)
          if (rule.matches(tmpl) && majority(id) != event) pure = false;
        if (pure) {
          candidates.push_back({best->second, largest->first, largest->first, best->first});
          continue;
        }
      }
    }
    for (const auto& [cluster, n] : by_cluster) {
      if (cluster == largest->first) continue;
      // Only a piece that is mostly this event: merging a mixed cluster
      // would join other events to it.
      uint64_t total = 0, mine = 0;
      for (const auto& [id, l] : labels)
        if (m.resolve(id) == cluster)
          for (const auto& [label, k] : l) {
            total += k;
            if (label == event) mine += k;
          }
      if (mine * 2 > total) candidates.push_back({n, cluster, largest->first});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.lines > b.lines; });
  for (const auto& c : candidates) {
    if (s.manual == manual) break;
    if (c.position >= 0) {
      ValueRule rule{c.to, template_words(template_of.at(c.to)), 0};
      rule.words[static_cast<size_t>(c.position)] = "<*>";
      m.rules.push_back(std::move(rule));
      ++s.manual;
      ++s.values;
      s.steps.push_back({"value", c.to, 0, c.position, {}});
      continue;
    }
    if (m.resolve(c.from) == m.resolve(c.to)) continue;
    // As the API takes it: the cluster the piece's lines go to now, into
    // the one the largest piece's lines go to.
    s.steps.push_back({"merge", m.resolve(c.from), m.resolve(c.to), -1, {}});
    m.merge(c.from, c.to);
    ++s.manual;
  }
  s.ga_after_seen = grouping_accuracy(truth_seen, applied(m, ids, templates, 0, half));
  s.ga_after_other = grouping_accuracy(truth_other, applied(m, ids, templates, half, truth.size()));
  return s;
}

}  // namespace logsift::eval
