#include <gtest/gtest.h>

#include "pipeline/core/params.h"

namespace logsift {
namespace {

std::vector<std::string> P(std::string_view tmpl, std::string_view text) {
  auto p = template_params(tmpl, text);
  if (!p) return {"<nullopt>"};
  return {p->begin(), p->end()};
}

TEST(TemplateParams, ValuesInOrder) {
  EXPECT_EQ(P("Failed password for <*> from <*> port <*> ssh2", "Failed password for root from 10.1.2.3 port 2222 ssh2"),
            (std::vector<std::string>{"root", "10.1.2.3", "2222"}));
  EXPECT_EQ(P("<*> connected", "db-7:5432 connected"), (std::vector<std::string>{"db-7:5432"}));
  EXPECT_EQ(P("took <*>", "took 12 ms"), (std::vector<std::string>{"12 ms"}));
  EXPECT_EQ(P("disk <*>% full", "disk 91% full"), (std::vector<std::string>{"91"}));
  EXPECT_EQ(P("no variables here", "no variables here"), (std::vector<std::string>{}));
  EXPECT_EQ(P("<*>", "anything at all"), (std::vector<std::string>{"anything at all"}));
  // A literal that repeats: the last literal anchors at the end.
  EXPECT_EQ(P("a <*> a", "a a a a"), (std::vector<std::string>{"a a"}));
}

TEST(TemplateParams, TextThatDoesNotFitIsNullopt) {
  EXPECT_EQ(P("User <*> logged in", "Disk full"), (std::vector<std::string>{"<nullopt>"}));
  EXPECT_EQ(P("no variables", "no variables at all"), (std::vector<std::string>{"<nullopt>"}));
  EXPECT_EQ(P("x <*> y", "x"), (std::vector<std::string>{"<nullopt>"}));
}

}  // namespace
}  // namespace logsift
