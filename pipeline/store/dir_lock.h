// An exclusive lock on the data directory (flock on DATA_DIR/LOCK, held for
// the process's life): two servers writing one catalog and one outbox would
// corrupt counts and send every alert twice. The lock file records the
// holder's pid for the error message.
#pragma once

#include <string>

namespace logsift {

class DataDirLock {
 public:
  // Creates the directory if needed. Throws std::runtime_error naming the
  // directory (and the holder's pid when known) if another process holds it.
  explicit DataDirLock(const std::string& data_dir);
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace logsift
