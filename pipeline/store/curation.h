// Curation: what people decided about clusters, as a log of actions, each
// undoable: a cluster merged into another (its future lines get the other's
// id), a word marked as a value (or a value as a constant: the cluster split
// by it), named and annotated, muted (its alerts dropped, its lines still
// counted). The log lives in the store (pipeline/store/curation_store.h:
// SQLite, or Redis shared by replicas, which then agree); its fold
// (CurationState) is what the state stage, the alert router and the API read.
// The rules that keep it whole (no cycles, no merge into a merged cluster,
// undo once) are check()'s: an action is checked against the state it would
// change, then appended only if no other action came in between.
#pragma once

#include <cstdint>
#include <functional>

#include <nlohmann/json_fwd.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace logsift {

enum class CurationKind { kMerge, kName, kMute, kUndo, kAccept, kReject, kValue, kSplit };

struct CurationAction {
  int64_t seq = 0;    // 1, 2, ... in the store's order (0 before it is stored)
  int64_t at_ms = 0;  // when it was taken
  std::string by;     // who: the name of the token that took it
  CurationKind kind = CurationKind::kName;
  uint64_t cluster_id = 0;
  uint64_t into = 0;             // merge: the cluster it joins
  std::string name, note;        // name
  bool metric = false;           // name: pinned as a Prometheus series under its name
  int64_t until_ms = 0;          // mute: until then; 0 = for good
  int64_t undoes = 0;            // undo: the seq of the action taken back
  std::string suggestion;        // accept, reject: the suggestion's id
  std::vector<uint64_t> members; // accept, value: the clusters merged into `into` / cluster_id
  std::string pattern;           // value: the cluster's template with the word at `position` as <*>;
                                 // split: the cluster's template
  int64_t position = -1;         // value: the word (0-based, blank-separated) that is a value;
                                 // split: the word whose values are constants

  // The stored form (one JSON object); from_text throws std::invalid_argument.
  std::string to_text() const;
  static CurationAction from_text(const std::string& text, int64_t seq);
};

const char* kind_name(CurationKind k);

// "This word is a value": a template pattern, words split at blanks, "<*>"
// where a value stands. A template of as many words, equal to the pattern
// wherever the pattern has a word, is the pattern's statement.
struct ValueRule {
  uint64_t cluster_id = 0;  // where the statement's lines go
  std::vector<std::string> words;
  int64_t seq = 0;
  bool matches(std::string_view template_text) const;
};
std::vector<std::string> template_words(std::string_view template_text);

// "This value is a constant": the lines of a cluster whose template has a
// value at word `position` (a "<*>" in it) go to one part per value. A part's
// id is a function of the cluster's id, the word and the value alone
// (split_part_id), so every replica, and every later line with that value,
// gives the same one without coordination; its template is the line's with
// that word's values written in.
struct SplitRule {
  uint64_t cluster_id = 0;
  int64_t position = -1;
  int64_t seq = 0;
};
struct SplitPart {
  uint64_t cluster_id = 0;
  std::string template_text;
  std::string value;  // the word as the line has it ("db-7", "host=db-7")
};
uint64_t split_part_id(uint64_t cluster_id, int64_t position, std::string_view value);
// The part a line goes to; nullopt when its template has no value at that
// word, or its text does not fit its template.
std::optional<SplitPart> split_part(const SplitRule& rule, std::string_view template_text, std::string_view text);

struct CurationState {
  int64_t version = 0;  // actions folded: the store's count
  std::vector<CurationAction> actions;  // every action, in order
  std::unordered_set<int64_t> undone;   // seqs taken back
  std::unordered_map<uint64_t, uint64_t> merged_into;  // id -> the cluster its lines go to (chains resolved)
  struct Named {
    std::string name, note;
    int64_t seq = 0;
  };
  std::unordered_map<uint64_t, Named> names;
  std::unordered_map<uint64_t, int64_t> muted_until;  // INT64_MAX: for good
  std::unordered_set<uint64_t> pinned;                // named and exported as a metric
  std::unordered_set<std::string> rejected;           // suggestions a person turned down
  std::vector<ValueRule> value_rules;                 // in the order taken
  std::unordered_map<uint64_t, SplitRule> splits;     // cluster -> how it is split

  // The id a line of cluster `id` with template `template_text` is counted
  // under: the cluster it was merged into, else the cluster of a value rule
  // its template matches, else its own.
  uint64_t resolve_line(uint64_t id, std::string_view template_text) const {
    if (auto it = merged_into.find(id); it != merged_into.end()) return it->second;
    for (const auto& r : value_rules)
      if (r.matches(template_text)) return resolve(r.cluster_id);
    return id;
  }

