#include "service/api/loki.h"

#include <limits>

#include <nlohmann/json.hpp>
#include <snappy.h>

#include "loki_push.pb.h"            // generated from service/api/proto/loki_push.proto
#include "pipeline/core/text.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/labels.h"

namespace logsift {
namespace {

using ojson = nlohmann::ordered_json;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// Structured metadata ranks after every stream label.
constexpr int kMetadataRank = 1000;

IngestError err(Reject r, std::string m) { return IngestError{r, std::move(m)}; }

std::string where(size_t stream, size_t entry) {
  return "streams[" + std::to_string(stream) + "].values[" + std::to_string(entry) + "]";
}

// The labels of one stream, built once; entries with metadata rebuild them.
struct StreamLabels {
  Pairs pairs;
  Labels labels;
};

void build_stream_labels(Pairs pairs, const IngestOptions& opts, StreamLabels* out) {
  LabelBuilder lb(loki_label_keys(), opts.max_labels, /*keep_other=*/true);
  for (const auto& [k, v] : pairs) lb.add(k, v);
  out->labels = lb.finish();
  out->pairs = std::move(pairs);
}

Labels entry_labels(const StreamLabels& s, const Pairs& metadata, const IngestOptions& opts) {
  if (metadata.empty()) return s.labels;
  LabelBuilder lb(loki_label_keys(), opts.max_labels, /*keep_other=*/true);
  for (const auto& [k, v] : s.pairs) lb.add(k, v);
  for (const auto& [k, v] : metadata) lb.add_canonical(k, v, kMetadataRank);
  return lb.finish();
}

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// A quoted string at s[*i] ("...", '...' or `...`); unescaped into *out.
bool quoted(std::string_view s, size_t* i, std::string* out, std::string* error) {
  char q = s[*i];
  size_t st = *i + 1, k = st;
  bool esc = false;
  if (q == '`') {
    while (k < s.size() && s[k] != '`') ++k;
  } else {
    while (k < s.size() && s[k] != q) {
      if (s[k] == '\\') {
        esc = true;
        ++k;
      }
      ++k;
    }
  }
  if (k >= s.size()) {
    *error = "unterminated quoted string";
    return false;
  }
  std::string_view inner = s.substr(st, k - st);
  if (esc) {
    if (!unquote_go_string(inner, out)) {
      *error = "bad escape in quoted string";
      return false;
    }
  } else {
    out->assign(inner);
  }
  *i = k + 1;
  return true;
}

std::optional<int64_t> ns_to_ms(const ojson& ts) {
  if (ts.is_number_unsigned()) return static_cast<int64_t>(ts.get<uint64_t>() / 1000000u);
  if (ts.is_number_integer()) {
    int64_t v = ts.get<int64_t>();
    if (v < 0) return std::nullopt;
    return v / 1000000;
  }
  if (!ts.is_string()) return std::nullopt;
  const auto& s = ts.get_ref<const std::string&>();
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return static_cast<int64_t>(v / 1000000u);
}

}  // namespace

bool parse_label_set(std::string_view s, Pairs* out, std::string* error) {
  size_t i = 0;
  auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  };
  size_t first = out->size();
  ws();
  if (i >= s.size() || s[i] != '{') {
    *error = "label set must start with '{'";
    return false;
  }
  ++i;
  for (;;) {
    ws();
    if (i >= s.size()) {
      *error = "label set is not closed with '}'";
      return false;
    }
    if (s[i] == '}') {
      ++i;
      break;
    }
    std::string name;
    if (s[i] == '"') {
      if (!quoted(s, &i, &name, error)) return false;
      if (name.empty()) {
        *error = "empty label name";
        return false;
      }
    } else if (is_name_start(s[i])) {
      size_t st = i;
      while (i < s.size() && is_name_char(s[i])) ++i;
      name.assign(s.substr(st, i - st));
    } else {
      *error = "bad label name at offset " + std::to_string(i);
      return false;
    }
    ws();
    if (i >= s.size() || s[i] != '=') {
      *error = "expected '=' after label name '" + name.substr(0, 64) + "'";
      return false;
    }
    ++i;
    ws();
    if (i >= s.size() || (s[i] != '"' && s[i] != '\'' && s[i] != '`')) {
      *error = "label '" + name.substr(0, 64) + "' value must be quoted";
      return false;
    }
    std::string value;
    if (!quoted(s, &i, &value, error)) {
      *error = "label '" + name.substr(0, 64) + "': " + *error;
      return false;
    }
    for (size_t k = first; k < out->size(); ++k)
      if ((*out)[k].first == name) {
        *error = "duplicate label name '" + name.substr(0, 64) + "'";
        return false;
      }
    out->emplace_back(std::move(name), std::move(value));
    ws();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') {
      ++i;
      break;
    }
    *error = "expected ',' or '}' in label set";
    return false;
  }
  ws();
  if (i != s.size()) {
    *error = "text after the label set";
    return false;
  }
  return true;
}

