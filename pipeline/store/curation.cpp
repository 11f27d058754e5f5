#include "pipeline/store/curation.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <xxhash.h>

#include "lsh/lsh.h"
#include "pipeline/core/params.h"
#include "pipeline/core/time.h"
#include "pipeline/store/contract_store.h"
#include "pipeline/store/curation_store.h"

namespace logsift {

using nlohmann::json;

const char* kind_name(CurationKind k) {
  switch (k) {
    case CurationKind::kMerge: return "merge";
    case CurationKind::kName: return "name";
    case CurationKind::kMute: return "mute";
    case CurationKind::kUndo: return "undo";
    case CurationKind::kAccept: return "accept";
    case CurationKind::kReject: return "reject";
    case CurationKind::kValue: return "value";
    case CurationKind::kSplit: return "split";
  }
  return "?";
}

std::string CurationAction::to_text() const {
  json j = {{"kind", kind_name(kind)}, {"at_ms", at_ms}, {"by", by}};
  if (kind == CurationKind::kMerge || kind == CurationKind::kName || kind == CurationKind::kMute ||
      kind == CurationKind::kValue || kind == CurationKind::kSplit)
    j["cluster_id"] = lsh::format_id(cluster_id);
  switch (kind) {
    case CurationKind::kMerge: j["into"] = lsh::format_id(into); break;
    case CurationKind::kName:
      j["name"] = name;
      j["note"] = note;
      if (metric) j["metric"] = true;
      break;
    case CurationKind::kMute: j["until_ms"] = until_ms; break;
    case CurationKind::kUndo: j["undoes"] = undoes; break;
    case CurationKind::kAccept: {
      j["suggestion"] = suggestion;
      j["into"] = lsh::format_id(into);
      json m = json::array();
      for (uint64_t id : members) m.push_back(lsh::format_id(id));
      j["members"] = std::move(m);
      break;
    }
    case CurationKind::kReject: j["suggestion"] = suggestion; break;
    case CurationKind::kSplit:
      j["position"] = position;
      j["pattern"] = pattern;
      break;
    case CurationKind::kValue: {
      j["position"] = position;
      j["pattern"] = pattern;
      json m = json::array();
      for (uint64_t id : members) m.push_back(lsh::format_id(id));
      j["members"] = std::move(m);
      break;
    }
  }
  return j.dump();
}

CurationAction CurationAction::from_text(const std::string& text, int64_t seq) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw std::invalid_argument("curation action " + std::to_string(seq) + " is not a JSON object");
  CurationAction a;
  a.seq = seq;
  a.at_ms = j.value("at_ms", int64_t{0});
  a.by = j.value("by", std::string());
  const std::string kind = j.value("kind", std::string());
  auto id = [&](const char* key) {
    uint64_t v = 0;
    if (!lsh::parse_id(j.value(key, std::string()), &v))
      throw std::invalid_argument("curation action " + std::to_string(seq) + ": bad " + key);
    return v;
  };
  if (kind == "merge") {
    a.kind = CurationKind::kMerge;
    a.cluster_id = id("cluster_id");
    a.into = id("into");
  } else if (kind == "name") {
    a.kind = CurationKind::kName;
    a.cluster_id = id("cluster_id");
    a.name = j.value("name", std::string());
    a.note = j.value("note", std::string());
    a.metric = j.value("metric", false);
  } else if (kind == "mute") {
    a.kind = CurationKind::kMute;
    a.cluster_id = id("cluster_id");
    a.until_ms = j.value("until_ms", int64_t{0});
  } else if (kind == "undo") {
    a.kind = CurationKind::kUndo;
    a.undoes = j.value("undoes", int64_t{0});
  } else if (kind == "value") {
    a.kind = CurationKind::kValue;
    a.cluster_id = id("cluster_id");
    a.position = j.value("position", int64_t{-1});
    a.pattern = j.value("pattern", std::string());
    if (const auto m = j.find("members"); m != j.end() && m->is_array())
      for (const auto& x : *m) {
        uint64_t v = 0;
        if (x.is_string() && lsh::parse_id(x.get<std::string>(), &v)) a.members.push_back(v);
      }
  } else if (kind == "split") {
    a.kind = CurationKind::kSplit;
    a.cluster_id = id("cluster_id");
    a.position = j.value("position", int64_t{-1});
    a.pattern = j.value("pattern", std::string());
  } else if (kind == "accept" || kind == "reject") {
    a.kind = kind == "accept" ? CurationKind::kAccept : CurationKind::kReject;
    a.suggestion = j.value("suggestion", std::string());
    if (a.kind == CurationKind::kAccept) {
      a.into = id("into");
      const auto m = j.find("members");
      if (m == j.end() || !m->is_array())
        throw std::invalid_argument("curation action " + std::to_string(seq) + ": bad members");
      for (const auto& x : *m) {
        uint64_t v = 0;
        if (!x.is_string() || !lsh::parse_id(x.get<std::string>(), &v))
          throw std::invalid_argument("curation action " + std::to_string(seq) + ": bad members");
        a.members.push_back(v);
      }
    }
  } else {
    throw std::invalid_argument("curation action " + std::to_string(seq) + ": unknown kind '" + kind + "'");
  }
  return a;
}

