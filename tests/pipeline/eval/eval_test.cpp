#include "pipeline/eval/eval.h"
#include "tests/test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace logsift::eval {
namespace {

// --- grouping_accuracy ---

using Ids = std::vector<uint64_t>;
using Strs = std::vector<std::string>;

TEST(GroupingAccuracy, PerfectClusteringIsOneWhateverTheIds) {
    const Strs truth{"A", "A", "B", "C", "C", "C"};
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, Ids{7, 7, 3, 9, 9, 9}), 1.0);
    EXPECT_DOUBLE_EQ(
        grouping_accuracy(truth, Ids{0, 0, std::numeric_limits<uint64_t>::max(), 1, 1, 1}), 1.0);
}

TEST(GroupingAccuracy, MergingTwoGroupsMakesBothWrong) {
    // Cluster 1 = {A, A, B}: neither A's lines nor B's line are exact.
    EXPECT_DOUBLE_EQ(grouping_accuracy(Strs{"A", "A", "B", "C", "C", "C"}, Ids{1, 1, 1, 2, 2, 2}),
                     3.0 / 6.0);
}

TEST(GroupingAccuracy, SplittingAGroupMakesAllItsLinesWrong) {
    // A is split {0,1} + {2}: all three A lines are wrong, including the
    // "majority" part; B stays right.
    EXPECT_DOUBLE_EQ(grouping_accuracy(Strs{"A", "A", "A", "B", "B"}, Ids{1, 1, 2, 3, 3}), 2.0 / 5.0);
}

TEST(GroupingAccuracy, Singletons) {
    const Strs truth{"A", "B", "B", "C"};  // A and C are singleton groups
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, Ids{1, 2, 2, 3}), 1.0);
    // Every line alone: singletons are right, B's two lines are wrong.
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, Ids{1, 2, 3, 4}), 2.0 / 4.0);
    // A singleton group put in a bigger cluster is wrong, and so is that cluster.
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, Ids{2, 2, 2, 3}), 1.0 / 4.0);
}

TEST(GroupingAccuracy, OneBigCluster) {
    EXPECT_DOUBLE_EQ(grouping_accuracy(Strs{"A", "A", "A"}, Ids{5, 5, 5}), 1.0);
    EXPECT_DOUBLE_EQ(grouping_accuracy(Strs{"A", "A", "B"}, Ids{5, 5, 5}), 0.0);
}

TEST(GroupingAccuracy, NonContiguousLinesAndMixedErrors) {
    // Groups interleave; cluster 1 == A exactly, B is split, C merged with D.
    const Strs truth{"A", "B", "A", "C", "B", "D", "A"};
    const Ids pred{1, 2, 1, 4, 3, 4, 1};
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, pred), 3.0 / 7.0);
}

TEST(GroupingAccuracy, EmptyAndMismatchedInput) {
    EXPECT_DOUBLE_EQ(grouping_accuracy(Strs{}, Ids{}), 0.0);
    EXPECT_THROW(grouping_accuracy(Strs{"A", "B"}, Ids{1}), std::invalid_argument);
}

// --- parsing_accuracy ---

TEST(ParsingAccuracy, ExactTemplates) {
    const Strs truth{"open <*>", "open <*>", "close"};
    EXPECT_DOUBLE_EQ(parsing_accuracy(truth, Strs{"open <*>", "open <*>", "close"}), 1.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(truth, Strs{"open <*>", "open file", "close <*>"}), 1.0 / 3.0);
}

TEST(ParsingAccuracy, CollapsesConsecutiveWildcardsOnBothSides) {
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"user <*> from <*>"}, Strs{"user <*> <*> from <*>"}), 1.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"a <*><*> b"}, Strs{"a <*> b"}), 1.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"a <*> <*> b"}, Strs{"a <*><*> b"}), 1.0);
    // Not consecutive: a separator between the wildcards matters.
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"<*>:<*>"}, Strs{"<*>"}), 0.0);
}

TEST(ParsingAccuracy, WhitespaceDifferencesAreWrong) {
    // Only whitespace between wildcards is normalised; elsewhere the comparison is exact.
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"state = <*>"}, Strs{"state =  <*>"}), 0.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"done"}, Strs{"done "}), 0.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"a b"}, Strs{"a\tb"}), 0.0);
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{"Done"}, Strs{"done"}), 0.0);
}

