#include "pipeline/eval/eval.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include "pipeline/eval/csv.h"

namespace logsift::eval {

namespace {

constexpr std::string_view kWildcard = "<*>";

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void check_sizes(size_t truth, size_t predicted, const char* what) {
    if (truth != predicted) {
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(truth) +
                                    " truth labels but " + std::to_string(predicted) +
                                    " predictions");
    }
}

std::string format_fixed4(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

std::string pad_left(const std::string& s, size_t width) {
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string collapse_wildcards(std::string_view tmpl) {
    std::string out;
    out.reserve(tmpl.size());
    size_t i = 0;
    while (i < tmpl.size()) {
        if (tmpl.substr(i, kWildcard.size()) != kWildcard) {
            out.push_back(tmpl[i++]);
            continue;
        }
        out += kWildcard;
        i += kWildcard.size();
        // Swallow following wildcards reachable over whitespace only; if the
        // whitespace is not followed by a wildcard it is kept.
        for (;;) {
            size_t j = i;
            while (j < tmpl.size() && is_space(tmpl[j])) ++j;
            if (tmpl.substr(j, kWildcard.size()) != kWildcard) break;
            i = j + kWildcard.size();
        }
    }
    return out;
}

double grouping_accuracy(const std::vector<std::string>& truth_groups,
                         const std::vector<uint64_t>& predicted) {
    check_sizes(truth_groups.size(), predicted.size(), "grouping_accuracy");
    const size_t n = truth_groups.size();
    if (n == 0) return 0.0;

    // Dense ids for groups and clusters, their sizes, and the size of each
    // (cluster, group) intersection. A line is correct iff its cluster and its
    // group have the same size and that size is their intersection's size.
    std::unordered_map<std::string_view, uint32_t> group_ids;
    std::unordered_map<uint64_t, uint32_t> cluster_ids;
    std::vector<uint32_t> group_of(n), cluster_of(n);
    std::vector<size_t> group_size, cluster_size;
    std::unordered_map<uint64_t, size_t> overlap;
    group_ids.reserve(n);
    cluster_ids.reserve(n);
    overlap.reserve(n);

    for (size_t i = 0; i < n; ++i) {
        auto [git, gnew] = group_ids.try_emplace(truth_groups[i], group_size.size());
        if (gnew) group_size.push_back(0);
        auto [cit, cnew] = cluster_ids.try_emplace(predicted[i], cluster_size.size());
        if (cnew) cluster_size.push_back(0);
        group_of[i] = git->second;
        cluster_of[i] = cit->second;
        ++group_size[git->second];
        ++cluster_size[cit->second];
        ++overlap[(uint64_t{cit->second} << 32) | git->second];
    }

    size_t correct = 0;
    for (size_t i = 0; i < n; ++i) {
        const size_t cs = cluster_size[cluster_of[i]];
        if (cs == group_size[group_of[i]] &&
            cs == overlap[(uint64_t{cluster_of[i]} << 32) | group_of[i]]) {
            ++correct;
        }
    }
    return static_cast<double>(correct) / static_cast<double>(n);
}

double parsing_accuracy(const std::vector<std::string>& truth_templates,
                        const std::vector<std::string>& predicted_templates) {
    check_sizes(truth_templates.size(), predicted_templates.size(), "parsing_accuracy");
    const size_t n = truth_templates.size();
    if (n == 0) return 0.0;

    // Truth templates repeat heavily; collapse each distinct one once.
    std::unordered_map<std::string_view, std::string> collapsed_truth;
    size_t correct = 0;
    for (size_t i = 0; i < n; ++i) {
        auto it = collapsed_truth.find(truth_templates[i]);
        if (it == collapsed_truth.end()) {
            it = collapsed_truth
                     .emplace(truth_templates[i], collapse_wildcards(truth_templates[i]))
                     .first;
        }
        if (collapse_wildcards(predicted_templates[i]) == it->second) ++correct;
    }
    return static_cast<double>(correct) / static_cast<double>(n);
}

EvalReport evaluate_dir(const std::string& dir, const ClusterFn& fn) {
    namespace fs = std::filesystem;
    const std::string index_path = (fs::path(dir) / "datasets.json").string();

    std::ifstream in(index_path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + index_path);
    nlohmann::json index;
    try {
        index = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(index_path + ": invalid JSON: " + e.what());
    }
    if (!index.is_object() || index.empty()) {
        throw std::runtime_error(index_path + ": expected a non-empty object of datasets");
    }

    // Collect first so bad entries fail before any (possibly slow) clustering.
    std::vector<std::pair<std::string, std::string>> sets;  // name, csv path
    for (const auto& [name, spec] : index.items()) {
        if (!spec.is_object() || !spec.contains("truth") || !spec["truth"].is_string()) {
            throw std::runtime_error(index_path + ": dataset \"" + name +
                                     "\" has no string field \"truth\"");
        }
        sets.emplace_back(name, (fs::path(dir) / spec["truth"].get<std::string>()).string());
    }
    std::sort(sets.begin(), sets.end());

    EvalReport report;
    for (const auto& [name, csv_path] : sets) {
        const CsvTable table = read_csv_file(csv_path);
        const int content_col = table.column("Content");
        const int template_col = table.column("EventTemplate");
        if (content_col < 0) throw std::runtime_error(csv_path + ": no \"Content\" column");
        if (template_col < 0) throw std::runtime_error(csv_path + ": no \"EventTemplate\" column");
        if (table.rows.empty()) throw std::runtime_error(csv_path + ": no data rows");

        std::vector<std::string> lines, truth;
        lines.reserve(table.rows.size());
        truth.reserve(table.rows.size());
        for (const auto& row : table.rows) {
            lines.push_back(row[content_col]);
            truth.push_back(row[template_col]);
        }

        const std::vector<Prediction> preds = fn(lines);
        if (preds.size() != lines.size()) {
            throw std::runtime_error("clusterer returned " + std::to_string(preds.size()) +
                                     " predictions for " + std::to_string(lines.size()) +
                                     " lines of " + csv_path);
        }
        std::vector<uint64_t> ids, template_ids;
        std::vector<std::string> templates;
        ids.reserve(preds.size());
        template_ids.reserve(preds.size());
        templates.reserve(preds.size());
        for (const auto& p : preds) {
            ids.push_back(p.cluster_id);
            template_ids.push_back(p.template_id);
            templates.push_back(p.template_text);
        }

        DatasetScore score;
        score.name = name;
        score.lines = lines.size();
        // True groups are keyed by EventTemplate (1:1 with EventId in loghub-2k).
        score.ga = grouping_accuracy(truth, ids);
        score.ga_template = grouping_accuracy(truth, template_ids);
        score.pa = parsing_accuracy(truth, templates);
        report.datasets.push_back(std::move(score));
    }

    for (const auto& d : report.datasets) {
        report.avg_ga += d.ga;
        report.avg_ga_template += d.ga_template;
        report.avg_pa += d.pa;
    }
    report.avg_ga /= static_cast<double>(report.datasets.size());
    report.avg_ga_template /= static_cast<double>(report.datasets.size());
    report.avg_pa /= static_cast<double>(report.datasets.size());
    return report;
}

std::string format_table(const EvalReport& r) {
    size_t name_w = std::string_view("Dataset").size();
    size_t lines_w = std::string_view("Lines").size();
    for (const auto& d : r.datasets) {
        name_w = std::max(name_w, d.name.size());
        lines_w = std::max(lines_w, std::to_string(d.lines).size());
    }
    const size_t num_w = 6;  // "1.0000"

    const size_t tmpl_w = std::string_view("GA(tmpl)").size();
    auto row = [&](const std::string& name, const std::string& lines, const std::string& ga,
                   const std::string& ga_t, const std::string& pa) {
        return pad_right(name, name_w) + "  " + pad_left(lines, lines_w) + "  " +
               pad_left(ga, num_w) + "  " + pad_left(ga_t, tmpl_w) + "  " + pad_left(pa, num_w) + "\n";
    };
    const std::string rule = row(std::string(name_w, '-'), std::string(lines_w, '-'),
                                 std::string(num_w, '-'), std::string(tmpl_w, '-'), std::string(num_w, '-'));

    std::string out = row("Dataset", "Lines", "GA", "GA(tmpl)", "PA") + rule;
    for (const auto& d : r.datasets) {
        out += row(d.name, std::to_string(d.lines), format_fixed4(d.ga), format_fixed4(d.ga_template),
                   format_fixed4(d.pa));
    }
    out += rule;
    // Averages are unweighted per dataset, so no line count on this row.
    out += row("Average", "", format_fixed4(r.avg_ga), format_fixed4(r.avg_ga_template), format_fixed4(r.avg_pa));
    return out;
}

nlohmann::json to_json(const EvalReport& r) {
    nlohmann::json sets = nlohmann::json::object();
    for (const auto& d : r.datasets) {
        sets[d.name] = {{"ga", d.ga}, {"ga_template", d.ga_template}, {"pa", d.pa}, {"lines", d.lines}};
    }
    return {{"datasets", std::move(sets)},
            {"avg_ga", r.avg_ga},
            {"avg_ga_template", r.avg_ga_template},
            {"avg_pa", r.avg_pa}};
}

}  // namespace logsift::eval