std::vector<std::string> template_words(std::string_view t) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < t.size()) {
    while (i < t.size() && t[i] == ' ') ++i;
    const size_t b = i;
    while (i < t.size() && t[i] != ' ') ++i;
    if (i > b) out.emplace_back(t.substr(b, i - b));
  }
  return out;
}

bool ValueRule::matches(std::string_view t) const {
  size_t i = 0, w = 0;
  while (i < t.size()) {
    while (i < t.size() && t[i] == ' ') ++i;
    const size_t b = i;
    while (i < t.size() && t[i] != ' ') ++i;
    if (i == b) break;
    if (w >= words.size()) return false;
    if (words[w] != "<*>" && t.substr(b, i - b) != words[w]) return false;
    ++w;
  }
  return w == words.size();
}

uint64_t split_part_id(uint64_t cluster_id, int64_t position, std::string_view value) {
  // Seeded by the cluster and the word: the same value in another cluster,
  // or at another word, is another part.
  const uint64_t seed = cluster_id ^ (static_cast<uint64_t>(position) + 1) * 0x9E3779B97F4A7C15ULL;
  uint64_t id = XXH3_64bits_withSeed(value.data(), value.size(), seed);
  if (id == cluster_id || id == 0) id = ~id;
  return id;
}

std::optional<SplitPart> split_part(const SplitRule& rule, std::string_view template_text, std::string_view text) {
  const auto words = template_words(template_text);
  if (rule.position < 0 || rule.position >= static_cast<int64_t>(words.size())) return std::nullopt;
  const size_t pos = static_cast<size_t>(rule.position);
  auto holes = [](std::string_view w) {
    size_t n = 0;
    for (size_t at = w.find("<*>"); at != std::string_view::npos; at = w.find("<*>", at + 3)) ++n;
    return n;
  };
  const size_t here = holes(words[pos]);
  if (here == 0) return std::nullopt;
  size_t before = 0;
  for (size_t i = 0; i < pos; ++i) before += holes(words[i]);
  std::vector<std::string_view> params;
  if (!template_params(template_text, text, &params) || params.size() < before + here) return std::nullopt;
  SplitPart part;
  size_t k = before;
  const std::string& w = words[pos];
  for (size_t i = 0; i < w.size();) {
    if (w.compare(i, 3, "<*>") == 0) {
      part.value += params[k++];
      i += 3;
    } else {
      part.value += w[i++];
    }
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) part.template_text += ' ';
    part.template_text += i == pos ? part.value : words[i];
  }
  part.cluster_id = split_part_id(rule.cluster_id, rule.position, part.value);
  return part;
}

std::vector<uint64_t> CurationState::members(uint64_t id) const {
  std::vector<uint64_t> out;
  for (const auto& [from, to] : merged_into)
    if (to == id) out.push_back(from);
  return out;
}

