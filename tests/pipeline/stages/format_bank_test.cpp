#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/pipeline.h"
#include "pipeline/stages/format_bank.h"

namespace logsift {
namespace {

using Slot = FormatBank::Slot;

std::string render_match(const FormatBank& b, std::string_view line) {
  auto m = b.match(line);
  if (!m) return "(none)";
  return std::string(line.substr(0, m->begin)) + "|" + b.render(m->format);
}

TEST(FormatBank, ParsesLiteralsAndTypedSlots) {
  FormatBank::Format f;
  ASSERT_TRUE(FormatBank::parse("queue %s drained after %5lu retries (%.2f%%) at %p%c", &f));
  ASSERT_EQ(f.slots.size(), 4u);
  EXPECT_EQ(f.slots[0], Slot::kText);
  EXPECT_EQ(f.slots[1], Slot::kInt);
  EXPECT_EQ(f.slots[2], Slot::kFloat);
  EXPECT_EQ(f.slots[3], Slot::kText);  // %p%c: adjacent slots are one text slot
  EXPECT_EQ(f.literals[0], "queue ");
  EXPECT_EQ(f.literals[2], " retries (");
  EXPECT_EQ(f.literals[3], "%) at ");
  EXPECT_EQ(f.literals[4], "");
  FormatBank::Format g;
  ASSERT_TRUE(FormatBank::parse("100%! done: %q is not a conversion", &g));
  EXPECT_TRUE(g.slots.empty());
  EXPECT_FALSE(FormatBank::parse("%s: %d", &g));  // no literal word
}

TEST(FormatBank, MatchesTheLineEndAndLeavesThePrefix) {
  auto b = FormatBank::from_formats({"queue %s drained after %d retries", "connection closed by peer"});
  EXPECT_EQ(render_match(b, "queue orders drained after 12 retries"), "|queue <*> drained after <*> retries");
  EXPECT_EQ(render_match(b, "worker[3]: queue billing eu drained after 7 retries  "),
            "worker[3]: |queue <*> drained after <*> retries");
  EXPECT_EQ(render_match(b, "node7 connection closed by peer"), "node7 |connection closed by peer");
  // the format must end the line, and %d takes digits only
  EXPECT_EQ(render_match(b, "queue orders drained after 12 retries, giving up"), "(none)");
  EXPECT_EQ(render_match(b, "queue orders drained after many retries"), "(none)");
  // a pre-masked span (one 0xFF byte in the line key) passes a typed slot
  EXPECT_EQ(render_match(b, "queue orders drained after \xff retries"), "|queue <*> drained after <*> retries");
}

// "%s request from %s": the leading %s is a prefix built elsewhere; the
// format starts at its first literal and the prefix is the denoiser's.
TEST(FormatBank, ALeadingTextSlotIsLeftToThePrefix) {
  auto b = FormatBank::from_formats({"%s request from %s", "%d jobs queued for %s"});
  EXPECT_EQ(render_match(b, "client @0x1 10.0.0.1: UDP request from peer7"),
            "client @0x1 10.0.0.1: UDP| request from <*>");
  EXPECT_EQ(render_match(b, "12 jobs queued for night"), "|<*> jobs queued for <*>");  // a typed one stays
}

// A wrapper's %s that carries a whole message is not a value: the line is
// the model's (format_bank_slot_words, default 3; 0 = any length).
TEST(FormatBank, ATextSlotHoldsAFewWords) {
  const std::string line = "updating zone 'a.example': update failed: prerequisite not satisfied";
  auto b = FormatBank::from_formats({"updating zone '%s': %s"});
  EXPECT_EQ(render_match(b, line), "(none)");
  EXPECT_EQ(render_match(b, "updating zone 'a.example': notify sent"), "|updating zone '<*>': <*>");
  auto any = FormatBank::from_formats({"updating zone '%s': %s"}, 0);
  EXPECT_EQ(render_match(any, line), "|updating zone '<*>': <*>");
  EXPECT_EQ(any.slot_words(), 0);
}

TEST(FormatBank, SlotsCheckTheirTypes) {
  auto b = FormatBank::from_formats({"took %d ms to sync %s at %x"});
  EXPECT_EQ(render_match(b, "took 12 ms to sync a at 1f"), "|took <*> ms to sync <*> at <*>");
  // a text slot ends at the next literal's leftmost place: greedy, no backtracking
  EXPECT_EQ(render_match(b, "took 12 ms to sync a at b at 1f"), "(none)");
  EXPECT_EQ(render_match(b, "took -3 ms to sync shard-2 at 0xdeadbeef"), "|took <*> ms to sync <*> at <*>");
  EXPECT_EQ(render_match(b, "took 3.5 ms to sync shard-2 at 0xdeadbeef"), "(none)");
}

TEST(FormatBank, MostLiteralTextWinsWhateverTheFileOrder) {
  const std::vector<std::string> fmts = {"login failed for %s", "login failed for %s from %s", "user %s: login failed for %s"};
  auto b1 = FormatBank::from_formats(fmts);
  auto b2 = FormatBank::from_formats({fmts[2], fmts[0], fmts[1], fmts[1]});
  for (const auto* b : {&b1, &b2}) {
    EXPECT_EQ(render_match(*b, "login failed for bob from 10.1.2.3"), "|login failed for <*> from <*>");
    EXPECT_EQ(render_match(*b, "user ann: login failed for bob"), "|user <*>: login failed for <*>");
  }
  EXPECT_EQ(b1.digest(), b2.digest());
  EXPECT_EQ(b1.size(), 3u);
  EXPECT_EQ(b2.skipped(), 1u);  // the duplicate
  EXPECT_NE(b1.digest(), FormatBank::from_formats({fmts[0], fmts[1]}).digest());
}

TEST(FormatBank, SkipsFormatsWithTooLittleLiteralText) {
  auto b = FormatBank::from_formats({"%s: %s", "ok %s", "error in %s"});
  EXPECT_EQ(b.size(), 1u);  // "error in %s" has 7 literal letters
  EXPECT_EQ(b.skipped(), 2u);
  EXPECT_EQ(render_match(b, "disk: full"), "(none)");
}

std::string temp_file(const std::string& name, const std::string& text) {
  auto p = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()));
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

TEST(FormatBank, LoadsAFileWithEscapesAndComments) {
  auto path = temp_file("bank-ok", "# a comment\n\nqueue %s drained after %d retries\r\npath C:\\\\tmp\\tis %s\n");
  auto b = FormatBank::load(path);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(render_match(b, "path C:\\tmp\tis gone"), "|path C:\\tmp\tis <*>");
  std::filesystem::remove(path);
}

TEST(FormatBank, LoadErrorsNameTheFileAndLine) {
  auto path = temp_file("bank-bad", "queue %s drained\nbad \\x escape %s\n");
  try {
    FormatBank::load(path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: bad escape"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW(FormatBank::load("/nonexistent/bank"), std::runtime_error);
}

// Through the pipeline: the bank's format decides the template after the
// prefix, the prefix still goes to the denoiser, and /info names the bank.
TEST(FormatBank, PipelineUsesTheBankAndNamesItInTheContract) {
  auto path = temp_file("bank-pipe", "queue %s drained after %d retries\n");
  Config c = Config::defaults();
  c.format_bank = path;
  Pipeline with(c, nullptr);
  Pipeline without(Config::defaults(), nullptr);
  std::vector<std::string> lines = {"queue orders drained after 12 retries", "queue billing drained after 3 retries",
                                    "shard 4 queue invoices drained after 9 retries"};
  auto r = with.run(lines);
  EXPECT_EQ(r[0].template_text, "queue <*> drained after <*> retries");
  EXPECT_EQ(r[0].cluster_id, r[1].cluster_id);
  EXPECT_EQ(r[2].template_text, "shard <*> queue <*> drained after <*> retries");
  EXPECT_EQ(with.stats()["analysis"]["format_bank_matches"].get<uint64_t>(), 3u);
  auto info = with.info()["format_bank"];
  EXPECT_EQ(info["version"], "bank-v1");
  EXPECT_EQ(info["formats"], 1);
  EXPECT_EQ(info["slot_words"], 3);
  EXPECT_EQ(info["digest"].get<std::string>().size(), 16u);
  EXPECT_TRUE(without.info()["format_bank"].is_null());
  // a line no format prints is the model's, exactly as without a bank
  auto other = std::vector<std::string>{"Connection from 10.0.0.7 port 22 closed by user"};
  EXPECT_EQ(with.run(other)[0].template_text, without.run(other)[0].template_text);
  std::filesystem::remove(path);
}

TEST(FormatBank, PipelineRefusesABankItCannotUse) {
  Config c = Config::defaults();
  c.format_bank = "/nonexistent/bank";
  EXPECT_THROW(Pipeline(c, nullptr), ConfigError);
  auto path = temp_file("bank-empty", "# nothing\n%s: %s\n");
  c.format_bank = path;
  try {
    Pipeline p(c, nullptr);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no usable format"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace logsift