std::optional<IngestError> parse_loki_json(std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out) {
  ojson doc;
  if (auto e = parse_json_body(body, &doc)) return e;
  if (!doc.is_object()) return err(Reject::kWrongType, "body must be a JSON object {\"streams\": [...]}");
  auto st = doc.find("streams");
  if (st == doc.end()) return err(Reject::kMissingText, "missing 'streams'");
  if (st->is_null()) return std::nullopt;
  if (!st->is_array()) return err(Reject::kWrongType, "'streams' must be an array");
  size_t total = 0;
  for (size_t si = 0; si < st->size(); ++si) {
    const ojson& stream = (*st)[si];
    std::string sw = "streams[" + std::to_string(si) + "]";
    if (!stream.is_object()) return err(Reject::kWrongType, sw + " must be an object");
    Pairs pairs;
    if (auto lt = stream.find("stream"); lt != stream.end() && !lt->is_null()) {
      if (!lt->is_object()) return err(Reject::kWrongType, sw + ".stream must be an object of strings");
      for (auto it = lt->begin(); it != lt->end(); ++it) {
        if (!it->is_string())
          return err(Reject::kWrongType, sw + ".stream." + it.key().substr(0, 64) + " must be a string");
        pairs.emplace_back(it.key(), it->get<std::string>());
      }
    }
    StreamLabels sl;
    build_stream_labels(std::move(pairs), opts, &sl);
    auto vt = stream.find("values");
    if (vt == stream.end() || vt->is_null()) continue;
    if (!vt->is_array()) return err(Reject::kWrongType, sw + ".values must be an array");
    total += vt->size();
    if (total > opts.max_entries)
      return err(Reject::kTooManyLines, "more than " + std::to_string(opts.max_entries) + " entries in one push");
    for (size_t ei = 0; ei < vt->size(); ++ei) {
      const ojson& v = (*vt)[ei];
      if (!v.is_array() || v.size() < 2 || v.size() > 3)
        return err(Reject::kWrongType, where(si, ei) + " must be [\"<unix ns>\", \"line\"] or [ts, line, {metadata}]");
      auto ts = ns_to_ms(v[0]);
      if (!ts) return err(Reject::kWrongType, where(si, ei) + "[0]: timestamp must be a string of unix nanoseconds");
      if (!v[1].is_string()) return err(Reject::kWrongType, where(si, ei) + "[1]: line must be a string");
      Pairs md;
      if (v.size() == 3 && !v[2].is_null()) {
        if (!v[2].is_object())
          return err(Reject::kWrongType, where(si, ei) + "[2]: structured metadata must be an object");
        for (auto it = v[2].begin(); it != v[2].end(); ++it) {
          if (!it->is_string())
            return err(Reject::kWrongType, where(si, ei) + "[2]." + it.key().substr(0, 64) + " must be a string");
          md.emplace_back(it.key(), it->get<std::string>());
        }
      }
      IngestEntry e;
      e.message = v[1].get<std::string>();
      e.ts_ms = *ts;
      e.labels = entry_labels(sl, md, opts);
      out->push_back(std::move(e));
    }
  }
  return std::nullopt;
}

