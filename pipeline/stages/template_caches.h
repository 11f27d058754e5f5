// The caches of templates: the one piece of state the stages share, written
// in one direction only. Analysis reads both and files the templates it
// finished from cached decisions; the denoise stage files the templates it
// finished; the embed stage files each new template with its cluster id. No
// stage writes into another stage's own state: this component is where a
// template's result meets the next line that needs it.
//
// Every entry is a pure function of its key, so a line's result never depends
// on which thread filled an entry or when:
//  - line cache: the pre-masked line (its bytes with every pre-masked span
//    replaced by one marker byte) -> its template. The denoiser and the slot
//    rules see only that much of a line, so the template is a function of it.
//  - template cache: template_id -> {template, cluster id}.
// Thread-safe (sharded ConcurrentCaches), bounded in entries and bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/core/cache.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/record.h"

namespace logsift {

// Can this line use the line cache? Its key marks pre-masked spans with 0xFF,
// a byte valid UTF-8 never contains; a line that has one (only unvalidated
// input, e.g. a test's raw string) is analysed without the cache.
inline bool line_cacheable(std::string_view text) { return std::memchr(text.data(), 0xFF, text.size()) == nullptr; }

class TemplateCaches {
 public:
  explicit TemplateCaches(const Config& c)
      : line_cache_(static_cast<size_t>(c.line_cache_entries), static_cast<size_t>(c.line_cache_bytes)),
        template_cache_(static_cast<size_t>(c.template_cache_entries), static_cast<size_t>(c.template_cache_bytes)) {}

  std::optional<TemplateRef> find_line(const Key128& line_key) { return line_cache_.get(line_key); }
  std::optional<TemplateRef> find_template(uint64_t template_id) { return template_cache_.get(template_id); }

  // A known template reached from a new pre-masked line.
  void add_line(const Key128& line_key, const TemplateRef& t) { line_cache_.put(line_key, t, kSharedRefBytes); }
  // A template with its cluster id, and the line it came from (when that
  // line can be a line-cache key).
  void publish(const Key128& line_key, bool line_cacheable, const TemplateRef& t) {
    template_cache_.put(t->template_id, t, t->text.size());
    if (line_cacheable) add_line(line_key, t);
  }

  uint64_t line_hits() const { return line_cache_.hits(); }
  uint64_t line_misses() const { return line_cache_.misses(); }
  uint64_t template_hits() const { return template_cache_.hits(); }
  uint64_t template_misses() const { return template_cache_.misses(); }
  size_t bytes() const { return line_cache_.bytes() + template_cache_.bytes(); }
  void usage(std::vector<CacheUsage>* out) const {
    out->push_back(line_cache_.usage("line"));
    out->push_back(template_cache_.usage("template"));
  }

 private:
  // A line-cache entry's cost beyond its key: the template is shared with the
  // template cache, so the line cache pays a control block share, not the text.
  static constexpr size_t kSharedRefBytes = 16;

  ConcurrentCache<Key128, TemplateRef, Key128Hash> line_cache_;
  ConcurrentCache<uint64_t, TemplateRef, std::hash<uint64_t>> template_cache_;
};

}  // namespace logsift
