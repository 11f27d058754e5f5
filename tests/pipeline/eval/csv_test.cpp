#include "pipeline/eval/csv.h"
#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace logsift {
namespace {

using Records = std::vector<std::vector<std::string>>;

TEST(ParseCsv, PlainRecords) {
    EXPECT_EQ(parse_csv("a,b,c\n1,2,3\n"), (Records{{"a", "b", "c"}, {"1", "2", "3"}}));
}

TEST(ParseCsv, TrailingNewlineIsOptional) {
    EXPECT_EQ(parse_csv("a,b\n1,2"), parse_csv("a,b\n1,2\n"));
    EXPECT_EQ(parse_csv("a,b\n1,2").size(), 2u);
}

TEST(ParseCsv, EmptyInput) { EXPECT_TRUE(parse_csv("").empty()); }

TEST(ParseCsv, CrlfTerminators) {
    EXPECT_EQ(parse_csv("a,b\r\n1,2\r\n"), (Records{{"a", "b"}, {"1", "2"}}));
    EXPECT_EQ(parse_csv("a,\"b\"\r\n1,2"), (Records{{"a", "b"}, {"1", "2"}}));
}

TEST(ParseCsv, QuotedFieldWithCommas) {
    EXPECT_EQ(parse_csv("x,\"Registered handlers for [TERM, HUP, INT]\",y\n"),
              (Records{{"x", "Registered handlers for [TERM, HUP, INT]", "y"}}));
}

TEST(ParseCsv, DoubledQuoteEscapes) {
    // As in the Android truth: tag=""View Lock"" inside a quoted field.
    EXPECT_EQ(parse_csv("\"tag=\"\"View Lock\"\", name=x\",E10\n"),
              (Records{{"tag=\"View Lock\", name=x", "E10"}}));
    EXPECT_EQ(parse_csv("\"\"\"\"\n"), (Records{{"\""}}));  // a lone quote
    EXPECT_EQ(parse_csv("\"\",a\n"), (Records{{"", "a"}}));  // quoted empty field
}

TEST(ParseCsv, EmbeddedNewlinesInQuotes) {
    EXPECT_EQ(parse_csv("a,\"line1\nline2\",b\nc,d,e\n"),
              (Records{{"a", "line1\nline2", "b"}, {"c", "d", "e"}}));
    // CRLF inside quotes is data, not a terminator.
    EXPECT_EQ(parse_csv("\"x\r\ny\"\r\n"), (Records{{"x\r\ny"}}));
}

TEST(ParseCsv, EmptyFields) {
    EXPECT_EQ(parse_csv("a,,b\n"), (Records{{"a", "", "b"}}));
    EXPECT_EQ(parse_csv("a,\n"), (Records{{"a", ""}}));
    EXPECT_EQ(parse_csv("a,"), (Records{{"a", ""}}));
    EXPECT_EQ(parse_csv(",\n"), (Records{{"", ""}}));
}

TEST(ParseCsv, EmptyLineIsOneEmptyField) {
    EXPECT_EQ(parse_csv("a\n\nb\n"), (Records{{"a"}, {""}, {"b"}}));
}

TEST(ParseCsv, LenientStrayQuotes) {
    // Like Python's csv module: quotes inside an unquoted field are literal,
    // text after a closing quote is appended.
    EXPECT_EQ(parse_csv("ab\"c,d\n"), (Records{{"ab\"c", "d"}}));
    EXPECT_EQ(parse_csv("\"ab\"c,d\n"), (Records{{"abc", "d"}}));
}

TEST(ParseCsv, UnterminatedQuoteThrows) {
    EXPECT_THROW(parse_csv("a,\"oops\nb,c\n"), std::runtime_error);
}

class CsvFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = logsift::test::scratch_dir("logsift_csv_test_");
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) {
        const auto path = dir_ / name;
        std::ofstream(path, std::ios::binary) << text;
        return path.string();
    }

    std::filesystem::path dir_;
};

TEST_F(CsvFileTest, ReadsHeaderRowsAndColumns) {
    const auto path = write("t.csv", "\xEF\xBB\xBFLineId,Content,EventId\r\n1,\"a, b\",E1\r\n2,c,E2\r\n\r\n");
    const CsvTable t = read_csv_file(path);
    EXPECT_EQ(t.header, (std::vector<std::string>{"LineId", "Content", "EventId"}));  // BOM stripped
    ASSERT_EQ(t.rows.size(), 2u);  // trailing blank line skipped
    EXPECT_EQ(t.rows[0][1], "a, b");
    EXPECT_EQ(t.column("Content"), 1);
    EXPECT_EQ(t.column("EventId"), 2);
    EXPECT_EQ(t.column("EventTemplate"), -1);
    EXPECT_EQ(t.column("content"), -1);  // case-sensitive
}

TEST_F(CsvFileTest, MissingFileThrowsWithPath) {
    const std::string path = (dir_ / "nope.csv").string();
    try {
        read_csv_file(path);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST_F(CsvFileTest, RaggedRowThrowsWithPath) {
    const auto path = write("ragged.csv", "a,b\n1,2\n3\n");
    try {
        read_csv_file(path);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST_F(CsvFileTest, UnterminatedQuoteThrowsWithPath) {
    const auto path = write("bad.csv", "a,b\n1,\"2\n");
    try {
        read_csv_file(path);
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST_F(CsvFileTest, EmptyFileThrows) {
    EXPECT_THROW(read_csv_file(write("empty.csv", "")), std::runtime_error);
}

TEST(CsvRealData, HdfsStructuredCsv) {
    if (!test::have_loghub()) GTEST_SKIP() << test::loghub_missing();
    const std::string path = test::loghub_dir() + "/HDFS/HDFS_2k.log_structured_corrected.csv";

    const CsvTable t = read_csv_file(path);
    EXPECT_EQ(t.header, (std::vector<std::string>{"LineId", "Date", "Time", "Pid", "Level",
                                                  "Component", "Content", "EventId",
                                                  "EventTemplate"}));
    ASSERT_EQ(t.rows.size(), 2000u);
    const int content = t.column("Content");
    const int id = t.column("EventId");
    const int tmpl = t.column("EventTemplate");
    ASSERT_GE(content, 0);
    ASSERT_GE(id, 0);
    ASSERT_GE(tmpl, 0);
    EXPECT_EQ(t.rows.front()[0], "1");
    EXPECT_EQ(t.rows.back()[0], "2000");
    EXPECT_EQ(t.rows.front()[content],
              "PacketResponder 1 for block blk_38865049064139660 terminating");
    EXPECT_EQ(t.rows.front()[tmpl], "PacketResponder <*> for block <*> terminating");

    // EventId and EventTemplate label the same partition (we group by template).
    std::map<std::string, std::set<std::string>> id_to_tmpl, tmpl_to_id;
    for (const auto& row : t.rows) {
        id_to_tmpl[row[id]].insert(row[tmpl]);
        tmpl_to_id[row[tmpl]].insert(row[id]);
    }
    EXPECT_EQ(id_to_tmpl.size(), 14u);
    EXPECT_EQ(tmpl_to_id.size(), 14u);
    for (const auto& [k, v] : id_to_tmpl) EXPECT_EQ(v.size(), 1u) << k;
}

}  // namespace
}  // namespace logsift
