// The curation log's rules (pipeline/store/curation.h): merges resolve through
// chains, undo takes one action back once, a merge into itself, into a
// merged cluster or of a merged one is refused (so no cycle can form), a
// mute ends at its time, the stored form round-trips, and an action checked
// against a log another replica has since grown is checked again.
#include "pipeline/store/curation.h"

#include <limits>
#include <set>
#include <unordered_set>

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

TEST(Curation, MetricsArePinnedByNameUpToTheBoundAndANameWithoutOneUnpins) {
  auto named = [](uint64_t id, bool metric) {
    CurationAction a;
    a.kind = CurationKind::kName;
    a.cluster_id = id;
    a.name = "n" + std::to_string(id);
    a.metric = metric;
    return a;
  };
  const CurationState s = fold_all({named(1, true), named(2, true)});
  EXPECT_EQ(s.pinned, (std::unordered_set<uint64_t>{1, 2}));
  EXPECT_EQ(check(s, named(3, true), kAll, 2)->status, 409) << "past curation_max_metric_series";
  EXPECT_FALSE(check(s, named(1, true), kAll, 2)) << "renaming a pinned one is no new series";
  EXPECT_FALSE(check(s, named(3, false), kAll, 2));
  const CurationState t = fold_all({named(1, true), named(2, true), named(1, false)});
  EXPECT_EQ(t.pinned, (std::unordered_set<uint64_t>{2}));
  EXPECT_TRUE(CurationAction::from_text(named(4, true).to_text(), 1).metric);
}

TEST(Curation, IdsOfAnEarlierContractAreCarriedByTheIdMap) {
  // 1 became 10 and 11 (a split), 2 became 20, 3 became 30.
  const IdTranslator tr = [](uint64_t id) -> std::vector<uint64_t> {
    if (id == 1) return {10, 11};
    if (id == 2) return {20};
    if (id == 3) return {30};
    return {};
  };
  CurationAction name;
  name.kind = CurationKind::kName;
  name.cluster_id = 3;
  name.name = "x";
  std::vector<CurationAction> log = {merge(1, 2), name};
  for (size_t i = 0; i < log.size(); ++i) log[i].seq = static_cast<int64_t>(i) + 1;
  const CurationState s = fold(log, tr);
  EXPECT_EQ(s.resolve(10), 20u);
  EXPECT_EQ(s.resolve(11), 20u) << "each part of a split cluster stays merged";
  EXPECT_EQ(s.resolve(1), 1u) << "the old id is no line's any more";
  ASSERT_TRUE(s.named(30));
  EXPECT_EQ(s.named(30)->name, "x");
  EXPECT_EQ(s.actions[0].cluster_id, 1u) << "the log keeps the ids as taken";
}

TEST(Curation, AnAcceptedSuggestionIsOneActionAndARejectedOneIsRemembered) {
  CurationAction accept;
  accept.kind = CurationKind::kAccept;
  accept.suggestion = "s1";
  accept.into = 1;
  accept.members = {2, 3};
  CurationAction reject;
  reject.kind = CurationKind::kReject;
  reject.suggestion = "s2";
  const CurationState s = fold_all({accept, reject});
  EXPECT_EQ(s.resolve(2), 1u);
  EXPECT_EQ(s.resolve(3), 1u);
  EXPECT_TRUE(s.rejected.count("s2"));
  EXPECT_EQ(check(s, reject, kAll)->status, 409) << "rejected already";
  CurationAction again = accept;
  EXPECT_EQ(check(s, again, kAll)->status, 409) << "its clusters are merged already: nothing half-applied";
  const CurationState u = fold_all({accept, reject, undo(1)});
  EXPECT_EQ(u.resolve(2), 2u) << "undone as one";
  EXPECT_EQ(u.resolve(3), 3u);
  const CurationAction back = CurationAction::from_text(accept.to_text(), 1);
  EXPECT_EQ(back.members, accept.members);
  EXPECT_EQ(back.suggestion, "s1");
}

