// A store call that failed, whatever the back end. The back ends' own errors
// (sqlite::Error, redis::Error) are StoreErrors carrying a Status: kUnavailable
// when the store cannot answer now (Redis unreachable, a disk full or
// read-only), kInternal otherwise. The edge (service/api) catches this one
// type and maps its status, knowing neither back end.
#pragma once

#include <stdexcept>
#include <string>

#include "pipeline/core/status.h"

namespace logsift {

class StoreError : public std::runtime_error {
 public:
  StoreError(const std::string& what, Status status) : std::runtime_error(what), status_(std::move(status)) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

}  // namespace logsift
