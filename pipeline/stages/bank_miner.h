// Bank miner: a format bank (format_bank.h) from a sample of a deployment's
// own lines, without labels (`logsift mine`).
//
// The denoiser judges one line, so a value that looks like a word ("USER
// li.wei: Login successful", "Mailbox INBOX: Mailbox opened", "view auth:")
// stays in the template and one statement gets many cluster ids. A sample of
// the stream shows what one line cannot: the same template with many
// different words in one place. The miner reads the templates the pipeline
// made of a sample (with their line counts) and writes the places that vary
// as %s, so the bank then serves later lines with the statement's template,
// on every replica alike (the bank's digest is in /info).
//
// Mining (rule "mine-v2"), Drain's clustering run on templates instead of
// lines:
//  - templates are split at blanks into tokens and grouped by token count;
//  - most frequent first (ties: the smaller text), a template joins the
//    cluster of its group whose pattern agrees with it in at least
//    `similarity` of the positions (a pattern's <*> agrees with anything;
//    the first tokens must be equal unless one of them is <*>), the one that
//    agrees most (the earliest on a tie); positions where they differ become
//    <*> in the pattern. Otherwise it starts a cluster;
//  - a position that varies inside a cluster stays a slot only if it shows
//    at least `min_values` distinct tokens ("started"/"stopped" are two
//    statements; ten user names are one), or (mine-v2) if the model masked
//    a value there in some member ("<*>" / "<*>,<*>": one value of two
//    shapes), except the first token; the cluster is split by the tokens
//    at its other varying positions, and each part of two or more templates
//    that still differ in a token gives a format: the most frequent member's
//    text, each varying token and each <*> as %s ('%' as "%%"); the
//    punctuation every member has around a varying token stays ("USER
//    li.wei:" / "USER ravi.kumar:" -> "USER %s:"). Formats with
//    fewer than FormatBank::kMinLiteral literal letters and digits are left
//    out (the bank would skip them).
// Measured with `models/probes/mined_bank_probe.py` (models/README.md,
// "Where the loss is, and mined banks"): similarity 0.85 and min_values 3
// were chosen on the tuning set's first halves, scored on its second
// halves. At 0.85 one differing
// position needs a template of 7 or more tokens: short templates are left
// alone ("USER li.wei: Login successful." is not joined; letting any
// template of 3 or more tokens differ in one position cost 0.011 there).
// mine-v2's masked places: tuning halves 0.6745 -> 0.6892, loghub-2k's
// 0.9883 -> 0.9881; with the first token too, loghub-2k fell to 0.9806 (a
// leading slot's prefix is masked otherwise). Measured afterwards, the
// validation halves: 0.6364 -> 0.6496 (no system lower than with no bank).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace logsift {

struct MineOptions {
  double similarity = 0.85;  // share of equal positions to join a cluster, (0, 1]
  int min_values = 3;        // distinct tokens for a varying position to be a slot, >= 2
};

struct MinedFormat {
  std::string format;   // printf-style, as format_bank.h reads it (escapes not applied)
  uint64_t lines = 0;   // sample lines whose templates it covers
  uint32_t templates = 0;
  // Per place that became a slot, in order: its first distinct words (most
  // frequent template first, at most kExampleValues) and how many it showed.
  struct Slot {
    std::vector<std::string> examples;
    uint32_t values = 0;
  };
  std::vector<Slot> slots;
  static constexpr size_t kExampleValues = 4;
};

class BankMiner {
 public:
  static constexpr const char* kVersion = "mine-v2";
  // A template is compared with at most this many clusters of its token
  // count and first token (the earliest made, so the most frequent
  // templates'), and a group that has this many starts no more: mining stays
  // at most templates x kMaxCandidates comparisons however random a
  // catalog's words are. Samples and catalogs of real programs stay far
  // below it (the tuning set's first halves, 9,943 lines: 1,625 templates).
  static constexpr size_t kMaxCandidates = 4096;

  // One sample line's template (or `count` lines with this template).
  void add(std::string_view template_text, uint64_t count = 1);
  size_t templates() const { return counts_.size(); }
  uint64_t lines() const { return lines_; }

  // The mined formats, sorted by text, without duplicates. Throws
  // std::invalid_argument for options outside their ranges.
  std::vector<MinedFormat> mine(const MineOptions& options = {}) const;

  // A bank file's text: a '#' header (the rule, the options, the counts) and,
  // per format, a comment with its line and template counts and the words
  // each slot took in the sample (for the review before serving it), then
  // the format escaped (format_bank.h's escapes: \\ \n \t).
  static std::string bank_text(const std::vector<MinedFormat>& formats, const MineOptions& options,
                               uint64_t sample_lines, size_t sample_templates);

 private:
  std::unordered_map<std::string, uint64_t> counts_;
  uint64_t lines_ = 0;
};

}  // namespace logsift