TEST(Curation, AWordMarkedAValueJoinsItsStatementNowAndLater) {
  CurationAction v;
  v.kind = CurationKind::kValue;
  v.cluster_id = 1;
  v.pattern = "Mailbox <*> opened for user <*>";
  v.position = 1;
  v.members = {2};
  const CurationState s = fold_all({v});
  EXPECT_EQ(s.resolve(2), 1u) << "the clusters it matched when taken";
  EXPECT_EQ(s.resolve_line(7, "Mailbox Archive opened for user <*>"), 1u) << "a word it never saw";
  EXPECT_EQ(s.resolve_line(7, "Mailbox Archive closed for user <*>"), 7u) << "another statement";
  EXPECT_EQ(s.resolve_line(7, "Mailbox Archive opened for user <*> today"), 7u) << "another length";
  EXPECT_EQ(check(s, v, kAll)->status, 409) << "the same rule again";
  CurationAction bad = v;
  bad.position = 0;
  EXPECT_EQ(check(s, bad, kAll)->status, 400);
  EXPECT_EQ(fold_all({v, undo(1)}).resolve_line(7, "Mailbox Archive opened for user <*>"), 7u) << "undone";
  const CurationAction back = CurationAction::from_text(v.to_text(), 1);
  EXPECT_EQ(back.pattern, v.pattern);
  EXPECT_EQ(back.position, 1);
  EXPECT_EQ(back.members, v.members);
}

// "This value is a constant": a line goes to the part of its value at the
// split's word, with that word written into its template; the part's id
// depends on the cluster, the word and the value only; lines without a value
// there stay whole; a split cluster cannot be split again, and an undo ends it.
TEST(Curation, ASplitSendsEachValueToItsOwnPart) {
  const uint64_t c = 0x1111000011110000ULL;
  const SplitRule rule{c, 2, 1};
  const std::string t = "Connection to <*> timed out after <*> s";
  auto a = split_part(rule, t, "Connection to db-7 timed out after 30 s");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->value, "db-7");
  EXPECT_EQ(a->template_text, "Connection to db-7 timed out after <*> s");
  EXPECT_EQ(a->cluster_id, split_part_id(c, 2, "db-7"));
  EXPECT_EQ(split_part(rule, t, "Connection to db-7 timed out after 2 s")->cluster_id, a->cluster_id);
  EXPECT_NE(split_part(rule, t, "Connection to db-9 timed out after 30 s")->cluster_id, a->cluster_id);
  EXPECT_NE(split_part_id(c + 1, 2, "db-7"), a->cluster_id) << "another cluster's part";
  EXPECT_NE(split_part_id(c, 3, "db-7"), a->cluster_id) << "another word's part";
  // A word with a value inside it keeps its constant part in the value.
  auto kv = split_part({c, 1, 1}, "login host=<*> failed", "login host=web-3 failed");
  ASSERT_TRUE(kv.has_value());
  EXPECT_EQ(kv->value, "host=web-3");
  EXPECT_EQ(kv->template_text, "login host=web-3 failed");
  // No value at that word, or a text that does not fit: stays whole.
  EXPECT_FALSE(split_part(rule, "Connection to db-7 timed out", "Connection to db-7 timed out").has_value());
  EXPECT_FALSE(split_part(rule, t, "something else entirely").has_value());

  auto split = [&](int64_t position, const std::string& pattern) {
    CurationAction s;
    s.kind = CurationKind::kSplit;
    s.cluster_id = c;
    s.position = position;
    s.pattern = pattern;
    return s;
  };
  auto known = [](uint64_t) { return true; };
  std::vector<CurationAction> log;
  auto take = [&](CurationAction x) {
    const auto st = fold(log);
    if (auto r = check(st, x, known)) return r->status;
    x.seq = static_cast<int64_t>(log.size()) + 1;
    log.push_back(x);
    return 0;
  };
  EXPECT_EQ(take(split(0, t)), 400) << "a constant word";
  EXPECT_EQ(take(split(9, t)), 400);
  EXPECT_EQ(take(split(2, t)), 0);
  ASSERT_NE(fold(log).split_of(c), nullptr);
  EXPECT_EQ(take(split(6, t)), 409) << "split already";
  const auto round = CurationAction::from_text(log[0].to_text(), 1);
  EXPECT_EQ(round.kind, CurationKind::kSplit);
  EXPECT_EQ(round.position, 2);
  EXPECT_EQ(round.pattern, t);
  EXPECT_EQ(take(undo(1)), 0);
  EXPECT_EQ(fold(log).split_of(c), nullptr);
  EXPECT_EQ(take(split(6, t)), 0) << "split again after the undo, by another word";
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
