// The curation log's rules (pipeline/store/curation.h): merges resolve through
// chains, undo takes one action back once, a merge into itself, into a
// merged cluster or of a merged one is refused (so no cycle can form), a
// mute ends at its time, the stored form round-trips, and an action checked
// against a log another replica has since grown is checked again.
#include "pipeline/store/curation.h"

#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "tests/pipeline/store/memory_catalog.h"

namespace logsift {
namespace {

CurationAction merge(uint64_t from, uint64_t into) {
  CurationAction a;
  a.kind = CurationKind::kMerge;
  a.cluster_id = from;
  a.into = into;
  return a;
}

CurationAction undo(int64_t seq) {
  CurationAction a;
  a.kind = CurationKind::kUndo;
  a.undoes = seq;
  return a;
}

CurationState fold_all(std::vector<CurationAction> v) {
  for (size_t i = 0; i < v.size(); ++i) v[i].seq = static_cast<int64_t>(i) + 1;
  return fold(std::move(v));
}

const auto kAll = [](uint64_t) { return true; };

TEST(Curation, MergesResolveThroughChainsAndUndoTakesOneBack) {
  const CurationState s = fold_all({merge(1, 2), merge(2, 3), merge(4, 3)});
  EXPECT_EQ(s.resolve(1), 3u);
  EXPECT_EQ(s.resolve(2), 3u);
  EXPECT_EQ(s.resolve(4), 3u);
  EXPECT_EQ(s.resolve(5), 5u);
  const auto members = s.members(3);
  EXPECT_EQ(std::set<uint64_t>(members.begin(), members.end()), (std::set<uint64_t>{1, 2, 4}));
  const CurationState u = fold_all({merge(1, 2), merge(2, 3), undo(2)});
  EXPECT_EQ(u.resolve(1), 2u) << "undoing the later merge leaves the earlier";
  EXPECT_EQ(u.resolve(2), 2u);
  EXPECT_EQ(u.version, 3);
}

TEST(Curation, RefusesWhatWouldBreakTheGraphOrNameNothing) {
  const CurationState s = fold_all({merge(1, 2)});
  EXPECT_EQ(check(s, merge(3, 3), kAll)->status, 400);
  EXPECT_EQ(check(s, merge(1, 3), kAll)->status, 409) << "merged already";
  EXPECT_EQ(check(s, merge(3, 1), kAll)->status, 409) << "into a merged cluster";
  EXPECT_FALSE(check(s, merge(2, 3), kAll)) << "the survivor may join another: its members follow";
  EXPECT_EQ(check(s, merge(3, 4), [](uint64_t id) { return id != 4; })->status, 404);
  EXPECT_EQ(check(s, undo(2), kAll)->status, 404);
  const CurationState u = fold_all({merge(1, 2), undo(1)});
  EXPECT_EQ(check(u, undo(1), kAll)->status, 409) << "undone already";
  EXPECT_EQ(check(u, undo(2), kAll)->status, 409) << "an undo is not undone";
  CurationAction name;
  name.kind = CurationKind::kName;
  name.cluster_id = 5;
  EXPECT_EQ(check(u, name, kAll)->status, 400) << "an empty name";
  name.name = "checkout errors";
  EXPECT_FALSE(check(u, name, kAll));
}

TEST(Curation, AMuteEndsAtItsTimeAndForGoodHasNone) {
  CurationAction until;
  until.kind = CurationKind::kMute;
  until.cluster_id = 7;
  until.until_ms = 5000;
  CurationAction forever = until;
  forever.cluster_id = 8;
  forever.until_ms = 0;
  const CurationState s = fold_all({until, forever});
  EXPECT_TRUE(s.muted(7, 4999));
  EXPECT_FALSE(s.muted(7, 5000));
  EXPECT_TRUE(s.muted(8, std::numeric_limits<int64_t>::max() - 1));
  EXPECT_FALSE(s.muted(9, 0));
}

TEST(Curation, TheStoredFormRoundTripsAndABadOneIsAnError) {
  CurationAction a;
  a.kind = CurationKind::kName;
  a.cluster_id = 0x0123456789abcdefULL;
  a.name = "db \"timeouts\"";
  a.note = "line 1\nline 2";
  a.at_ms = 1764000000000;
  a.by = "admin token";
  const CurationAction b = CurationAction::from_text(a.to_text(), 3);
  EXPECT_EQ(b.seq, 3);
  EXPECT_EQ(b.cluster_id, a.cluster_id);
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.note, a.note);
  EXPECT_EQ(b.at_ms, a.at_ms);
  EXPECT_EQ(b.by, a.by);
  EXPECT_THROW(CurationAction::from_text("{\"kind\":\"explode\"}", 1), std::invalid_argument);
  EXPECT_THROW(CurationAction::from_text("not json", 1), std::invalid_argument);
  EXPECT_THROW(CurationAction::from_text("{\"kind\":\"merge\",\"cluster_id\":\"zz\"}", 1), std::invalid_argument);
}

TEST(Curation, AnActionCheckedAgainstAStaleLogIsCheckedAgain) {
  test::MemoryCatalog store;
  Curation mine, theirs;
  CurationAction first = merge(1, 2);
  ASSERT_FALSE(take_action(store, theirs, first, kAll));
  EXPECT_EQ(first.seq, 1);
  // This replica has not read the log since: its merge of 1 elsewhere is
  // checked against the log as it is now, and refused.
  CurationAction late = merge(1, 3);
  auto r = take_action(store, mine, late, kAll);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(store.curation_size(), 1);
  EXPECT_EQ(mine.get()->resolve(1), 2u) << "and it now follows the log";
  // refresh_curation reads a grown log.
  CurationAction other = merge(4, 2);
  ASSERT_FALSE(take_action(store, theirs, other, kAll));
  refresh_curation(store, mine);
  EXPECT_EQ(mine.get()->version, 2);
  EXPECT_EQ(mine.get()->resolve(4), 2u);
}

}  // namespace
}  // namespace logsift