CurationState fold(std::vector<CurationAction> actions, const IdTranslator& translate) {
  // Each id as the contract served knows it: itself, or its parts.
  auto now = [&translate](uint64_t id) {
    std::vector<uint64_t> to = translate ? translate(id) : std::vector<uint64_t>();
    if (to.empty()) to.push_back(id);
    return to;
  };
  CurationState s;
  s.version = static_cast<int64_t>(actions.size());
  for (const auto& a : actions)
    if (a.kind == CurationKind::kUndo) s.undone.insert(a.undoes);
  // Direct edges, in order; a later action on a cluster replaces an earlier one.
  std::unordered_map<uint64_t, uint64_t> edge;
  for (const auto& a : actions) {
    if (a.kind == CurationKind::kUndo || s.undone.count(a.seq)) continue;
    switch (a.kind) {
      case CurationKind::kMerge: {
        const uint64_t into = now(a.into).front();
        for (uint64_t from : now(a.cluster_id))
          if (from != into) edge[from] = into;
        break;
      }
      case CurationKind::kName:
        for (uint64_t id : now(a.cluster_id)) {
          s.names[id] = {a.name, a.note, a.seq};
          if (a.metric) s.pinned.insert(id);
          else s.pinned.erase(id);  // named again without it: no longer exported
        }
        break;
      case CurationKind::kMute:
        for (uint64_t id : now(a.cluster_id))
          s.muted_until[id] = a.until_ms == 0 ? std::numeric_limits<int64_t>::max() : a.until_ms;
        break;
      case CurationKind::kAccept: {
        const uint64_t into = now(a.into).front();
        for (uint64_t member : a.members)
          for (uint64_t from : now(member))
            if (from != into) edge[from] = into;
        break;
      }
      case CurationKind::kReject: s.rejected.insert(a.suggestion); break;
      case CurationKind::kValue: {
        const uint64_t into = now(a.cluster_id).front();
        for (uint64_t member : a.members)
          for (uint64_t from : now(member))
            if (from != into) edge[from] = into;
        s.value_rules.push_back({into, template_words(a.pattern), a.seq});
        break;
      }
      case CurationKind::kSplit:
        // A part's id derives from the cluster's id: after a migration
        // the parts of the cluster's new ids are new ids too.
        for (uint64_t id : now(a.cluster_id)) s.splits[id] = {id, a.position, a.seq};
        break;
      case CurationKind::kUndo: break;
    }
  }
  // Chains resolved: a cluster merged into one that was merged later goes to
  // the last. check() keeps the graph free of cycles; the bound guards a log
  // written by hand.
  for (const auto& [from, to] : edge) {
    uint64_t at = to;
    for (size_t hops = 0; hops <= edge.size(); ++hops) {
      auto it = edge.find(at);
      if (it == edge.end() || it->second == from) break;
      at = it->second;
    }
    if (at != from) s.merged_into[from] = at;
  }
  s.actions = std::move(actions);
  return s;
}

