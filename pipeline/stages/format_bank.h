// Format bank: the printf-style format strings of the programs a deployment
// runs, matched against each line before the denoiser (config `format_bank`).
//
// The denoiser judges a token by how it looks, so a value that looks like a
// word ("queue orders", "user alice") stays in the template and one log
// statement becomes many cluster ids. A program's own format strings say
// which parts of its lines are values. A bank file holds them, one per line,
// as the program's source wrote them ("queue %s drained after %d retries"):
// `models/training/harvest/bank.py` takes them out of a program's binaries.
//
// Matching (`match`, the rule the bank's version "bank-v1" names):
//  - a format's literal text splits it into literals and typed slots:
//    %d %i %u (digits), %x %X (hex), %o, %e %f %g %a (a number), %c (one
//    character), %p (0x..., "(nil)") and %s %m and anything else (any text,
//    empty too). Adjacent slots are one text slot. "%%" is a literal '%'.
//    Flags, width, precision and length modifiers are accepted; a value may
//    carry the leading blanks a width pads it with. A leading text slot
//    ("%s request", "%s: connect from %s") is dropped: it is a prefix the
//    program built elsewhere (a client's address and view, a session tag),
//    so the format starts at its first literal and the denoiser reads what
//    comes before, as it reads a header. (Measured on models/tuning: keeping
//    it as a slot merged "UDP request" and "TCP request" and split fewer
//    prefixes, 0.6496 against 0.6675; models/README.md, "Format banks".)
//  - a text slot holds at most `slot_words` blank-separated words (config
//    format_bank_slot_words, default 3; 0 = any): a longer text is a message
//    of its own that a wrapper format ("%s: %s", "updating zone '%s': %s")
//    carries, not a value, and the line is left to the model. (Measured with
//    a bank of six programs: any length gained 0.014 more on their own lines
//    and cost 0.027 on loghub-2k's, whose programs were not in the bank.)
//  - the line, its trailing blanks cut, must end with the format: the first
//    literal is found at its leftmost place (what comes before it is the
//    prefix, a header the format does not print), then each next literal at
//    the leftmost place after the slot before it whose text passes the slot's
//    type; the last literal must end the line. This is a greedy scan, not a
//    backtracking regex: linear in the line for each candidate format.
//  - candidates: each format is indexed under the rarest word of its literals
//    (a letter, then letters, digits or '_', three or more), and is tried only
//    when every word of its literals is a word of the line.
//  - of the formats that match, the one with the most literal letters and
//    digits wins, then the one with fewer slots, then the smaller format text:
//    the result does not depend on the order of the bank file.
//  - formats with fewer than kMinLiteral literal letters and digits are
//    skipped at load ("%s: %s" would match anything).
// Pre-masked spans arrive as one 0xFF byte (the line cache's key, see
// analyzer.h): such a byte passes every typed slot, so the result is a
// function of the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace logsift {

class FormatBank {
 public:
  static constexpr int kMinLiteral = 6;
  static constexpr const char* kVersion = "bank-v1";
  static constexpr int kDefaultSlotWords = 3;

  enum class Slot : uint8_t { kText, kInt, kHex, kOct, kFloat, kChar, kPtr };

  struct Format {
    std::string text;                   // as in the file (escapes decoded)
    std::vector<std::string> literals;  // slots.size() + 1 of them
    std::vector<Slot> slots;
    std::vector<uint64_t> words;        // hashes of the literal words, sorted, unique
    uint32_t literal_chars = 0;         // letters and digits of the literals
  };

  struct Match {
    uint32_t format = 0;  // index into formats()
    uint32_t begin = 0;   // where the format's text begins in the line (the prefix ends)
  };

  // Reads a bank file: one format a line, "\\" "\n" "\t" escapes, blank
  // lines and lines starting with '#' skipped. Throws std::runtime_error
  // naming the file and line (unreadable file, bad escape, a line over 1000
  // bytes) .
  // slot_words: the most blank-separated words a text slot may hold (0 = any).
  static FormatBank load(const std::string& path, int slot_words = kDefaultSlotWords);
  // From formats already decoded (tests, the loader).
  static FormatBank from_formats(const std::vector<std::string>& formats, int slot_words = kDefaultSlotWords);

  std::optional<Match> match(std::string_view line) const;

  // The template text of a match's format part: literals, each slot "<*>".
  std::string render(uint32_t format) const;
  // The same, appended to *out (the analyzer's path: no string of its own).
  void render_into(uint32_t format, std::string* out) const;

  const std::vector<Format>& formats() const { return formats_; }
  size_t size() const { return formats_.size(); }
  size_t skipped() const { return skipped_; }
  int slot_words() const { return slot_words_; }  // too few literal characters, or duplicates
  // 16 hex digits over the sorted formats: replicas with one digest give one id.
  const std::string& digest() const { return digest_; }

  // Parses one format (exposed for tests): false if it has no literal word.
  static bool parse(std::string_view text, Format* out);
  // The words the index uses, in order of appearance (exposed for tests).
  static void words_of(std::string_view s, std::vector<std::string_view>* out);

 private:
  bool match_one(std::string_view line, const Format& f, uint32_t* begin) const;

  std::vector<Format> formats_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> index_;  // anchor word hash -> formats
  size_t skipped_ = 0;
  int slot_words_ = kDefaultSlotWords;
  std::string digest_;
};

}  // namespace logsift
