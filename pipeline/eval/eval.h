#pragma once
// Offline scoring of a clusterer against labelled loghub-style data
// (`logsift eval DIR [--json]`). Metrics follow the loghub standard.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/core/wildcards.h"  // collapse_wildcards: the canonical form GA(tmpl) compares

#include "pipeline/eval/curate.h"

namespace logsift::eval {

struct Prediction {
    uint64_t cluster_id;
    std::string template_text;
    uint64_t template_id = 0;  // hash of the exact template text (0 = not given)
};

// Clusters lines (in order) -> one Prediction per line, same order.
using ClusterFn = std::function<std::vector<Prediction>(const std::vector<std::string>& lines)>;

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

// Why a GA is what it is. GA counts every line of a true event wrong when
// the event is split over several cluster ids, and every line of a cluster id
// wrong when it holds several events; these name the worst of each.
struct ErrorPart {
    std::string id;             // split: the cluster id (16 hex); merge: the true event (its template)
    size_t lines = 0;           // lines of the event under that id
    std::string template_text;  // the template logsift printed for the example
    std::string example;        // the first such line
    std::string differs;        // split pieces after the largest: how the template differs from its
                                // template (template_difference); "" otherwise
};

// Why one event's lines got different ids: the first thing that tells a
// piece's template apart from the largest piece's, word by word (words are
// blank-separated; a word holding "<*>" is a value).
enum class SplitCause {
    kKeptValue,   // a value left in the template: a word where the other has <*> ("by erin" / "by <*>")
    kOtherWord,   // another word in the same place ("status unpacked" / "status installed")
    kValueShape,  // a value masked in another shape ("TCP_MISS/<*>" / "<*>")
    kExtraText,   // words in one template only (an optional clause, a different sentence)
};
inline constexpr size_t kSplitCauses = 4;
// "kept_value", "other_word", "value_shape", "extra_text" (the JSON keys).
std::string_view split_cause_key(SplitCause c);

struct TemplateDifference {
    SplitCause cause = SplitCause::kExtraText;
    // Up to three differing places, "`a` -> `b`", "+ `b`" (only in `b`),
    // "- `a`" (only in `a`), joined by "; ", then "; ..." if there are more.
    std::string text;
};
// How template b differs from template a, word by word: their common prefix
// and suffix, then a longest common subsequence of the middle words (over
// 256 words on a side, the whole middle is one difference). Equal templates
// give kExtraText and "".
TemplateDifference template_difference(std::string_view a, std::string_view b);
struct SplitEvent {  // one true event -> several cluster ids
    std::string event;  // its true template
    size_t lines = 0;   // all of them count wrong
    size_t ids = 0;
    std::vector<ErrorPart> parts;  // the largest pieces first
};
struct MergedCluster {  // one cluster id -> several true events
    std::string cluster_id;  // 16 hex
    size_t lines = 0;        // all of them count wrong
    size_t events = 0;
    std::vector<ErrorPart> parts;  // the largest events first
};
struct Explanation {
    size_t events = 0, clusters = 0;                 // distinct true events, distinct ids
    size_t split_events = 0, split_lines = 0;        // events over >1 id, and their lines
    size_t merged_clusters = 0, merged_lines = 0;    // ids over >1 event, and their lines
    // Over all split events: the lines outside each event's largest piece,
    // by the SplitCause of their piece against the largest (index = cause).
    size_t split_causes[kSplitCauses] = {};
    std::vector<SplitEvent> splits;                  // worst first (most lines), at most `top`
    std::vector<MergedCluster> merges;               // likewise
};

// Splits and merges of a clustering against the truth (same sizes as for
// grouping_accuracy; lines and templates give the examples). Keeps the `top`
// worst of each (most lines lost) with at most `parts` pieces each; ties go
// to more ids / events, then to the name. std::invalid_argument on sizes.
Explanation explain(const std::vector<std::string>& truth_groups, const std::vector<uint64_t>& predicted,
                    const std::vector<std::string>& lines, const std::vector<std::string>& templates,
                    size_t top, size_t parts);

// A set whose csv has an "Event" column: its lines form events (the lines of
// one event share its number; a stack trace's lines one event), scored as
// they arrive line by line and, when EvalOptions::whole is given, as whole
// events posted at once.
struct EventScores {
    size_t events = 0;
    size_t trace_events = 0, trace_lines = 0;  // events of two lines or more, and their lines
    double ga_trace_lines = 0;   // GA over the trace lines alone (each labelled with its event's truth)
    double ga_single_lines = 0;  // GA over the other lines
    size_t trace_ids = 0;        // distinct cluster ids the trace lines got
    size_t trace_faults = 0;     // distinct true events among the trace events
    bool whole = false;          // scored whole too:
    double ga_whole = 0;         // GA over events, one text each
    double ga_whole_traces = 0;  // the same over trace events alone
    size_t whole_trace_ids = 0;  // distinct ids the trace events got whole
};

struct DatasetScore {
    std::string name;
    double ga = 0, pa = 0;
    double ga_template = 0;  // GA of template_id: what the encoder + LSH start from
    size_t lines = 0;
    Explanation why;  // of the cluster-id GA
    std::optional<EventScores> events;
    std::optional<CurationScore> curation;  // EvalOptions::curate
};

struct EvalOptions {
    size_t explain = 3;  // splits and merges kept per set (0: none)
    size_t parts = 3;    // pieces shown per split or merge
    // For sets with an "Event" column: their lines as a line input receives
    // them, one by one (the clusterer joins a trace's lines into events and
    // gives each line its event's prediction). Empty: `fn`.
    ClusterFn lines;
    // For those sets too: each event's Content lines joined by '\n', one
    // text per event -> one prediction per event. Empty: events are scored
    // only line by line.
    ClusterFn whole;
    // Curation as a person with the labels would do it (pipeline/eval/curate.h),
    // with at most `manual` merges of their own per set.
    bool curate = false;
    size_t manual = 5;
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
EvalReport evaluate_dir(const std::string& dir, const ClusterFn& fn, const EvalOptions& opts = {});

// Aligned text table: Dataset | Lines | GA | GA(tmpl) | PA, then an Average row;
// 4 decimals. GA is of cluster_id, GA(tmpl) of template_id.
std::string format_table(const EvalReport& r);
// With EvalOptions::curate: per set, GA before and after curation on the half
// it saw and on the other half, and the actions it took; then averages.
std::string format_curation(const EvalReport& r);

// Per set with an error: one summary line (events split, ids merging, the
// lines each costs), then its worst splits and merges with example lines
// (each cut to `width` bytes). "" when every set is perfect.
std::string format_explanation(const EvalReport& r, size_t width = 100);

// {"datasets":{NAME:{"ga":..,"ga_template":..,"pa":..,"lines":..,
//  "events","clusters","split_events","split_lines","merged_clusters","merged_lines",
//  "split_causes":{"kept_value","other_word","value_shape","extra_text"},
//  "splits":[{"event","lines","ids","parts":[{"cluster_id","lines","template","example","differs"}]}],
//  "merges":[{"cluster_id","lines","events","parts":[{"event","lines","template","example"}]}]}},
//  "avg_ga":..,"avg_ga_template":..,"avg_pa":..}
nlohmann::json to_json(const EvalReport& r);

}  // namespace logsift::eval
