#include <gtest/gtest.h>

#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

std::vector<std::string> texts(const std::string& line, const std::vector<Token>& toks) {
  std::vector<std::string> out;
  for (const auto& t : toks) out.push_back(line.substr(t.begin, t.end - t.begin));
  return out;
}

TEST(Tokenizer, KeepsDelimitersSoTheLineRoundTrips) {
  std::string line = "pam_unix(sshd:auth): authentication failure; logname= uid=0  tty=ssh";
  std::vector<Token> toks;
  tokenize(line, {}, &toks);
  std::string back;
  for (const auto& t : texts(line, toks)) back += t;
  EXPECT_EQ(back, line);
  EXPECT_EQ(render_template(line, toks), line);
  auto tx = texts(line, toks);
  EXPECT_EQ(tx[0], "pam_unix");
  EXPECT_EQ(tx[1], "(");
  EXPECT_EQ(tx[2], "sshd");
  EXPECT_EQ(tx[3], ":");
}

TEST(Tokenizer, WordKinds) {
  std::string line = "a, b";
  std::vector<Token> toks;
  tokenize(line, {}, &toks);
  ASSERT_EQ(toks.size(), 4u);
  EXPECT_EQ(toks[0].kind, TokenKind::kWord);
  EXPECT_EQ(toks[1].kind, TokenKind::kDelim);
  EXPECT_EQ(toks[2].kind, TokenKind::kDelim);
  EXPECT_EQ(toks[3].kind, TokenKind::kWord);
}

TEST(Tokenizer, TrailingDotsSplitOff) {
  std::string line = "No more methods available. Done...";
  std::vector<Token> toks;
  tokenize(line, {}, &toks);
  auto tx = texts(line, toks);
  EXPECT_NE(std::find(tx.begin(), tx.end(), "available"), tx.end());
  EXPECT_NE(std::find(tx.begin(), tx.end(), "Done"), tx.end());
  // Inner dots stay inside the word: class names are one token.
  std::string cls = "org.apache.hadoop.Task failed.";
  tokenize(cls, {}, &toks);
  EXPECT_EQ(texts(cls, toks)[0], "org.apache.hadoop.Task");
}

TEST(Tokenizer, MaskedSpansBecomeVarTokens) {
  std::string line = "from 1.2.3.4 port 22";
  std::vector<MaskSpan> masks{{5, 12, 0}, {18, 20, 1}};
  std::vector<Token> toks;
  tokenize(line, masks, &toks);
  EXPECT_EQ(render_template(line, toks), "from <*> port <*>");
  int vars = 0;
  for (const auto& t : toks) vars += t.kind == TokenKind::kVar;
  EXPECT_EQ(vars, 2);
}

TEST(Tokenizer, AdjacentVariablesCollapse) {
  std::string line = "id 12ab";
  std::vector<Token> toks{{0, 2, TokenKind::kWord}, {2, 3, TokenKind::kDelim}, {3, 5, TokenKind::kVar},
                          {5, 7, TokenKind::kVar}};
  EXPECT_EQ(render_template(line, toks), "id <*>");
}

TEST(Tokenizer, Utf8WordsStayWhole) {
  std::string line = "Benutzer müller angemeldet";
  std::vector<Token> toks;
  tokenize(line, {}, &toks);
  EXPECT_EQ(texts(line, toks)[2], "müller");
}

TEST(Tokenizer, EmptyLine) {
  std::vector<Token> toks;
  tokenize("", {}, &toks);
  EXPECT_TRUE(toks.empty());
  EXPECT_EQ(render_template("", toks), "");
}

}  // namespace
}  // namespace logsift