TEST(ParsingAccuracy, IndependentOfGrouping) {
    // Right templates but every line in its own cluster: PA 1, GA 0.
    const Strs truth{"x <*>", "x <*>"};
    EXPECT_DOUBLE_EQ(parsing_accuracy(truth, Strs{"x <*>", "x <*>"}), 1.0);
    EXPECT_DOUBLE_EQ(grouping_accuracy(truth, Ids{1, 2}), 0.0);
}

TEST(ParsingAccuracy, EmptyAndMismatchedInput) {
    EXPECT_DOUBLE_EQ(parsing_accuracy(Strs{}, Strs{}), 0.0);
    EXPECT_THROW(parsing_accuracy(Strs{"a"}, Strs{}), std::invalid_argument);
}

// --- evaluate_dir / reports ---

// Groups lines by exact Content; the "template" is the line itself.
std::vector<Prediction> cluster_by_content(const std::vector<std::string>& lines) {
    std::unordered_map<std::string, uint64_t> ids;
    std::vector<Prediction> out;
    for (const auto& line : lines) {
        const uint64_t id = ids.try_emplace(line, ids.size()).first->second;
        out.push_back({id, line, id + 1000});  // template ids: the same partition, other values
    }
    return out;
}

class EvalDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = logsift::test::scratch_dir("logsift_eval_test_");
        std::filesystem::create_directories(dir_ / "tiny");
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    void write(const std::string& rel, const std::string& text) {
        std::ofstream(dir_ / rel, std::ios::binary) << text;
    }

    // Two sets; "tiny" is listed first but "alpha" must come first in the report.
    void write_fixture() {
        write("datasets.json", R"({
  "tiny":  {"log": "tiny/tiny.log", "truth": "tiny/tiny_structured.csv", "format": "<Content>"},
  "alpha": {"truth": "alpha.csv"}
})");
        // By-content clusters: {1,3} {2} {4,5} {6,7} {8}.
        // Truth groups:        {1,2,3} {4,5} {6,7} {8}.
        // GA: 1-3 wrong (group split), 4-8 right -> 5/8.
        // PA (template = content): 4-7 right; 1-3 and 8 have wildcards -> 4/8.
        write("tiny/tiny_structured.csv",
              "LineId,Content,EventId,EventTemplate\n"
              "1,open file a,E1,open file <*>\n"
              "2,open file b,E1,open file <*>\n"
              "3,open file a,E1,open file <*>\n"
              "4,\"close, done\",E2,\"close, done\"\n"
              "5,\"close, done\",E2,\"close, done\"\n"
              "6,ready,E3,ready\n"
              "7,ready,E3,ready\n"
              "8,\"say \"\"hi\"\", ok\",E4,\"say \"\"<*>\"\", ok\"\n");
        // Perfect on both metrics.
        write("alpha.csv", "Content,EventTemplate\r\nping,ping\r\nping,ping\r\n");
    }

    std::filesystem::path dir_;
};

TEST_F(EvalDirTest, ScoresEachSetSortedByName) {
    write_fixture();
    const EvalReport r = evaluate_dir(dir_.string(), cluster_by_content);
    ASSERT_EQ(r.datasets.size(), 2u);
    EXPECT_EQ(r.datasets[0].name, "alpha");
    EXPECT_EQ(r.datasets[0].lines, 2u);
    EXPECT_DOUBLE_EQ(r.datasets[0].ga, 1.0);
    EXPECT_DOUBLE_EQ(r.datasets[0].pa, 1.0);
    EXPECT_EQ(r.datasets[1].name, "tiny");
    EXPECT_EQ(r.datasets[1].lines, 8u);
    EXPECT_DOUBLE_EQ(r.datasets[1].ga, 5.0 / 8.0);
    EXPECT_DOUBLE_EQ(r.datasets[1].pa, 4.0 / 8.0);
    // Unweighted mean over sets.
    EXPECT_DOUBLE_EQ(r.avg_ga, (1.0 + 0.625) / 2);
    EXPECT_DOUBLE_EQ(r.avg_pa, (1.0 + 0.5) / 2);
}

TEST_F(EvalDirTest, PassesContentColumnInOrder) {
    write_fixture();
    std::vector<std::vector<std::string>> seen;
    evaluate_dir(dir_.string(), [&](const std::vector<std::string>& lines) {
        seen.push_back(lines);
        return cluster_by_content(lines);
    });
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], (std::vector<std::string>{"ping", "ping"}));
    ASSERT_EQ(seen[1].size(), 8u);
    EXPECT_EQ(seen[1][3], "close, done");
    EXPECT_EQ(seen[1][7], "say \"hi\", ok");
}

