// The curation log (pipeline/store/curation.h) as a store keeps it: actions in
// order, each its JSON text, appended only onto the log the caller checked
// (compare-and-append: an action checked against a log that another replica
// has since grown is not written). The SQLite and Redis catalogs implement
// it beside their cluster data, so curation lives and is shared where the
// clusters are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace logsift {

class CurationStore {
 public:
  virtual ~CurationStore() = default;
  // Every action's stored text, oldest first (seq = index + 1).
  virtual std::vector<std::string> curation_log() = 0;
  // How many actions the log holds: a replica compares it with its fold's
  // version to know whether to read the log again.
  virtual int64_t curation_size() = 0;
  // Appends `text` as action expected + 1 if the log holds exactly
  // `expected` actions; false (nothing written) if it holds more.
  virtual bool append_curation(int64_t expected, const std::string& text) = 0;
};

}  // namespace logsift
