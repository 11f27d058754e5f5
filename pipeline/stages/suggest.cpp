#include "pipeline/stages/suggest.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "lsh/lsh.h"
#include "pipeline/stages/format_bank.h"

namespace logsift {

std::string suggestion_id(uint64_t into, std::vector<uint64_t> members) {
  std::sort(members.begin(), members.end());
  std::string key = lsh::format_id(into);
  for (uint64_t m : members) key += "," + lsh::format_id(m);
  return lsh::format_id(lsh::stable_hash64(key));
}

std::vector<SuggestedMerge> suggest_merges(const std::vector<ClusterTemplate>& rows, const MineOptions& options) {
  BankMiner miner;
  for (const auto& r : rows) miner.add(r.template_text, r.count);
  const auto formats = miner.mine(options);
  std::vector<std::string> texts;
  std::unordered_map<std::string, const MinedFormat*> by_text;
  for (const auto& f : formats) {
    texts.push_back(f.format);
    by_text[f.format] = &f;
  }
  // Any number of words in a slot: a template's <*> stands for a whole value.
  const FormatBank bank = FormatBank::from_formats(texts, 0);
  std::map<uint32_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i)
    if (auto m = bank.match(rows[i].template_text)) groups[m->format].push_back(i);
  std::vector<SuggestedMerge> out;
  for (auto& [format, members] : groups) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end(), [&rows](size_t a, size_t b) {
      return rows[a].count != rows[b].count ? rows[a].count > rows[b].count : rows[a].cluster_id < rows[b].cluster_id;
    });
    SuggestedMerge s;
    std::vector<uint64_t> others;
    for (size_t k = 1; k < members.size(); ++k) others.push_back(rows[members[k]].cluster_id);
    s.id = suggestion_id(rows[members[0]].cluster_id, std::move(others));
    s.template_text = bank.render(format);
    for (size_t m : members) s.lines += rows[m].count;
    if (auto it = by_text.find(bank.formats()[format].text); it != by_text.end()) s.slots = it->second->slots;
    s.members = std::move(members);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const SuggestedMerge& a, const SuggestedMerge& b) { return a.lines > b.lines; });
  return out;
}

}  // namespace logsift