TEST_F(EvalDirTest, JsonAndTable) {
    write_fixture();
    const EvalReport r = evaluate_dir(dir_.string(), cluster_by_content);

    const nlohmann::json j = to_json(r);
    EXPECT_DOUBLE_EQ(j.at("datasets").at("tiny").at("ga").get<double>(), 0.625);
    EXPECT_DOUBLE_EQ(j.at("datasets").at("tiny").at("pa").get<double>(), 0.5);
    EXPECT_EQ(j.at("datasets").at("tiny").at("lines").get<size_t>(), 8u);
    EXPECT_DOUBLE_EQ(j.at("datasets").at("alpha").at("ga").get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(j.at("avg_ga").get<double>(), 0.8125);
    EXPECT_DOUBLE_EQ(j.at("avg_pa").get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(j.at("avg_ga_template").get<double>(), 0.8125);
    EXPECT_DOUBLE_EQ(j.at("datasets").at("alpha").at("ga_template").get<double>(), 1.0);
    EXPECT_EQ(j.size(), 4u);

    const std::string table = format_table(r);
    EXPECT_NE(table.find("tiny"), std::string::npos);
    EXPECT_NE(table.find("0.6250"), std::string::npos);
    EXPECT_NE(table.find("0.5000"), std::string::npos);
    EXPECT_NE(table.find("0.8125"), std::string::npos);
    EXPECT_NE(table.find("0.7500"), std::string::npos);
    std::istringstream in(table);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    ASSERT_EQ(lines.size(), 6u);  // header, rule, 2 sets, rule, average
    EXPECT_EQ(lines[0].rfind("Dataset", 0), 0u);
    EXPECT_EQ(lines[2].rfind("alpha", 0), 0u);
    EXPECT_EQ(lines[5].rfind("Average", 0), 0u);
    for (const auto& l : lines) EXPECT_EQ(l.size(), lines[0].size()) << "misaligned: " << l;
}

// --- explain: splits and merges ---

TEST(Explain, NamesTheSplitEventWithItsPiecesLargestFirst) {
    // Event A (4 lines) over ids 1 (1 line), 2 (3 lines); event B (2 lines) on id 3 alone.
    const Strs truth = {"A <*>", "A <*>", "B", "A <*>", "A <*>", "B"};
    const Ids ids = {1, 2, 3, 2, 2, 3};
    const Strs lines = {"A x", "A y", "B", "A z", "A w", "B"};
    const Strs tmpls = {"A x", "A <*>", "B", "A <*>", "A <*>", "B"};
    const Explanation e = explain(truth, ids, lines, tmpls, 3, 3);
    EXPECT_EQ(e.events, 2u);
    EXPECT_EQ(e.clusters, 3u);
    EXPECT_EQ(e.split_events, 1u);
    EXPECT_EQ(e.split_lines, 4u);
    EXPECT_EQ(e.merged_clusters, 0u);
    EXPECT_TRUE(e.merges.empty());
    ASSERT_EQ(e.splits.size(), 1u);
    EXPECT_EQ(e.splits[0].event, "A <*>");
    EXPECT_EQ(e.splits[0].lines, 4u);
    EXPECT_EQ(e.splits[0].ids, 2u);
    ASSERT_EQ(e.splits[0].parts.size(), 2u);
    EXPECT_EQ(e.splits[0].parts[0].id, "0000000000000002");
    EXPECT_EQ(e.splits[0].parts[0].lines, 3u);
    EXPECT_EQ(e.splits[0].parts[0].example, "A y") << "the first line of that piece";
    EXPECT_EQ(e.splits[0].parts[0].template_text, "A <*>");
    EXPECT_EQ(e.splits[0].parts[1].id, "0000000000000001");
    EXPECT_EQ(e.splits[0].parts[1].template_text, "A x");
}

TEST(Explain, NamesTheMergedIdWithItsEvents) {
    const Strs truth = {"open <*>", "close <*>", "open <*>", "ready"};
    const Ids ids = {0xabc, 0xabc, 0xabc, 7};
    const Strs lines = {"open a", "close a", "open b", "ready"};
    const Explanation e = explain(truth, ids, lines, lines, 3, 3);
    EXPECT_EQ(e.split_events, 0u);
    EXPECT_EQ(e.merged_clusters, 1u);
    EXPECT_EQ(e.merged_lines, 3u);
    ASSERT_EQ(e.merges.size(), 1u);
    EXPECT_EQ(e.merges[0].cluster_id, "0000000000000abc");
    EXPECT_EQ(e.merges[0].events, 2u);
    ASSERT_EQ(e.merges[0].parts.size(), 2u);
    EXPECT_EQ(e.merges[0].parts[0].id, "open <*>");
    EXPECT_EQ(e.merges[0].parts[0].lines, 2u);
    EXPECT_EQ(e.merges[0].parts[1].id, "close <*>");
    EXPECT_EQ(e.merges[0].parts[1].example, "close a");
}

TEST(Explain, KeepsTheWorstOnesWithinTheLimitsAndCountsAll) {
    // Events E0..E4, event k has k+2 lines, each line its own id: all split.
    Strs truth, lines;
    Ids ids;
    uint64_t next = 1;
    for (int k = 0; k < 5; ++k)
        for (int i = 0; i < k + 2; ++i) {
            truth.push_back("E" + std::to_string(k));
            lines.push_back("line " + std::to_string(next));
            ids.push_back(next++);
        }
    const Explanation e = explain(truth, ids, lines, lines, 2, 1);
    EXPECT_EQ(e.split_events, 5u);
    EXPECT_EQ(e.split_lines, truth.size());
    ASSERT_EQ(e.splits.size(), 2u);
    EXPECT_EQ(e.splits[0].event, "E4");
    EXPECT_EQ(e.splits[0].ids, 6u);
    EXPECT_EQ(e.splits[1].event, "E3");
    EXPECT_EQ(e.splits[0].parts.size(), 1u);
    EXPECT_TRUE(explain(truth, ids, lines, lines, 0, 3).splits.empty());
    EXPECT_THROW(explain(truth, ids, Strs{}, lines, 3, 3), std::invalid_argument);
}

TEST(TemplateDifference, NamesTheCauseAndTheWords) {
    struct Case {
        const char *a, *b;
        SplitCause cause;
        const char* text;
    };
    const Case cases[] = {
        {"Order <*> placed by <*>", "Order <*> placed by erin", SplitCause::kKeptValue, "`<*>` -> `erin`"},
        {"status unpacked <*> <*>", "status half-configured <*> <*>", SplitCause::kOtherWord,
         "`unpacked` -> `half-configured`"},
        {"<*> TCP_DENIED/<*> GET <*>", "<*> <*> GET <*>", SplitCause::kValueShape, "`TCP_DENIED/<*>` -> `<*>`"},
        {"open() failed, client: <*>", "open() failed, client: <*>, referrer: <*>", SplitCause::kExtraText,
         "+ `<*>, referrer:`"},
        {"a b c d", "a c d e", SplitCause::kExtraText, "- `b`; + `e`"},
        // A kept value outranks other differences in the same pair.
        {"x <*> y z", "x erin y", SplitCause::kKeptValue, "`<*>` -> `erin`; - `z`"},
        // Four places: three shown.
        {"a 1 b 2 c 3 d 4 e", "a x b y c z d w e", SplitCause::kOtherWord, "`1` -> `x`; `2` -> `y`; `3` -> `z`; ..."},
        {"same", "same", SplitCause::kExtraText, ""},
    };
    for (const Case& c : cases) {
        const TemplateDifference d = template_difference(c.a, c.b);
        EXPECT_EQ(d.cause, c.cause) << c.a << " / " << c.b;
        EXPECT_EQ(d.text, c.text) << c.a << " / " << c.b;
    }
    EXPECT_EQ(split_cause_key(SplitCause::kValueShape), "value_shape");
}

TEST(TemplateDifference, LongTemplatesStayBounded) {
    std::string a, b;
    a = b = "head ";
    for (int i = 0; i < 2000; ++i) {
        const std::string n = std::to_string(i);
        a += 'w';
        a += n;
        a += ' ';
        b += 'v';
        b += n;
        b += ' ';
    }
    a += "tail";
    b += "tail";
    const auto d = template_difference(a, b);
    EXPECT_EQ(d.cause, SplitCause::kOtherWord) << "one difference of equal length, word for word";
    EXPECT_EQ(d.text.substr(0, 4), "`w0 ") << d.text;
    EXPECT_EQ(d.text.find(';'), std::string::npos);
}

TEST(Explain, CountsWhyEachSplitPieceDiffers) {
    // Event A: 4 lines on id 1 ("A <*>"), 2 on id 2 ("A bob": a kept value),
    // 1 on id 3 ("A <*> again": extra text). Event B: 3 lines on ids 4 and 5,
    // which differ by another word.
    const Strs truth = {"A <*>", "A <*>", "A <*>", "A <*>", "A <*>", "A <*>", "A <*>", "B <*>", "B <*>", "B <*>"};
    const Ids ids = {1, 1, 2, 1, 2, 3, 1, 4, 4, 5};
    const Strs tmpls = {"A <*>", "A <*>", "A bob", "A <*>", "A bob", "A <*> again", "A <*>",
                        "B up <*>", "B up <*>", "B down <*>"};
    const Explanation e = explain(truth, ids, tmpls, tmpls, 1, 2);
    EXPECT_EQ(e.split_causes[static_cast<size_t>(SplitCause::kKeptValue)], 2u);
    EXPECT_EQ(e.split_causes[static_cast<size_t>(SplitCause::kExtraText)], 1u)
        << "counted although the report shows two pieces of one event";
    EXPECT_EQ(e.split_causes[static_cast<size_t>(SplitCause::kOtherWord)], 1u);
    EXPECT_EQ(e.split_causes[static_cast<size_t>(SplitCause::kValueShape)], 0u);
    ASSERT_EQ(e.splits.size(), 1u);
    ASSERT_EQ(e.splits[0].parts.size(), 2u);
    EXPECT_EQ(e.splits[0].parts[0].differs, "") << "the largest piece is the reference";
    EXPECT_EQ(e.splits[0].parts[1].differs, "`<*>` -> `bob`");
}

TEST_F(EvalDirTest, ReportExplainsEachSetInJsonAndText) {
    write_fixture();
    const EvalReport r = evaluate_dir(dir_.string(), cluster_by_content);
    const nlohmann::json j = to_json(r);
    const nlohmann::json& tiny = j.at("datasets").at("tiny");
    EXPECT_EQ(tiny.at("split_events").get<size_t>(), 1u);
    EXPECT_EQ(tiny.at("split_lines").get<size_t>(), 3u);
    EXPECT_EQ(tiny.at("merged_clusters").get<size_t>(), 0u);
    ASSERT_EQ(tiny.at("splits").size(), 1u);
    EXPECT_EQ(tiny.at("splits")[0].at("event").get<std::string>(), "open file <*>");
    EXPECT_EQ(tiny.at("splits")[0].at("ids").get<size_t>(), 2u);
    EXPECT_EQ(tiny.at("splits")[0].at("parts")[0].at("example").get<std::string>(), "open file a");
    EXPECT_EQ(tiny.at("splits")[0].at("parts")[0].at("differs").get<std::string>(), "");
    EXPECT_FALSE(tiny.at("splits")[0].at("parts")[1].at("differs").get<std::string>().empty());
    const nlohmann::json& causes = tiny.at("split_causes");
    EXPECT_EQ(causes.size(), kSplitCauses);
    size_t caused = 0;
    for (const auto& [k, v] : causes.items()) caused += v.get<size_t>();
    EXPECT_EQ(caused, 1u) << "the one line outside the split event's largest piece: " << causes.dump();
    EXPECT_EQ(j.at("datasets").at("alpha").at("splits").size(), 0u);

    const std::string text = format_explanation(r);
    EXPECT_EQ(text.find("alpha"), std::string::npos) << "a perfect set needs no explanation:\n" << text;
    EXPECT_NE(text.find("tiny: 4 events, 5 ids; 1 events split over several ids (3 lines)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("split  3 lines of one event -> 2 ids: open file <*>"), std::string::npos) << text;
    EXPECT_NE(text.find("e.g. open file b"), std::string::npos) << text;
    EXPECT_NE(text.find("why split (lines outside each event's largest id):"), std::string::npos) << text;
    EXPECT_NE(text.find("differs: "), std::string::npos) << text;
    EvalOptions none;
    none.explain = 0;
    EXPECT_TRUE(evaluate_dir(dir_.string(), cluster_by_content, none).datasets[1].why.splits.empty());
}

TEST(EvalJson, EmptyReportHasObjectForDatasets) {
    const nlohmann::json j = to_json(EvalReport{});
    EXPECT_TRUE(j.at("datasets").is_object());
}

// Expects evaluate_dir to throw std::runtime_error whose message contains `needle`.
void expect_error_naming(const std::string& dir, const std::string& needle, const ClusterFn& fn) {
    try {
        evaluate_dir(dir, fn);
        FAIL() << "expected an exception mentioning " << needle;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST_F(EvalDirTest, MissingIndexNamesFile) {
    expect_error_naming(dir_.string(), "datasets.json", cluster_by_content);
}

TEST_F(EvalDirTest, InvalidIndexNamesFile) {
    write("datasets.json", "{ not json");
    expect_error_naming(dir_.string(), "datasets.json", cluster_by_content);
    write("datasets.json", "[]");
    expect_error_naming(dir_.string(), "datasets.json", cluster_by_content);
    write("datasets.json", R"({"x": {"log": "x.log"}})");
    expect_error_naming(dir_.string(), "truth", cluster_by_content);
}

TEST_F(EvalDirTest, MissingCsvOrColumnNamesFile) {
    write("datasets.json", R"({"x": {"truth": "missing.csv"}})");
    expect_error_naming(dir_.string(), "missing.csv", cluster_by_content);
    write("datasets.json", R"({"x": {"truth": "x.csv"}})");
    write("x.csv", "Content,EventId\na,E1\n");
    expect_error_naming(dir_.string(), "EventTemplate", cluster_by_content);
    write("x.csv", "Content,EventTemplate\n");
    expect_error_naming(dir_.string(), "x.csv", cluster_by_content);
}

TEST_F(EvalDirTest, WrongPredictionCountNamesFile) {
    write_fixture();
    expect_error_naming(dir_.string(), "alpha.csv",
                        [](const std::vector<std::string>&) { return std::vector<Prediction>{}; });
}

TEST(EvalRealData, LoghubDirRunsEndToEnd) {
    if (!test::have_loghub()) GTEST_SKIP() << test::loghub_missing();
    const std::string dir = test::loghub_dir();
    const EvalReport r = evaluate_dir(dir, cluster_by_content);
    ASSERT_EQ(r.datasets.size(), 9u);
    EXPECT_EQ(r.datasets.front().name, "Android");
    for (const auto& d : r.datasets) {
        EXPECT_EQ(d.lines, 2000u) << d.name;
        EXPECT_GE(d.ga, 0.0);
        EXPECT_LE(d.ga, 1.0);
    }
}

}  // namespace
}  // namespace logsift::eval

namespace logsift::eval {
namespace {

// The person `--curate` plays: an event split by one word's values gets a
// value rule (one step, which bench/curate_replay.py replays through the
// API), GA rises on both halves, and every step is one the API takes.
TEST(CurateSimulation, ASplitEventGetsAValueRuleAndEveryStepIsListed) {
  std::vector<std::string> truth, templates;
  std::vector<uint64_t> ids;
  const std::vector<std::string> users = {"alice", "bob", "carol", "dave"};
  for (int i = 0; i < 80; ++i) {
    if (i % 5 == 4) {
      truth.push_back("Disk <*> full");
      templates.push_back("Disk <*> full");
      ids.push_back(0xd15c);
      continue;
    }
    const std::string& u = users[static_cast<size_t>(i) % users.size()];
    truth.push_back("Order <*> placed by <*>");
    templates.push_back("Order <*> placed by " + u);
    ids.push_back(0x1000 + static_cast<uint64_t>(i) % users.size());
  }
  const CurationScore s = simulate_curation(truth, ids, templates, 5);
  EXPECT_GT(s.ga_after_seen, s.ga_before_seen);
  EXPECT_GT(s.ga_after_other, s.ga_before_other);
  EXPECT_DOUBLE_EQ(s.ga_after_other, 1.0) << "the rule joins the other half's pieces too";
  EXPECT_EQ(s.steps.size(), s.accepted + s.rejected + s.manual);
  ASSERT_FALSE(s.steps.empty());
  for (const auto& st : s.steps) {
    if (st.kind == "value") {
      EXPECT_EQ(st.position, 4);
      EXPECT_GE(st.cluster, 0x1000u);
      EXPECT_LE(st.cluster, 0x1003u);
    }
    EXPECT_TRUE(st.kind == "value" || st.kind == "merge" || st.kind == "accept" || st.kind == "reject") << st.kind;
  }
}

}  // namespace
}  // namespace logsift::eval
