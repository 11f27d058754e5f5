// BERT WordPiece (models/wordpiece.h) on a hand-made vocab, with
// hand-computed ids. Parity with a Python reference on a bigger vocab is in
// torch_encoder_test.cpp (TinyEncoderParity).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/wordpiece.h"
#include "tests/test_util.h"

namespace logsift::models {
namespace {

using Ids = std::vector<int64_t>;

// id = line number - 1
const char* kVocab =
    "[PAD]\n"      // 0
    "[UNK]\n"      // 1
    "[CLS]\n"      // 2
    "[SEP]\n"      // 3
    "[VAR]\n"      // 4
    "hello\n"      // 5
    "world\n"      // 6
    "!\n"          // 7
    ",\n"          // 8
    "<\n"          // 9
    "*\n"          // 10
    ">\n"          // 11
    "un\n"         // 12
    "##aff\n"      // 13
    "##able\n"     // 14
    "x\n"          // 15
    "##x\n"        // 16
    "caf\xC3\xA9\n"  // 17 café
    "\xE6\x97\xA5\xE6\x9C\xAC\n"  // 18 日本
    "##\xE8\xAA\x9E\n"  // 19 ##語
    "\xC3\xA9\n"   // 20 é
    "##\xC3\xA9\n"  // 21 ##é
    "\xE6\x97\n"   // 22 the first two bytes of 日: must never match inside 日
    ":\n"          // 23
    "##ing\n";     // 24

WordPieceTokenizer make(WordPieceOptions o = {}) { return WordPieceTokenizer(kVocab, "test-vocab", o); }

using test::error_of;

TEST(WordPiece, SpecialTokenIdsByName) {
  auto t = make();
  EXPECT_EQ(t.vocab_size(), 25u);
  EXPECT_EQ(t.pad_id(), 0);
  EXPECT_EQ(t.unk_id(), 1);
  EXPECT_EQ(t.cls_id(), 2);
  EXPECT_EQ(t.sep_id(), 3);
  EXPECT_EQ(t.wildcard_id(), -1);
  EXPECT_EQ(t.id_of("hello"), 5);
  EXPECT_EQ(t.id_of("nope"), -1);
}

TEST(WordPiece, EmptyInputIsClsSep) {
  auto t = make();
  EXPECT_EQ(t.encode(""), (Ids{2, 3}));
  EXPECT_EQ(t.encode("   \t\r\n "), (Ids{2, 3}));
  EXPECT_EQ(t.encode("\x01\x7f"), (Ids{2, 3}));
}

TEST(WordPiece, PunctuationIsSplitIntoOwnTokens) {
  auto t = make();
  EXPECT_EQ(t.encode("hello,world!"), (Ids{2, 5, 8, 6, 7, 3}));
  EXPECT_EQ(t.encode("hello , world !!"), (Ids{2, 5, 8, 6, 7, 7, 3}));
  // A punctuation character missing from the vocab is [UNK] on its own.
  EXPECT_EQ(t.encode("hello.world"), (Ids{2, 5, 1, 6, 3}));
  EXPECT_EQ(t.tokenize("hello:world"), (std::vector<std::string>{"hello", ":", "world"}));
}

TEST(WordPiece, LowerCasingIsOptional) {
  EXPECT_EQ(make().encode("HELLO World"), (Ids{2, 5, 6, 3}));
  WordPieceOptions cased;
  cased.lower_case = false;
  EXPECT_EQ(make(cased).encode("HELLO World hello"), (Ids{2, 1, 1, 5, 3}));
}

TEST(WordPiece, GreedyLongestMatchWithContinuationPieces) {
  auto t = make();
  EXPECT_EQ(t.encode("unaffable"), (Ids{2, 12, 13, 14, 3}));
  EXPECT_EQ(t.tokenize("unaffable"), (std::vector<std::string>{"un", "##aff", "##able"}));
  EXPECT_EQ(t.encode("xxx"), (Ids{2, 15, 16, 16, 3}));
}

TEST(WordPiece, WordThatCannotBeCoveredIsOneUnk) {
  auto t = make();
  // "un" and "##aff" match, "q" does not: the whole word is one [UNK].
  EXPECT_EQ(t.encode("unaffq hello"), (Ids{2, 1, 5, 3}));
  EXPECT_EQ(t.encode("qunaffable"), (Ids{2, 1, 3}));
}

TEST(WordPiece, WordsOverOneHundredCharactersAreUnk) {
  auto t = make();
  Ids hundred = {2, 15};
  for (int i = 1; i < 100; ++i) hundred.push_back(16);
  hundred.push_back(3);
  EXPECT_EQ(t.encode(std::string(100, 'x')), hundred);
  EXPECT_EQ(t.encode(std::string(101, 'x')), (Ids{2, 1, 3}));
  // Characters, not bytes: 100 x "é" is 200 bytes and still one word of 100 pieces.
  std::string e100;
  for (int i = 0; i < 100; ++i) e100 += "\xC3\xA9";
  auto ids = t.encode(e100);
  ASSERT_EQ(ids.size(), 102u);
  EXPECT_EQ(ids[1], 20);
  EXPECT_EQ(ids[100], 21);
  EXPECT_EQ(t.encode(e100 + "\xC3\xA9"), (Ids{2, 1, 3}));
}

TEST(WordPiece, TruncationKeepsSepLast) {
  WordPieceOptions o;
  o.max_len = 4;
  auto t = make(o);
  EXPECT_EQ(t.encode("hello world hello world"), (Ids{2, 5, 6, 3}));
  EXPECT_EQ(t.encode("unaffable"), (Ids{2, 12, 13, 3}));  // cut inside a word's pieces
  EXPECT_EQ(t.encode("hello"), (Ids{2, 5, 3}));
  o.max_len = 2;
  EXPECT_EQ(make(o).encode("hello world"), (Ids{2, 3}));
  o.max_len = 1;
  EXPECT_NE(error_of([&] { make(o); }).find("max_len"), std::string::npos);
}

TEST(WordPiece, WildcardTokenOnAndOff) {
  auto off = make();
  EXPECT_EQ(off.encode("hello <*> world"), (Ids{2, 5, 9, 10, 11, 6, 3}));
  WordPieceOptions o;
  o.wildcard_token = "[VAR]";
  auto on = make(o);
  EXPECT_EQ(on.wildcard_id(), 4);
  EXPECT_EQ(on.encode("hello <*> world"), (Ids{2, 5, 4, 6, 3}));
  EXPECT_EQ(on.encode("hello<*>world"), (Ids{2, 5, 4, 6, 3}));   // a word boundary on both sides
  EXPECT_EQ(on.encode("<*><*>"), (Ids{2, 4, 4, 3}));
  EXPECT_EQ(on.encode("<<*>>"), (Ids{2, 9, 4, 11, 3}));
  EXPECT_EQ(on.encode("< * > <*"), (Ids{2, 9, 10, 11, 9, 10, 3}));  // only the literal "<*>"
  EXPECT_EQ(on.tokenize("x <*>"), (std::vector<std::string>{"x", "[VAR]"}));
  // Set but not in the vocab: "<*>" is split as punctuation.
  o.wildcard_token = "[WILD]";
  auto missing = make(o);
  EXPECT_EQ(missing.wildcard_id(), -1);
  EXPECT_EQ(missing.encode("<*>"), (Ids{2, 9, 10, 11, 3}));
}

TEST(WordPiece, Utf8IsNeverSplitInsideACharacter) {
  auto t = make();
  EXPECT_EQ(t.encode("caf\xC3\xA9"), (Ids{2, 17, 3}));
  EXPECT_EQ(t.encode("CAF\xC3\xA9"), (Ids{2, 17, 3}));  // ASCII lower-cased, é kept
  EXPECT_EQ(t.encode("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"), (Ids{2, 18, 19, 3}));  // 日本語 -> 日本 ##語
  // 日 alone: the vocab's "\xE6\x97" is a byte prefix of it, but not a character.
  EXPECT_EQ(t.encode("\xE6\x97\xA5"), (Ids{2, 1, 3}));
  // Malformed UTF-8: a truncated sequence is one character of its own.
  EXPECT_EQ(t.encode("\xE6\x97"), (Ids{2, 22, 3}));
  EXPECT_EQ(t.encode("\xE6\x97 hello"), (Ids{2, 22, 5, 3}));
  EXPECT_EQ(t.encode("\xFFhello \x80"), (Ids{2, 1, 1, 3}));
  // Non-ASCII is not lower-cased and not punctuation (documented difference
  // from BertTokenizer): "É" is a word character and unknown here.
  EXPECT_EQ(t.encode("\xC3\x89"), (Ids{2, 1, 3}));
}

TEST(WordPiece, ControlCharactersAreDroppedWhitespaceSplits) {
  auto t = make();
  EXPECT_EQ(t.encode("hel\x01lo"), (Ids{2, 5, 3}));  // removed, does not split
  EXPECT_EQ(t.encode(std::string("hel\0lo", 6)), (Ids{2, 5, 3}));
  EXPECT_EQ(t.encode("hello\x7f\tworld\r\n"), (Ids{2, 5, 6, 3}));
  EXPECT_EQ(t.encode("hel\xEF\xBF\xBDlo"), (Ids{2, 5, 3}));  // U+FFFD removed too
}

TEST(WordPiece, VocabErrorsNameTheProblem) {
  std::string no_unk = "[PAD]\n[CLS]\n[SEP]\nhello\n";
  EXPECT_NE(error_of([&] { WordPieceTokenizer(no_unk, "v.txt"); }).find("no [UNK]"), std::string::npos);
  EXPECT_NE(error_of([&] { WordPieceTokenizer("[UNK]\n[SEP]\n", "v.txt"); }).find("no [CLS]"), std::string::npos);
  EXPECT_NE(error_of([&] { WordPieceTokenizer("[UNK]\n[CLS]\n", "v.txt"); }).find("no [SEP]"), std::string::npos);
  std::string empty_err = error_of([&] { WordPieceTokenizer("", "v.txt"); });
  EXPECT_NE(empty_err.find("v.txt"), std::string::npos) << empty_err;
  EXPECT_NE(empty_err.find("empty"), std::string::npos) << empty_err;
  std::string dup = error_of([&] { WordPieceTokenizer("[UNK]\n[CLS]\n[SEP]\nhello\nworld\nhello\n", "v.txt"); });
  EXPECT_NE(dup.find("line 6"), std::string::npos) << dup;
  EXPECT_NE(dup.find("'hello'"), std::string::npos) << dup;
  EXPECT_NE(dup.find("first on line 4"), std::string::npos) << dup;
  std::string blank = error_of([&] { WordPieceTokenizer("[UNK]\n[CLS]\n\n[SEP]\n", "v.txt"); });
  EXPECT_NE(blank.find("line 3 is empty"), std::string::npos) << blank;
  // [PAD] is optional (0 then); CRLF files and a BOM are fine.
  WordPieceTokenizer crlf("\xEF\xBB\xBF[UNK]\r\n[CLS]\r\n[SEP]\r\nhello\r\n", "crlf.txt");
  EXPECT_EQ(crlf.pad_id(), 0);
  EXPECT_EQ(crlf.unk_id(), 0);
  EXPECT_EQ(crlf.encode("hello"), (Ids{1, 3, 2}));
}

TEST(WordPiece, FromFile) {
  std::string path = ::testing::TempDir() + "wordpiece_test_vocab.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << kVocab;
  }
  auto t = WordPieceTokenizer::from_file(path);
  EXPECT_EQ(t.encode("Hello, world!"), (Ids{2, 5, 8, 6, 7, 3}));
  EXPECT_EQ(t.origin(), path);
  std::remove(path.c_str());
  std::string err = error_of([&] { WordPieceTokenizer::from_file(path); });
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
}

}  // namespace
}  // namespace logsift::models
