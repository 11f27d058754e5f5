#pragma once
// Offline scoring of a clusterer against labelled loghub-style data
// (`logsift eval DIR [--json]`). Metrics follow the loghub standard.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace logsift::eval {

struct Prediction {
    uint64_t cluster_id;
    std::string template_text;
    uint64_t template_id = 0;  // hash of the exact template text (0 = not given)
};

// Clusters lines (in order) -> one Prediction per line, same order.
using ClusterFn = std::function<std::vector<Prediction>(const std::vector<std::string>& lines)>;

// Replaces every run of `<*>` tokens separated only by nothing or whitespace
// with a single `<*>` ("<*> <*>", "<*><*>" -> "<*>"). Other text, including
// whitespace elsewhere, is unchanged.
std::string collapse_wildcards(std::string_view tmpl);

// Grouping Accuracy: fraction of lines whose predicted cluster has exactly the
// same line set as their true group (truth_groups[i] is line i's group key).
// Sizes must match (std::invalid_argument otherwise); 0 for no lines.
double grouping_accuracy(const std::vector<std::string>& truth_groups,
                         const std::vector<uint64_t>& predicted);

// Parsing Accuracy: fraction of lines whose predicted template equals the
// true one after collapse_wildcards on both; otherwise an exact comparison
// (whitespace differences count as wrong). Sizes must match; 0 for no lines.
double parsing_accuracy(const std::vector<std::string>& truth_templates,
                        const std::vector<std::string>& predicted_templates);

struct DatasetScore {
    std::string name;
    double ga = 0, pa = 0;
    double ga_template = 0;  // GA of template_id: what the encoder + LSH start from
    size_t lines = 0;
};

struct EvalReport {
    std::vector<DatasetScore> datasets;
    double avg_ga = 0, avg_pa = 0;  // unweighted mean over datasets
    double avg_ga_template = 0;
};

// Reads DIR/datasets.json (keys = set names, each with "truth": path of the
// structured csv relative to DIR), clusters each set's Content column with fn
// and scores it against EventTemplate. Datasets are sorted by name.
// Throws std::runtime_error naming the file on missing/invalid input.
EvalReport evaluate_dir(const std::string& dir, const ClusterFn& fn);

// Aligned text table: Dataset | Lines | GA | GA(tmpl) | PA, then an Average row;
// 4 decimals. GA is of cluster_id, GA(tmpl) of template_id.
std::string format_table(const EvalReport& r);

// {"datasets":{NAME:{"ga":..,"ga_template":..,"pa":..,"lines":..}},"avg_ga":..,
//  "avg_ga_template":..,"avg_pa":..}
nlohmann::json to_json(const EvalReport& r);

}  // namespace logsift::eval