std::optional<IngestError> parse_loki_protobuf(std::string_view body, const IngestOptions& opts,
                                               std::vector<IngestEntry>* out) {
  if (body.empty()) return err(Reject::kEmptyLine, "empty body");
  static constexpr std::string_view kFramingMagic("\xff\x06\x00\x00sNaPpY", 10);
  if (body.substr(0, kFramingMagic.size()) == kFramingMagic)
    return err(Reject::kBadRequest, "body uses the snappy framing format; Loki expects the snappy block format");
  // Validate first (linear, no allocation): a garbage length prefix must not
  // read as "too large".
  size_t raw_len = 0;
  if (!snappy::IsValidCompressedBuffer(body.data(), body.size()) ||
      !snappy::GetUncompressedLength(body.data(), body.size(), &raw_len))
    return err(Reject::kBadRequest, "body is not valid snappy-compressed (block format) data");
  if (raw_len > opts.max_decompressed_bytes)
    return err(Reject::kBodyTooLarge, "snappy body decompresses to " + std::to_string(raw_len) +
                                          " bytes, over the limit of " + std::to_string(opts.max_decompressed_bytes));
  std::string raw;
  if (!snappy::Uncompress(body.data(), body.size(), &raw)) return err(Reject::kBadRequest, "corrupt snappy data");
  if (raw.empty()) return err(Reject::kEmptyLine, "empty PushRequest");
  lokipb::PushRequest req;
  if (!req.ParseFromString(raw)) return err(Reject::kBadRequest, "body is not a valid protobuf PushRequest");
  size_t total = 0;
  for (const auto& s : req.streams()) total += static_cast<size_t>(s.entries_size());
  if (total > opts.max_entries)
    return err(Reject::kTooManyLines, "more than " + std::to_string(opts.max_entries) + " entries in one push");
  out->reserve(out->size() + total);
  for (int si = 0; si < req.streams_size(); ++si) {
    const auto& stream = req.streams(si);
    std::string sw = "streams[" + std::to_string(si) + "]";
    if (!text::valid_utf8(stream.labels())) return err(Reject::kInvalidUtf8, sw + ".labels is not valid UTF-8");
    Pairs pairs;
    std::string lerr;
    if (!stream.labels().empty() && !parse_label_set(stream.labels(), &pairs, &lerr))
      return err(Reject::kBadRequest, sw + ".labels: " + lerr);
    StreamLabels sl;
    build_stream_labels(std::move(pairs), opts, &sl);
    for (int ei = 0; ei < stream.entries_size(); ++ei) {
      const auto& en = stream.entries(ei);
      std::string ew = sw + ".entries[" + std::to_string(ei) + "]";
      if (!text::valid_utf8(en.line())) return err(Reject::kInvalidUtf8, ew + ".line is not valid UTF-8");
      Pairs md;
      for (const auto& p : en.structured_metadata()) md.emplace_back(p.name(), p.value());
      IngestEntry e;
      e.message = en.line();
      if (en.has_timestamp() && en.timestamp().seconds() >= 0)
        e.ts_ms = en.timestamp().seconds() * 1000 + std::max(0, en.timestamp().nanos()) / 1000000;
      e.labels = entry_labels(sl, md, opts);
      out->push_back(std::move(e));
    }
  }
  return std::nullopt;
}

std::optional<IngestError> parse_loki_push(std::string_view content_type, std::string_view content_encoding,
                                           std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out) {
  if (auto e = check_identity_encoding(content_encoding, "send JSON uncompressed or protobuf snappy-compressed"))
    return e;
  std::string mt = media_type(content_type);
  if (mt == "application/json") return parse_loki_json(body, opts, out);
  if (mt == "application/x-protobuf" || mt == "application/protobuf") return parse_loki_protobuf(body, opts, out);
  if (mt.empty()) {
    std::string_view t = text::trim_blanks(body);
    if (!t.empty() && t.front() == '{') return parse_loki_json(body, opts, out);
    return parse_loki_protobuf(body, opts, out);
  }
  return err(Reject::kUnsupportedMediaType, "Content-Type '" + mt.substr(0, 64) +
                                                "' is not supported: use application/json or application/x-protobuf");
}

}  // namespace logsift
