// What curation buys on a labelled set (`logsift eval --curate`): a person
// with the labels in hand curates the clusters of the set's first half as
// the service lets them (pipeline/store/curation.h): every suggested merge
// (pipeline/stages/suggest.h) whose clusters hold one event, by the majority
// label of their lines, is accepted, the others rejected; then at most
// `manual` actions of their own for the events split most (by lines): "this
// word is a value" where the pieces differ from the largest one in one word
// (and the rule joins no other event's cluster of the half), else a merge of
// a piece whose lines are mostly that event into its largest piece. Scored
// on that half and on the other half, lines the curation never saw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace logsift::eval {

// One action the person took, as the API takes it: "accept" (a suggestion:
// `into` and its other `members`), "reject" (one: its clusters), "value"
// (`cluster`, `position`), "merge" (`cluster` into `into`). Replayed through
// a running server by bench/curate_replay.py.
struct CurationStep {
  std::string kind;
  uint64_t cluster = 0, into = 0;
  int64_t position = -1;
  std::vector<uint64_t> members;
};

struct CurationScore {
  size_t lines_seen = 0, lines_other = 0;
  double ga_before_seen = 0, ga_after_seen = 0;
  double ga_before_other = 0, ga_after_other = 0;
  size_t suggested = 0, accepted = 0, rejected = 0, manual = 0;
  size_t values = 0;  // of the manual actions, "this word is a value"
  std::vector<CurationStep> steps;  // in the order taken
};

// truth[i], ids[i], templates[i]: line i's true event, cluster id and template.
CurationScore simulate_curation(const std::vector<std::string>& truth, const std::vector<uint64_t>& ids,
                                const std::vector<std::string>& templates, size_t manual);

}  // namespace logsift::eval
