// The label mapping that every ingest parser shares (structured lines,
// syslog, Loki, OTLP, bulk, the HTTP envelope): one place for the key
// normalisation, the value checks and the max_labels limit.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/record.h"

namespace logsift {

// Source keys of the three canonical labels, best first. Keys match
// ASCII-case-insensitively.
struct LabelKeyMap {
  std::vector<std::string> service;
  std::vector<std::string> level;
  std::vector<std::string> host;
};

// The canonical labels, in the order LabelBuilder::finish() emits them.
enum class CanonicalLabel : int { kService = 0, kLevel = 1, kHost = 2, kNone = 3 };
std::string_view canonical_label_name(CanonicalLabel c);  // "service", "level", "host"

// Limits on one label (as the HTTP envelope's).
inline constexpr size_t kMaxLabelKeyBytes = 256;
inline constexpr size_t kMaxLabelValueBytes = 1024;

// Collects the labels of one entry. Canonical labels keep the value of their
// best-ranked source key (rank = position in the LabelKeyMap list plus the
// call's priority offset; lower wins, ties keep the first); other keys are
// kept in arrival order when the builder keeps others or the key is in
// keep_keys (exact match), first value per key. A value that is empty (after
// trimming blanks), longer than kMaxLabelValueBytes or not valid UTF-8, or a
// key over kMaxLabelKeyBytes, is dropped and counted. finish() returns
// service, level, host (those set), then the others, cut at max_labels (the
// cut ones are counted too).
class LabelBuilder {
 public:
  LabelBuilder(const LabelKeyMap& keys, int max_labels, bool keep_other = false,
               const std::vector<std::string>* keep_keys = nullptr);

  // The canonical label a source key maps to (kNone if none), and its rank.
  CanonicalLabel classify(std::string_view key, int* rank = nullptr) const;

  // Offers key=value: a canonical key fills its label (see the ranking above),
  // another key is kept if the builder keeps others or keep_keys lists it.
  // Returns true if the key was canonical or kept (false: dropped as noise).
  bool add(std::string_view key, std::string_view value, int priority_offset = 0);
  // Offers only if canonical; other keys are ignored (returns false).
  bool add_canonical(std::string_view key, std::string_view value, int priority_offset = 0);
  // Sets a canonical label directly with the given rank (e.g. syslog's
  // APP-NAME as "service"). Level values are lower-cased.
  void set(CanonicalLabel c, std::string_view value, int rank = 0);
  // Keeps key=value as an extra label regardless of keep_other.
  void add_other(std::string_view key, std::string_view value);

  bool has(CanonicalLabel c) const { return !slots_[static_cast<int>(c)].value.empty(); }
  const std::string& get(CanonicalLabel c) const { return slots_[static_cast<int>(c)].value; }

  Labels finish();
  // Labels dropped so far: bad values, over the limits (finish() adds its cut).
  size_t dropped() const { return dropped_; }

 private:
  struct Slot {
    std::string value;
    int rank = 1 << 30;
  };
  const LabelKeyMap& keys_;
  int max_labels_;
  bool keep_other_;
  const std::vector<std::string>* keep_keys_;
  Slot slots_[3];
  Labels others_;
  size_t dropped_ = 0;
};

// The key map of structured lines (level/severity/lvl/log.level; service/app/
// service.name/logger/component; host/hostname/host.name).
const LabelKeyMap& structured_label_keys();

// Adds `extra` labels whose key is not present yet, keeping at most
// max_labels in all (first come, first kept). Returns how many were dropped
// for the limit.
inline size_t merge_labels(Labels* base, const Labels& extra, int max_labels) {
  size_t dropped = 0;
  for (const auto& kv : extra) {
    bool present = false;
    for (const auto& b : *base)
      if (b.first == kv.first) {
        present = true;
        break;
      }
    if (present) continue;
    if (static_cast<int>(base->size()) >= max_labels) {
      ++dropped;
      continue;
    }
    base->push_back(kv);
  }
  return dropped;
}

}  // namespace logsift