std::optional<CurationRefusal> check(const CurationState& s, const CurationAction& a,
                                     const std::function<bool(uint64_t)>& known, size_t max_pinned) {
  auto id = [](uint64_t v) { return lsh::format_id(v); };
  auto merged = [&](uint64_t v) -> std::optional<CurationRefusal> {
    if (auto it = s.merged_into.find(v); it != s.merged_into.end())
      return CurationRefusal{409, "cluster " + id(v) + " is merged into " + id(it->second) + ": act on " +
                                      id(it->second) + ", or undo that merge first"};
    return std::nullopt;
  };
  switch (a.kind) {
    case CurationKind::kMerge:
      if (a.cluster_id == a.into) return CurationRefusal{400, "a cluster cannot be merged into itself"};
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      if (!known(a.into)) return CurationRefusal{404, "no cluster " + id(a.into) + " to merge into"};
      if (auto r = merged(a.cluster_id)) return r;
      if (auto r = merged(a.into)) return r;
      return std::nullopt;
    case CurationKind::kName:
      if (a.name.empty() || a.name.size() > 200) return CurationRefusal{400, "'name' must be 1 to 200 bytes"};
      if (a.note.size() > 4000) return CurationRefusal{400, "'note' must be at most 4000 bytes"};
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      if (a.metric && !s.pinned.count(a.cluster_id) && s.pinned.size() >= max_pinned)
        return CurationRefusal{409, "already " + std::to_string(s.pinned.size()) +
                                        " clusters are exported as metrics (curation_max_metric_series): "
                                        "name one again without \"metric\" first"};
      return merged(a.cluster_id);
    case CurationKind::kMute:
      if (a.until_ms < 0) return CurationRefusal{400, "'until' must be a time, or absent for good"};
      if (a.until_ms != 0 && a.until_ms <= a.at_ms) return CurationRefusal{400, "'until' is in the past"};
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      return merged(a.cluster_id);
    case CurationKind::kAccept: {
      if (a.members.empty()) return CurationRefusal{400, "a suggestion merges at least one cluster"};
      if (!known(a.into)) return CurationRefusal{404, "no cluster " + id(a.into) + " to merge into"};
      if (auto r = merged(a.into)) return r;
      for (uint64_t m : a.members) {
        if (m == a.into) return CurationRefusal{400, "a cluster cannot be merged into itself"};
        if (!known(m)) return CurationRefusal{404, "no cluster " + id(m)};
        if (auto r = merged(m)) return r;
      }
      return std::nullopt;
    }
    case CurationKind::kValue: {
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      if (auto r = merged(a.cluster_id)) return r;
      const auto words = template_words(a.pattern);
      if (a.position < 0 || a.position >= static_cast<int64_t>(words.size()) ||
          words[static_cast<size_t>(a.position)] != "<*>")
        return CurationRefusal{400, "'position' must be the number (from 0) of a word of the template"};
      for (const auto& r : s.value_rules)
        if (r.cluster_id == s.resolve(a.cluster_id) && r.words == words)
          return CurationRefusal{409, "that word is a value already (action " + std::to_string(r.seq) + ")"};
      for (uint64_t m : a.members)
        if (m != a.cluster_id)
          if (auto r = merged(m)) return r;
      return std::nullopt;
    }
    case CurationKind::kSplit: {
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      if (auto r = merged(a.cluster_id)) return r;
      const auto words = template_words(a.pattern);
      if (a.position < 0 || a.position >= static_cast<int64_t>(words.size()) ||
          words[static_cast<size_t>(a.position)].find("<*>") == std::string::npos)
        return CurationRefusal{400, "'position' must be the number (from 0) of a word of the template with a value"};
      if (const SplitRule* r = s.split_of(a.cluster_id))
        return CurationRefusal{409, "cluster " + id(a.cluster_id) + " is split already (action " + std::to_string(r->seq) +
                                        "): undo that first"};
      return std::nullopt;
    }
    case CurationKind::kReject:
      if (a.suggestion.empty()) return CurationRefusal{400, "no suggestion named"};
      if (s.rejected.count(a.suggestion)) return CurationRefusal{409, "suggestion " + a.suggestion + " is rejected already"};
      return std::nullopt;
    case CurationKind::kUndo: {
      if (a.undoes < 1 || a.undoes > s.version) return CurationRefusal{404, "no curation action " + std::to_string(a.undoes)};
      const CurationAction& target = s.actions[static_cast<size_t>(a.undoes - 1)];
      if (target.kind == CurationKind::kUndo)
        return CurationRefusal{409, "action " + std::to_string(a.undoes) + " is an undo: take the action again instead"};
      if (s.undone.count(a.undoes)) return CurationRefusal{409, "action " + std::to_string(a.undoes) + " is undone already"};
      return std::nullopt;
    }
  }
  return CurationRefusal{400, "unknown action"};
}

namespace {

std::shared_ptr<const CurationState> read_log(CurationStore& store, const IdTranslator& translate) {
  const std::vector<std::string> log = store.curation_log();
  std::vector<CurationAction> actions;
  actions.reserve(log.size());
  for (size_t i = 0; i < log.size(); ++i) actions.push_back(CurationAction::from_text(log[i], static_cast<int64_t>(i) + 1));
  return std::make_shared<const CurationState>(fold(std::move(actions), translate));
}

}  // namespace

void refresh_curation(CurationStore& store, Curation& curation, bool force) {
  if (!force && store.curation_size() == curation.get()->version) return;
  curation.set(read_log(store, curation.translator()));
}

IdTranslator id_map_translator(ContractStore& store) {
  return [&store](uint64_t id) {
    std::vector<uint64_t> out;
    for (const IdMapping& m : store.migrated(id)) {
      // Later migrations: the largest part of each part, a few hops at most.
      uint64_t at = m.new_id;
      for (int hop = 0; hop < 8; ++hop) {
        const auto next = store.migrated(at);
        if (next.empty() || next.front().new_id == at) break;
        at = next.front().new_id;
      }
      if (std::find(out.begin(), out.end(), at) == out.end()) out.push_back(at);
    }
    return out;
  };
}

std::optional<CurationRefusal> take_action(CurationStore& store, Curation& curation, CurationAction& a,
                                           const std::function<bool(uint64_t)>& known, size_t max_pinned) {
  constexpr int kAttempts = 4;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto state = read_log(store, curation.translator());
    curation.set(state);
    if (auto r = check(*state, a, known, max_pinned)) return r;
    a.seq = state->version + 1;
    if (!store.append_curation(state->version, a.to_text())) continue;  // another action came in between
    std::vector<CurationAction> actions = state->actions;
    actions.push_back(a);
    curation.set(std::make_shared<const CurationState>(fold(std::move(actions), curation.translator())));
    return std::nullopt;
  }
  return CurationRefusal{409, "the curation changed while this action was checked, again and again: retry"};
}

