// The cluster-id contract: every setting that decides a line's cluster id,
// each a named field. Same contract + same line -> same id, on every replica
// and after every restart; a store written under another contract is
// migrated (pipeline/migrate.h).
//
// The contract is built from these fields only, never by removing fields
// from a larger object: a diagnostic added to Pipeline::info() (a runtime, a
// path, a counter) cannot change the digest, so it cannot make every store
// migrate every cluster. A new id-deciding setting is a new field here (and
// so a new digest: stored clusters migrate once). Pipeline::info() shows the
// contract's fields beside the diagnostics in kInfoDiagnostics; a test
// checks that every field of info() is one or the other.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace logsift {

struct IdContract {
  struct Encoder {
    std::string version;
    int dim = 0;
    std::string kind;     // "torchscript" | "hashed"
    int max_len = 0;      // 0 = n/a (null)
    int64_t vocab_size = 0;  // 0 = n/a (null)
    bool canonicalize = true;  // the encoder sees canonical_template() (pipeline/stages/encoder_text.h)
    bool operator==(const Encoder&) const = default;
  };
  struct Denoiser {
    std::string version;
    double threshold = 0;
    std::string context;       // "span" | "word"
    int max_len = 0;
    std::string context_test;  // "probes" | "token_logit", "+digit-shapes"
    bool operator==(const Denoiser&) const = default;
  };
  struct Lsh {
    std::string method = "random-hyperplane";
    int bits = 0;
    uint64_t seed = 0;
    bool operator==(const Lsh&) const = default;
  };
  struct FormatBank {
    std::string version;
    std::string digest;
    int slot_words = 0;  // the most words a text slot may hold
    bool operator==(const FormatBank&) const = default;
  };
  struct Structured {
    bool enabled = false;
    std::vector<std::string> message_keys;
    bool keep_caller = false;
    bool syslog_headers = false;
    std::optional<std::string> app_layouts;  // nullopt: "off"
    bool operator==(const Structured&) const = default;
  };

  // Multi-line events (pipeline/ingest/multiline.h, pipeline/stages/trace.h):
  // the rules that give a trace its identity, and the bounds that cut an
  // event's text.
  struct Events {
    std::string version;
    int64_t max_lines = 0;
    int64_t max_bytes = 0;
    bool operator==(const Events&) const = default;
  };

  Encoder encoder;
  std::optional<Denoiser> denoiser;  // nullopt: denoiser_model "none"
  Lsh lsh;
  std::string premask;  // digest (16 hex digits) of the pre-mask patterns
  std::optional<std::string> slot_rules;  // nullopt: "off"
  std::optional<FormatBank> format_bank;
  Structured structured;
  Events events;

  bool operator==(const IdContract&) const = default;

  // The canonical JSON form ({"encoder", "denoiser", "lsh", "premask",
  // "slot_rules", "format_bank", "structured", "events"}), as stores record it.
  nlohmann::json to_json() const;
  // 16 hex digits: a hash of to_json()'s canonical text.
  std::string digest() const;

  // Each part as JSON (what Pipeline::info() shows beside its diagnostics).
  nlohmann::json encoder_json() const;
  nlohmann::json denoiser_json() const;  // null without a denoiser
  nlohmann::json lsh_json() const;
  nlohmann::json format_bank_json() const;  // null without a bank
  nlohmann::json structured_json() const;
  nlohmann::json events_json() const;
};

// The fields of Pipeline::info() that are not part of the contract (JSON
// pointers): how the pipeline runs and where its models live, never what
// it computes. Every other field of info() must be a contract field with
// the contract's value.
inline constexpr std::array<std::string_view, 12> kInfoDiagnostics = {
    "/encoder/source",          "/encoder/runtime",       "/denoiser/runtime",
    "/premask_patterns",        "/premask_engine",        "/format_bank/formats",
    "/format_bank/skipped",     "/torch/version",         "/batching/max_lines",
    "/batching/max_delay_us",   "/batching/analysis_threads", "/batching/inline_max_lines"};

}  // namespace logsift
