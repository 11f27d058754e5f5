#include "pipeline/core/wildcards.h"

#include <gtest/gtest.h>

namespace logsift {
namespace {

TEST(CollapseWildcards, CollapsesAdjacentAndWhitespaceSeparatedRuns) {
    EXPECT_EQ(collapse_wildcards("<*> <*>"), "<*>");
    EXPECT_EQ(collapse_wildcards("<*><*>"), "<*>");
    EXPECT_EQ(collapse_wildcards("<*> <*><*>  <*>\t<*>"), "<*>");
    EXPECT_EQ(collapse_wildcards("user <*> <*> logged in"), "user <*> logged in");
    EXPECT_EQ(collapse_wildcards("a<*> <*>b"), "a<*>b");
}

TEST(CollapseWildcards, LeavesOtherTextAlone) {
    EXPECT_EQ(collapse_wildcards(""), "");
    EXPECT_EQ(collapse_wildcards("no wildcards  here "), "no wildcards  here ");
    EXPECT_EQ(collapse_wildcards("<*>"), "<*>");
    EXPECT_EQ(collapse_wildcards("<*>.<*>"), "<*>.<*>");      // punctuation separates
    EXPECT_EQ(collapse_wildcards("<*>:<*>"), "<*>:<*>");
    EXPECT_EQ(collapse_wildcards("<*> x <*>"), "<*> x <*>");  // a word separates
    EXPECT_EQ(collapse_wildcards("a <*>  b"), "a <*>  b");    // whitespace kept if no wildcard follows
    EXPECT_EQ(collapse_wildcards("end <*> "), "end <*> ");
    EXPECT_EQ(collapse_wildcards("<<*>>"), "<<*>>");
    EXPECT_EQ(collapse_wildcards("<* <*"), "<* <*");
}

TEST(CollapseWildcards, MixedRuns) {
    EXPECT_EQ(collapse_wildcards("<*> <*>:<*> <*> done"), "<*>:<*> done");
    EXPECT_EQ(collapse_wildcards("<*>.<*> <*>"), "<*>.<*>");
}

}  // namespace
}  // namespace logsift
