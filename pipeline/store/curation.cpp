#include "pipeline/store/curation.h"

#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/store/curation_store.h"

namespace logsift {

using nlohmann::json;

const char* kind_name(CurationKind k) {
  switch (k) {
    case CurationKind::kMerge: return "merge";
    case CurationKind::kName: return "name";
    case CurationKind::kMute: return "mute";
    case CurationKind::kUndo: return "undo";
  }
  return "?";
}

std::string CurationAction::to_text() const {
  json j = {{"kind", kind_name(kind)}, {"at_ms", at_ms}, {"by", by}};
  if (kind != CurationKind::kUndo) j["cluster_id"] = lsh::format_id(cluster_id);
  switch (kind) {
    case CurationKind::kMerge: j["into"] = lsh::format_id(into); break;
    case CurationKind::kName:
      j["name"] = name;
      j["note"] = note;
      break;
    case CurationKind::kMute: j["until_ms"] = until_ms; break;
    case CurationKind::kUndo: j["undoes"] = undoes; break;
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
  } else if (kind == "mute") {
    a.kind = CurationKind::kMute;
    a.cluster_id = id("cluster_id");
    a.until_ms = j.value("until_ms", int64_t{0});
  } else if (kind == "undo") {
    a.kind = CurationKind::kUndo;
    a.undoes = j.value("undoes", int64_t{0});
  } else {
    throw std::invalid_argument("curation action " + std::to_string(seq) + ": unknown kind '" + kind + "'");
  }
  return a;
}

std::vector<uint64_t> CurationState::members(uint64_t id) const {
  std::vector<uint64_t> out;
  for (const auto& [from, to] : merged_into)
    if (to == id) out.push_back(from);
  return out;
}

CurationState fold(std::vector<CurationAction> actions) {
  CurationState s;
  s.version = static_cast<int64_t>(actions.size());
  for (const auto& a : actions)
    if (a.kind == CurationKind::kUndo) s.undone.insert(a.undoes);
  // Direct edges, in order; a later action on a cluster replaces an earlier one.
  std::unordered_map<uint64_t, uint64_t> edge;
  for (const auto& a : actions) {
    if (a.kind == CurationKind::kUndo || s.undone.count(a.seq)) continue;
    switch (a.kind) {
      case CurationKind::kMerge: edge[a.cluster_id] = a.into; break;
      case CurationKind::kName: s.names[a.cluster_id] = {a.name, a.note, a.seq}; break;
      case CurationKind::kMute:
        s.muted_until[a.cluster_id] = a.until_ms == 0 ? std::numeric_limits<int64_t>::max() : a.until_ms;
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
                                     const std::function<bool(uint64_t)>& known) {
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
      return merged(a.cluster_id);
    case CurationKind::kMute:
      if (a.until_ms < 0) return CurationRefusal{400, "'until' must be a time, or absent for good"};
      if (a.until_ms != 0 && a.until_ms <= a.at_ms) return CurationRefusal{400, "'until' is in the past"};
      if (!known(a.cluster_id)) return CurationRefusal{404, "no cluster " + id(a.cluster_id)};
      return merged(a.cluster_id);
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

std::shared_ptr<const CurationState> read_log(CurationStore& store) {
  const std::vector<std::string> log = store.curation_log();
  std::vector<CurationAction> actions;
  actions.reserve(log.size());
  for (size_t i = 0; i < log.size(); ++i) actions.push_back(CurationAction::from_text(log[i], static_cast<int64_t>(i) + 1));
  return std::make_shared<const CurationState>(fold(std::move(actions)));
}

}  // namespace

void refresh_curation(CurationStore& store, Curation& curation) {
  if (store.curation_size() == curation.get()->version) return;
  curation.set(read_log(store));
}

std::optional<CurationRefusal> take_action(CurationStore& store, Curation& curation, CurationAction& a,
                                           const std::function<bool(uint64_t)>& known) {
  constexpr int kAttempts = 4;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto state = read_log(store);
    curation.set(state);
    if (auto r = check(*state, a, known)) return r;
    a.seq = state->version + 1;
    if (!store.append_curation(state->version, a.to_text())) continue;  // another action came in between
    std::vector<CurationAction> actions = state->actions;
    actions.push_back(a);
    curation.set(std::make_shared<const CurationState>(fold(std::move(actions))));
    return std::nullopt;
  }
  return CurationRefusal{409, "the curation changed while this action was checked, again and again: retry"};
}

}  // namespace logsift
