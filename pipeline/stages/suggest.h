// Suggested merges (GET /clusters/suggestions, `logsift eval --curate`): the
// mined-bank rule (bank_miner.h) over the clusters' templates with their
// counts finds statements whose templates differ only where a value stands
// (one word that took many values, or a value of two shapes); the clusters
// whose templates one mined format matches are one suggestion, into the
// most counted of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/stages/bank_miner.h"

namespace logsift {

struct ClusterTemplate {
  uint64_t cluster_id = 0;
  std::string template_text;
  uint64_t count = 0;
};

struct SuggestedMerge {
  std::string id;                     // suggestion_id(into, the others)
  std::string template_text;          // the mined format as a template (<*> per slot)
  std::vector<size_t> members;        // indexes into the rows, most counted first: members[0] is "into"
  uint64_t lines = 0;                 // the members' counts
  std::vector<MinedFormat::Slot> slots;  // the values each varying place took
};

// Most lines first. Rows are taken as given (leave merged clusters out).
std::vector<SuggestedMerge> suggest_merges(const std::vector<ClusterTemplate>& rows, const MineOptions& options = {});

// A suggestion's id: that of its clusters (16 hex digits), so the same
// clusters are the same suggestion on every replica and after a restart.
std::string suggestion_id(uint64_t into, std::vector<uint64_t> members);

}  // namespace logsift