json export_action(const CurationAction& a, bool undone) {
  json j = json::parse(a.to_text());
  j.erase("at_ms");
  j["seq"] = a.seq;
  j["at"] = format_time_ms(a.at_ms);
  if (a.kind == CurationKind::kMute) {
    j.erase("until_ms");
    j["until"] = a.until_ms == 0 ? json(nullptr) : json(format_time_ms(a.until_ms));
  }
  if (a.kind != CurationKind::kUndo) j["undone"] = undone;
  return j;
}

namespace {

// An exported action back as one to take (seq, at and by are this store's).
CurationAction imported(const json& j, size_t index) {
  const std::string where = "curation file: action " + std::to_string(index + 1);
  if (!j.is_object()) throw std::invalid_argument(where + " is not an object");
  json stored = j;
  stored.erase("seq");
  stored.erase("at");
  stored.erase("undone");
  if (auto u = j.find("until"); u != j.end()) {
    stored.erase("until");
    if (u->is_string()) {
      const auto t = parse_rfc3339_ms(u->get<std::string>());
      if (!t) throw std::invalid_argument(where + ": 'until' is not an RFC 3339 time");
      stored["until_ms"] = *t;
    } else if (!u->is_null()) {
      throw std::invalid_argument(where + ": 'until' must be a time or null");
    }
  }
  try {
    return CurationAction::from_text(stored.dump(), 0);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

bool in_effect(const CurationState& s, const CurationAction& a) {
  switch (a.kind) {
    case CurationKind::kMerge: {
      auto it = s.merged_into.find(a.cluster_id);
      return it != s.merged_into.end() && it->second == s.resolve(a.into);
    }
    case CurationKind::kName: {
      const auto* n = s.named(a.cluster_id);
      return n && n->name == a.name && n->note == a.note && s.pinned.count(a.cluster_id) == (a.metric ? 1u : 0u);
    }
    case CurationKind::kMute: {
      auto it = s.muted_until.find(a.cluster_id);
      const int64_t until = a.until_ms == 0 ? std::numeric_limits<int64_t>::max() : a.until_ms;
      return it != s.muted_until.end() && it->second == until;
    }
    case CurationKind::kAccept:
      for (uint64_t m : a.members)
        if (s.resolve(m) != s.resolve(a.into)) return false;
      return true;
    case CurationKind::kReject: return s.rejected.count(a.suggestion) > 0;
    case CurationKind::kValue:
      return std::any_of(s.value_rules.begin(), s.value_rules.end(), [&](const ValueRule& r) {
        return r.cluster_id == s.resolve(a.cluster_id) && r.words == template_words(a.pattern);
      });
    case CurationKind::kSplit: {
      const SplitRule* r = s.split_of(a.cluster_id);
      return r && r->position == a.position;
    }
    case CurationKind::kUndo: return true;
  }
  return true;
}

}  // namespace

CurationImport import_curation(CurationStore& store, Curation& curation, const json& file, const std::string& by,
                               int64_t now_ms, size_t max_pinned) {
  const json& actions = file.is_object() && file.contains("actions") ? file["actions"] : file;
  if (!actions.is_array()) throw std::invalid_argument("curation file: expected GET /curation's JSON or its \"actions\" array");
  // Read whole first: a bad file changes nothing.
  std::vector<std::pair<CurationAction, bool>> wanted;  // (action, undone there)
  for (size_t i = 0; i < actions.size(); ++i) {
    CurationAction a = imported(actions[i], i);
    const auto u = actions[i].find("undone");
    wanted.emplace_back(std::move(a), u != actions[i].end() && u->is_boolean() && u->get<bool>());
  }
  CurationImport report;
  const auto any_id = [](uint64_t) { return true; };
  for (size_t i = 0; i < wanted.size(); ++i) {
    auto& [a, undone] = wanted[i];
    if (a.kind == CurationKind::kUndo || undone) continue;  // the file's end state is what is applied
    refresh_curation(store, curation);
    if (in_effect(*curation.get(), a)) {
      ++report.in_effect;
      continue;
    }
    a.at_ms = now_ms;
    a.by = by;
    if (auto r = take_action(store, curation, a, any_id, max_pinned))
      report.refused.push_back("action " + std::to_string(i + 1) + ": " + r->reason);
    else
      ++report.taken;
  }
  return report;
}

}  // namespace logsift
