#include "pipeline/eval/eval.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "pipeline/core/text.h"
#include "pipeline/core/wildcards.h"
#include "pipeline/eval/csv.h"

namespace logsift::eval {

namespace {

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

std::string hex16(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// Cuts s to at most width bytes, ending in "..." when cut, never inside a
// UTF-8 sequence.
std::string clip(const std::string& s, size_t width) {
    if (s.size() <= width || width < 4) return s;
    size_t n = width - 3;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return s.substr(0, n) + "...";
}

// Piece index -> (lines, first line); pieces ordered by lines desc, then key.
template <typename Key>
struct Pieces {
    std::map<Key, std::pair<size_t, size_t>> by_key;
    void add(const Key& k, size_t line) {
        auto [it, fresh] = by_key.try_emplace(k, 0, line);
        ++it->second.first;
    }
    std::vector<std::pair<Key, std::pair<size_t, size_t>>> largest(size_t n) const {
        std::vector<std::pair<Key, std::pair<size_t, size_t>>> v(by_key.begin(), by_key.end());
        std::stable_sort(v.begin(), v.end(),
                         [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
        if (v.size() > n) v.resize(n);
        return v;
    }
};

std::vector<std::string_view> words_of(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && text::is_blank(s[i])) ++i;
        size_t j = i;
        while (j < s.size() && !text::is_blank(s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

bool is_value_word(std::string_view w) { return w.find(kWildcard) != std::string_view::npos; }

std::string join_words(const std::vector<std::string_view>& w, size_t b, size_t e) {
    std::string out;
    for (size_t i = b; i < e; ++i) {
        if (i > b) out += ' ';
        out += w[i];
    }
    return clip(out, 40);
}

}  // namespace

std::string_view split_cause_key(SplitCause c) {
    switch (c) {
        case SplitCause::kKeptValue: return "kept_value";
        case SplitCause::kOtherWord: return "other_word";
        case SplitCause::kValueShape: return "value_shape";
        case SplitCause::kExtraText: break;
    }
    return "extra_text";
}

TemplateDifference template_difference(std::string_view a, std::string_view b) {
    const auto wa = words_of(a), wb = words_of(b);
    size_t pre = 0;
    while (pre < wa.size() && pre < wb.size() && wa[pre] == wb[pre]) ++pre;
    size_t suf = 0;
    while (suf < wa.size() - pre && suf < wb.size() - pre && wa[wa.size() - 1 - suf] == wb[wb.size() - 1 - suf])
        ++suf;
    const size_t n = wa.size() - pre - suf, m = wb.size() - pre - suf;
    // Differing places: [a_begin, a_end) of wa against [b_begin, b_end) of wb.
    struct Op {
        size_t ab, ae, bb, be;
    };
    std::vector<Op> ops;
    constexpr size_t kMaxMiddle = 256;
    if (n > 0 || m > 0) {
        if (n > kMaxMiddle || m > kMaxMiddle || n == 0 || m == 0) {
            ops.push_back({pre, pre + n, pre, pre + m});
        } else {
            // lcs[i][j]: LCS length of the middles' suffixes from i and j.
            std::vector<uint16_t> lcs((n + 1) * (m + 1), 0);
            auto at = [&](size_t i, size_t j) -> uint16_t& { return lcs[i * (m + 1) + j]; };
            for (size_t i = n; i-- > 0;)
                for (size_t j = m; j-- > 0;)
                    at(i, j) = wa[pre + i] == wb[pre + j] ? static_cast<uint16_t>(at(i + 1, j + 1) + 1)
                                                          : std::max(at(i + 1, j), at(i, j + 1));
            size_t i = 0, j = 0;
            while (i < n || j < m) {
                if (i < n && j < m && wa[pre + i] == wb[pre + j]) {
                    ++i, ++j;
                    continue;
                }
                Op op{pre + i, pre + i, pre + j, pre + j};
                while ((i < n || j < m) && !(i < n && j < m && wa[pre + i] == wb[pre + j])) {
                    if (j == m || (i < n && at(i + 1, j) >= at(i, j + 1)))
                        ++i;
                    else
                        ++j;
                }
                op.ae = pre + i, op.be = pre + j;
                ops.push_back(op);
            }
        }
    }
    TemplateDifference d;
    bool kept = false, other = false, shape = false;
    for (const Op& op : ops) {
        if (op.ae - op.ab != op.be - op.bb) continue;  // extra text
        for (size_t k = 0; k < op.ae - op.ab; ++k) {
            const bool va = is_value_word(wa[op.ab + k]), vb = is_value_word(wb[op.bb + k]);
            if (va && vb)
                shape = true;
            else if (va || vb)
                kept = true;
            else
                other = true;
        }
    }
    d.cause = kept    ? SplitCause::kKeptValue
              : other ? SplitCause::kOtherWord
              : shape ? SplitCause::kValueShape
                      : SplitCause::kExtraText;
    for (size_t k = 0; k < ops.size() && k < 3; ++k) {
        const Op& op = ops[k];
        if (k > 0) d.text += "; ";
        if (op.ab == op.ae) {
            d.text += "+ `";
        } else {
            d.text += op.bb == op.be ? "- `" : "`";
            d.text += join_words(wa, op.ab, op.ae);
            d.text += op.bb == op.be ? "`" : "` -> `";
        }
        if (op.bb != op.be) {
            d.text += join_words(wb, op.bb, op.be);
            d.text += '`';
        }
    }
    if (ops.size() > 3) d.text += "; ...";
    return d;
}

Explanation explain(const std::vector<std::string>& truth_groups, const std::vector<uint64_t>& predicted,
                    const std::vector<std::string>& lines, const std::vector<std::string>& templates,
                    size_t top, size_t parts) {
    check_sizes(truth_groups.size(), predicted.size(), "explain");
    check_sizes(truth_groups.size(), lines.size(), "explain (lines)");
    check_sizes(truth_groups.size(), templates.size(), "explain (templates)");
    const size_t n = truth_groups.size();
    // Ordered maps: the report is the same from run to run.
    std::map<std::string_view, Pieces<uint64_t>> ids_of_event;
    std::map<uint64_t, Pieces<std::string_view>> events_of_id;
    for (size_t i = 0; i < n; ++i) {
        ids_of_event[truth_groups[i]].add(predicted[i], i);
        events_of_id[predicted[i]].add(truth_groups[i], i);
    }
    auto total = [](const auto& pieces) {
        size_t t = 0;
        for (const auto& [k, v] : pieces.by_key) t += v.first;
        return t;
    };

    Explanation e;
    e.events = ids_of_event.size();
    e.clusters = events_of_id.size();
    for (const auto& [event, pieces] : ids_of_event) {
        if (pieces.by_key.size() < 2) continue;
        SplitEvent s;
        s.event = std::string(event);
        s.lines = total(pieces);
        s.ids = pieces.by_key.size();
        ++e.split_events;
        e.split_lines += s.lines;
        // Every piece against the largest: the causes count all of them, the
        // report shows the first `parts`.
        const auto all = pieces.largest(pieces.by_key.size());
        const std::string& largest = templates[all[0].second.second];
        for (size_t k = 0; k < all.size(); ++k) {
            const auto& [id, v] = all[k];
            std::string differs;
            if (k > 0) {
                TemplateDifference d = template_difference(largest, templates[v.second]);
                e.split_causes[static_cast<size_t>(d.cause)] += v.first;
                differs = std::move(d.text);
            }
            if (k < parts) s.parts.push_back({hex16(id), v.first, templates[v.second], lines[v.second], differs});
        }
        e.splits.push_back(std::move(s));
    }
    for (const auto& [id, pieces] : events_of_id) {
        if (pieces.by_key.size() < 2) continue;
        MergedCluster m;
        m.cluster_id = hex16(id);
        m.lines = total(pieces);
        m.events = pieces.by_key.size();
        ++e.merged_clusters;
        e.merged_lines += m.lines;
        for (const auto& [event, v] : pieces.largest(parts))
            m.parts.push_back({std::string(event), v.first, templates[v.second], lines[v.second], ""});
        e.merges.push_back(std::move(m));
    }
    std::stable_sort(e.splits.begin(), e.splits.end(), [](const SplitEvent& a, const SplitEvent& b) {
        return a.lines != b.lines ? a.lines > b.lines : a.ids > b.ids;
    });
    std::stable_sort(e.merges.begin(), e.merges.end(), [](const MergedCluster& a, const MergedCluster& b) {
        return a.lines != b.lines ? a.lines > b.lines : a.events > b.events;
    });
    if (e.splits.size() > top) e.splits.resize(top);
    if (e.merges.size() > top) e.merges.resize(top);
    return e;
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

namespace {

// GA over the items `pick` selects.
double ga_over(const std::vector<std::string>& truth, const std::vector<uint64_t>& ids, const std::vector<bool>& pick) {
    std::vector<std::string> t;
    std::vector<uint64_t> p;
    for (size_t i = 0; i < truth.size(); ++i)
        if (pick[i]) {
            t.push_back(truth[i]);
            p.push_back(ids[i]);
        }
    return t.empty() ? 0.0 : grouping_accuracy(t, p);
}

EventScores score_events(const CsvTable& table, int event_col, const std::vector<std::string>& lines,
                         const std::vector<std::string>& truth, const std::vector<uint64_t>& ids,
                         const EvalOptions& opts, const std::string& csv_path) {
    EventScores s;
    // Events: runs of rows with one Event number.
    std::vector<size_t> first;  // row where each event starts
    for (size_t i = 0; i < table.rows.size(); ++i)
        if (i == 0 || table.rows[i][event_col] != table.rows[i - 1][event_col]) first.push_back(i);
    s.events = first.size();
    std::vector<bool> in_trace(lines.size(), false);
    std::vector<std::string> event_truth;
    std::vector<bool> event_is_trace;
    std::vector<std::string> event_texts;
    std::set<std::string> faults;
    for (size_t e = 0; e < first.size(); ++e) {
        const size_t end = e + 1 < first.size() ? first[e + 1] : lines.size();
        const bool trace = end - first[e] > 1;
        std::string text;
        for (size_t i = first[e]; i < end; ++i) {
            in_trace[i] = trace;
            if (i > first[e]) text += '\n';
            text += lines[i];
        }
        if (trace) {
            ++s.trace_events;
            s.trace_lines += end - first[e];
            faults.insert(truth[first[e]]);
        }
        event_truth.push_back(truth[first[e]]);
        event_is_trace.push_back(trace);
        event_texts.push_back(std::move(text));
    }
    s.trace_faults = faults.size();
    std::vector<bool> single(in_trace.size());
    for (size_t i = 0; i < in_trace.size(); ++i) single[i] = !in_trace[i];
    s.ga_trace_lines = ga_over(truth, ids, in_trace);
    s.ga_single_lines = ga_over(truth, ids, single);
    std::set<uint64_t> trace_ids;
    for (size_t i = 0; i < ids.size(); ++i)
        if (in_trace[i]) trace_ids.insert(ids[i]);
    s.trace_ids = trace_ids.size();
    if (opts.whole) {
        const std::vector<Prediction> whole = opts.whole(event_texts);
        if (whole.size() != event_texts.size())
            throw std::runtime_error("clusterer returned " + std::to_string(whole.size()) + " predictions for " +
                                     std::to_string(event_texts.size()) + " events of " + csv_path);
        std::vector<uint64_t> wids;
        std::set<uint64_t> wtrace;
        for (size_t e = 0; e < whole.size(); ++e) {
            wids.push_back(whole[e].cluster_id);
            if (event_is_trace[e]) wtrace.insert(whole[e].cluster_id);
        }
        s.whole = true;
        s.ga_whole = grouping_accuracy(event_truth, wids);
        s.ga_whole_traces = ga_over(event_truth, wids, event_is_trace);
        s.whole_trace_ids = wtrace.size();
    }
    return s;
}

}  // namespace

EvalReport evaluate_dir(const std::string& dir, const ClusterFn& fn, const EvalOptions& opts) {
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

        const int event_col = table.column("Event");
        const std::vector<Prediction> preds = event_col >= 0 && opts.lines ? opts.lines(lines) : fn(lines);
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
        score.why = explain(truth, ids, lines, templates, opts.explain, opts.parts);
        if (event_col >= 0) score.events = score_events(table, event_col, lines, truth, ids, opts, csv_path);
        if (opts.curate) score.curation = simulate_curation(truth, ids, templates, opts.manual);
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

std::string format_curation(const EvalReport& r) {
    size_t name_w = std::string_view("Dataset").size();
    for (const auto& d : r.datasets) name_w = std::max(name_w, d.name.size());
    auto row = [&](const std::vector<std::string>& cells) {
        std::string line = pad_right(cells[0], name_w);
        for (size_t i = 1; i < cells.size(); ++i) line += "  " + pad_left(cells[i], i <= 4 ? 10 : 9);
        return line + "\n";
    };
    std::string out = "Curation (first half curated with the labels: correct suggestions accepted, the rest rejected,\n"
                      "then by hand, for the events split most, a word marked a value or a piece merged; the other\n"
                      "half never seen by it):\n";
    out += row({"Dataset", "seen:GA", "seen:after", "other:GA", "other:after", "suggested", "accepted", "rejected", "manual", "values"});
    double bs = 0, as = 0, bo = 0, ao = 0;
    size_t n = 0, sug = 0, acc = 0, rej = 0, man = 0, val = 0;
    for (const auto& d : r.datasets) {
        if (!d.curation) continue;
        const auto& c = *d.curation;
        out += row({d.name, format_fixed4(c.ga_before_seen), format_fixed4(c.ga_after_seen), format_fixed4(c.ga_before_other),
                    format_fixed4(c.ga_after_other), std::to_string(c.suggested), std::to_string(c.accepted),
                    std::to_string(c.rejected), std::to_string(c.manual), std::to_string(c.values)});
        bs += c.ga_before_seen, as += c.ga_after_seen, bo += c.ga_before_other, ao += c.ga_after_other;
        sug += c.suggested, acc += c.accepted, rej += c.rejected, man += c.manual, val += c.values;
        ++n;
    }
    if (n == 0) return out;
    const double k = static_cast<double>(n);
    out += row({"Average", format_fixed4(bs / k), format_fixed4(as / k), format_fixed4(bo / k), format_fixed4(ao / k),
                std::to_string(sug), std::to_string(acc), std::to_string(rej), std::to_string(man), std::to_string(val)});
    return out;
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
    // Sets of multi-line events: how the traces fared, line by line and whole.
    bool any = false;
    for (const auto& d : r.datasets) any = any || d.events.has_value();
    if (!any) return out;
    out += "\nMulti-line events (lines of one event share its id; trace = an event of 2+ lines):\n";
    out += pad_right("Dataset", name_w) + "  " + pad_left("Events", 7) + "  " + pad_left("Traces", 7) + "  " +
           pad_left("TrLines", 7) + "  " + pad_left("GA(trace lines)", 15) + "  " + pad_left("GA(single)", 10) + "  " +
           pad_left("ids/faults", 10) + "  " + pad_left("GA(whole traces)", 16) + "  " + pad_left("ids/faults whole", 16) +
           "\n";
    for (const auto& d : r.datasets) {
        if (!d.events) continue;
        const EventScores& e = *d.events;
        out += pad_right(d.name, name_w) + "  " + pad_left(std::to_string(e.events), 7) + "  " +
               pad_left(std::to_string(e.trace_events), 7) + "  " + pad_left(std::to_string(e.trace_lines), 7) + "  " +
               pad_left(format_fixed4(e.ga_trace_lines), 15) + "  " + pad_left(format_fixed4(e.ga_single_lines), 10) +
               "  " + pad_left(std::to_string(e.trace_ids) + "/" + std::to_string(e.trace_faults), 10) + "  " +
               pad_left(e.whole ? format_fixed4(e.ga_whole_traces) : "-", 16) + "  " +
               pad_left(e.whole ? std::to_string(e.whole_trace_ids) + "/" + std::to_string(e.trace_faults) : "-", 16) +
               "\n";
    }
    return out;
}

std::string format_explanation(const EvalReport& r, size_t width) {
    std::string out;
    for (const auto& d : r.datasets) {
        const Explanation& e = d.why;
        if (e.split_events == 0 && e.merged_clusters == 0) continue;
        out += "\n" + d.name + ": " + std::to_string(e.events) + " events, " + std::to_string(e.clusters) +
               " ids; " + std::to_string(e.split_events) + " events split over several ids (" +
               std::to_string(e.split_lines) + " lines), " + std::to_string(e.merged_clusters) +
               " ids hold several events (" + std::to_string(e.merged_lines) + " lines)\n";
        if (e.split_events > 0) {
            static constexpr const char* kCauseText[kSplitCauses] = {
                "a value left in the template", "another word", "a value's shape", "text in some lines only"};
            out += "  why split (lines outside each event's largest id):";
            for (size_t c = 0; c < kSplitCauses; ++c)
                out += std::string(c ? "," : "") + " " + kCauseText[c] + " " + std::to_string(e.split_causes[c]);
            out += "\n";
        }
        for (const auto& s : e.splits) {
            out += "  split  " + std::to_string(s.lines) + " lines of one event -> " + std::to_string(s.ids) +
                   " ids: " + clip(s.event, width) + "\n";
            for (const auto& p : s.parts)
                out += "    " + pad_left(std::to_string(p.lines), 6) + "  " + p.id + "  " +
                       clip(p.template_text, width) + "\n" + std::string(30, ' ') + "e.g. " +
                       clip(p.example, width) + "\n" +
                       (p.differs.empty() ? "" : std::string(30, ' ') + "differs: " + clip(p.differs, width) + "\n");
        }
        for (const auto& m : e.merges) {
            out += "  merge  " + std::to_string(m.lines) + " lines under id " + m.cluster_id + " <- " +
                   std::to_string(m.events) + " events\n";
            for (const auto& p : m.parts)
                out += "    " + pad_left(std::to_string(p.lines), 6) + "  " + clip(p.id, width) + "\n" +
                       std::string(12, ' ') + "e.g. " + clip(p.example, width) + "\n";
        }
    }
    return out;
}

nlohmann::json to_json(const EvalReport& r) {
    nlohmann::json sets = nlohmann::json::object();
    for (const auto& d : r.datasets) {
        const Explanation& e = d.why;
        nlohmann::json splits = nlohmann::json::array(), merges = nlohmann::json::array();
        for (const auto& s : e.splits) {
            nlohmann::json ps = nlohmann::json::array();
            for (const auto& p : s.parts)
                ps.push_back({{"cluster_id", p.id}, {"lines", p.lines}, {"template", p.template_text},
                              {"example", p.example}, {"differs", p.differs}});
            splits.push_back({{"event", s.event}, {"lines", s.lines}, {"ids", s.ids}, {"parts", std::move(ps)}});
        }
        for (const auto& m : e.merges) {
            nlohmann::json ps = nlohmann::json::array();
            for (const auto& p : m.parts)
                ps.push_back({{"event", p.id}, {"lines", p.lines}, {"template", p.template_text},
                              {"example", p.example}});
            merges.push_back(
                {{"cluster_id", m.cluster_id}, {"lines", m.lines}, {"events", m.events}, {"parts", std::move(ps)}});
        }
        nlohmann::json causes = nlohmann::json::object();
        for (size_t c = 0; c < kSplitCauses; ++c)
            causes[std::string(split_cause_key(static_cast<SplitCause>(c)))] = e.split_causes[c];
        sets[d.name] = {{"ga", d.ga},
                        {"ga_template", d.ga_template},
                        {"pa", d.pa},
                        {"lines", d.lines},
                        {"events", e.events},
                        {"clusters", e.clusters},
                        {"split_events", e.split_events},
                        {"split_lines", e.split_lines},
                        {"merged_clusters", e.merged_clusters},
                        {"merged_lines", e.merged_lines},
                        {"split_causes", std::move(causes)},
                        {"splits", std::move(splits)},
                        {"merges", std::move(merges)}};
        if (d.events) {
            const EventScores& ev = *d.events;
            nlohmann::json j = {{"events", ev.events},
                                {"trace_events", ev.trace_events},
                                {"trace_lines", ev.trace_lines},
                                {"ga_trace_lines", ev.ga_trace_lines},
                                {"ga_single_lines", ev.ga_single_lines},
                                {"trace_ids", ev.trace_ids},
                                {"trace_faults", ev.trace_faults}};
            if (ev.whole) {
                j["ga_whole"] = ev.ga_whole;
                j["ga_whole_traces"] = ev.ga_whole_traces;
                j["whole_trace_ids"] = ev.whole_trace_ids;
            }
            sets[d.name]["multiline"] = std::move(j);
        }
        if (d.curation) {
            const CurationScore& c = *d.curation;
            auto hex = [](uint64_t id) {
                char b[17];
                std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(id));
                return std::string(b);
            };
            nlohmann::json steps = nlohmann::json::array();
            for (const auto& st : c.steps) {
                nlohmann::json j = {{"kind", st.kind}};
                if (st.cluster) j["cluster_id"] = hex(st.cluster);
                if (st.into) j["into"] = hex(st.into);
                if (st.position >= 0) j["position"] = st.position;
                if (!st.members.empty()) {
                    j["members"] = nlohmann::json::array();
                    for (uint64_t m : st.members) j["members"].push_back(hex(m));
                }
                steps.push_back(std::move(j));
            }
            sets[d.name]["curation"] = {{"lines_seen", c.lines_seen},         {"lines_other", c.lines_other},
                                        {"ga_before_seen", c.ga_before_seen}, {"ga_after_seen", c.ga_after_seen},
                                        {"ga_before_other", c.ga_before_other}, {"ga_after_other", c.ga_after_other},
                                        {"suggested", c.suggested},           {"accepted", c.accepted},
                                        {"rejected", c.rejected},             {"manual", c.manual},
                                        {"values", c.values},                 {"steps", std::move(steps)}};
        }
    }
    return {{"datasets", std::move(sets)},
            {"avg_ga", r.avg_ga},
            {"avg_ga_template", r.avg_ga_template},
            {"avg_pa", r.avg_pa}};
}

}  // namespace logsift::eval
