#include "pipeline/ingest/labels.h"

#include <algorithm>

#include "pipeline/core/text.h"

namespace logsift {

using text::ascii_lower;
using text::iequals;
using text::trim_blanks;

std::string_view canonical_label_name(CanonicalLabel c) {
  switch (c) {
    case CanonicalLabel::kService:
      return "service";
    case CanonicalLabel::kLevel:
      return "level";
    case CanonicalLabel::kHost:
      return "host";
    case CanonicalLabel::kNone:
      break;
  }
  return "";
}

LabelBuilder::LabelBuilder(const LabelKeyMap& keys, int max_labels, bool keep_other,
                           const std::vector<std::string>* keep_keys)
    : keys_(keys), max_labels_(std::max(0, max_labels)), keep_other_(keep_other), keep_keys_(keep_keys) {}

CanonicalLabel LabelBuilder::classify(std::string_view key, int* rank) const {
  const std::vector<std::string>* lists[3] = {&keys_.service, &keys_.level, &keys_.host};
  for (int c = 0; c < 3; ++c) {
    const auto& l = *lists[c];
    for (size_t r = 0; r < l.size(); ++r) {
      if (iequals(l[r], key)) {
        if (rank) *rank = static_cast<int>(r);
        return static_cast<CanonicalLabel>(c);
      }
    }
  }
  return CanonicalLabel::kNone;
}

namespace {
bool usable_value(std::string_view v) { return !v.empty() && v.size() <= kMaxLabelValueBytes && text::valid_utf8(v); }
}  // namespace

void LabelBuilder::set(CanonicalLabel c, std::string_view value, int rank) {
  if (c == CanonicalLabel::kNone) return;
  value = trim_blanks(value);
  if (!usable_value(value)) {
    if (!value.empty()) ++dropped_;
    return;
  }
  Slot& s = slots_[static_cast<int>(c)];
  if (rank >= s.rank) return;  // a better (or equal, earlier) source already set it
  s.rank = rank;
  s.value = c == CanonicalLabel::kLevel ? ascii_lower(value) : std::string(value);
}

bool LabelBuilder::add_canonical(std::string_view key, std::string_view value, int priority_offset) {
  int rank = 0;
  CanonicalLabel c = classify(key, &rank);
  if (c == CanonicalLabel::kNone) return false;
  set(c, value, rank + priority_offset);
  return true;
}

void LabelBuilder::add_other(std::string_view key, std::string_view value) {
  value = trim_blanks(value);
  if (key.empty() || key.size() > kMaxLabelKeyBytes || !text::valid_utf8(key) || !usable_value(value)) {
    ++dropped_;
    return;
  }
  for (const auto& [k, v] : others_)
    if (k == key) return;  // first value wins
  // Bounded: more than max_labels others can never be emitted.
  if (others_.size() >= static_cast<size_t>(max_labels_)) {
    ++dropped_;
    return;
  }
  others_.emplace_back(std::string(key), std::string(value));
}

bool LabelBuilder::add(std::string_view key, std::string_view value, int priority_offset) {
  if (add_canonical(key, value, priority_offset)) return true;
  bool keep = keep_other_;
  if (!keep && keep_keys_)
    for (const auto& k : *keep_keys_)
      if (k == key) {
        keep = true;
        break;
      }
  if (!keep) return false;
  add_other(key, value);
  return true;
}

Labels LabelBuilder::finish() {
  Labels out;
  size_t cap = static_cast<size_t>(max_labels_);
  for (int c = 0; c < 3; ++c) {
    if (slots_[c].value.empty()) continue;
    if (out.size() >= cap) {
      ++dropped_;
      continue;
    }
    out.emplace_back(std::string(canonical_label_name(static_cast<CanonicalLabel>(c))), std::move(slots_[c].value));
    slots_[c] = Slot{};
  }
  for (auto& kv : others_) {
    bool clash = false;
    for (const auto& o : out)
      if (o.first == kv.first) clash = true;
    if (clash) continue;
    if (out.size() >= cap) {
      ++dropped_;
      continue;
    }
    out.push_back(std::move(kv));
  }
  others_.clear();
  return out;
}

const LabelKeyMap& structured_label_keys() {
  static const LabelKeyMap m{
      {"service", "app", "service.name", "logger", "component", "SYSLOG_IDENTIFIER", "_SYSTEMD_UNIT"},
      {"level", "severity", "lvl", "log.level", "PRIORITY"},
      {"host", "hostname", "host.name", "_HOSTNAME"},
  };
  return m;
}

}  // namespace logsift
