// Helpers shared by the store tests.
#pragma once

#include <vector>

#include <gtest/gtest.h>

#include "pipeline/store/cluster_store.h"

namespace logsift::test {

// apply() that the test expects to succeed: the created flags.
inline std::vector<bool> apply_ok(ClusterStore& c, const std::vector<ClusterUpdate>& updates) {
  std::vector<bool> created;
  const Status st = c.apply(updates, &created);
  EXPECT_TRUE(st.ok()) << st.reason();
  return created;
}

}  // namespace logsift::test