  // The id a line of `id` is counted under.
  uint64_t resolve(uint64_t id) const {
    auto it = merged_into.find(id);
    return it == merged_into.end() ? id : it->second;
  }
  bool muted(uint64_t id, int64_t now_ms) const {
    auto it = muted_until.find(id);
    return it != muted_until.end() && it->second > now_ms;
  }
  const Named* named(uint64_t id) const {
    auto it = names.find(id);
    return it == names.end() ? nullptr : &it->second;
  }
  const SplitRule* split_of(uint64_t id) const {
    auto it = splits.find(id);
    return it == splits.end() ? nullptr : &it->second;
  }
  // The clusters merged into `id` (directly or through others).
  std::vector<uint64_t> members(uint64_t id) const;
};

// What an id of an earlier cluster-id contract became (a migration's id
// map: pipeline/migrate.h): its new ids, the largest share first; empty for
// an id of the contract served.
using IdTranslator = std::function<std::vector<uint64_t>(uint64_t)>;

// The state after `actions` (in seq order). The log keeps the ids as they
// were when each action was taken; `translate` carries them through the
// migrations since: a merged cluster that split merges each part, a name or
// a mute goes to each part, a merge goes into the largest part.
CurationState fold(std::vector<CurationAction> actions, const IdTranslator& translate = {});

// Why `a` may not be taken on `s`: an HTTP status (400, 404, 409) and a
// reason; nullopt when it may. known(id): the cluster is in the catalog;
// max_pinned: how many clusters may be exported as metrics.
struct CurationRefusal {
  int status;
  std::string reason;
};
std::optional<CurationRefusal> check(const CurationState& s, const CurationAction& a,
                                     const std::function<bool(uint64_t)>& known, size_t max_pinned = 100);

// The fold in use, swapped whole when the log grows (by this replica's
// action, or another's seen at the next refresh). Thread-safe.
class Curation {
 public:
  Curation() : state_(std::make_shared<const CurationState>()) {}
  // Before use: how ids of earlier contracts are carried (the store's id map).
  void set_translator(IdTranslator t) { translate_ = std::move(t); }
  const IdTranslator& translator() const { return translate_; }
  std::shared_ptr<const CurationState> get() const {
    std::lock_guard lock(mu_);
    return state_;
  }
  // The store is the truth: a log that shrank (Redis lost its data) is
  // followed too, so every replica acts on what the store holds.
  void set(std::shared_ptr<const CurationState> s) {
    std::lock_guard lock(mu_);
    state_ = std::move(s);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const CurationState> state_;
  IdTranslator translate_;
};

class CurationStore;
class ContractStore;

// An action as GET /curation shows it (and a curation file holds it): seq,
// kind, at and by (times RFC 3339), its fields, and for all but an undo
// whether it was undone.
nlohmann::json export_action(const CurationAction& a, bool undone);

// Applies a curation file (GET /curation's JSON, or its "actions" alone) to
// this store: each action the file holds, not undone there, that is not in
// effect here is taken as any action is (checked; ids the catalog has not
// seen yet are allowed: a contract gives the same line the same id on every
// deployment). Applying the same file again takes nothing. Throws
// std::invalid_argument for a file that is not such a log.
struct CurationImport {
  size_t taken = 0, in_effect = 0;
  std::vector<std::string> refused;  // "action N: reason"
};
CurationImport import_curation(CurationStore& store, Curation& curation, const nlohmann::json& file,
                               const std::string& by, int64_t now_ms, size_t max_pinned);

// Reads the store's log again when its length differs from the fold in use
// (or always: force, after a migration changed the ids it translates);
// throws on a store error or an action it cannot read.
void refresh_curation(CurationStore& store, Curation& curation, bool force = false);

// The translator of a store's id map: an id's new ids, followed through
// every migration since (a few hops at most).
IdTranslator id_map_translator(ContractStore& store);

// Takes `a`: checks it against the store's latest log and appends it, again
// when another replica's action came in between (a few times, then 409).
// The refusal, or nullopt with the fold in use updated and a.seq set.
std::optional<CurationRefusal> take_action(CurationStore& store, Curation& curation, CurationAction& a,
                                           const std::function<bool(uint64_t)>& known, size_t max_pinned = 100);

}  // namespace logsift
