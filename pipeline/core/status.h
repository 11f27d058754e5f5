// Expected failures as values (the Status of Triton and Abseil): a write the
// store refuses for now, a store that cannot answer. The caller reads the
// code and decides; exceptions stay for the unexpected (a bug, a broken
// invariant). Where a Status leaves the process it is mapped to a reply in
// one place (service/api/response.h: status_response).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace logsift {

enum class StatusCode : uint8_t {
  kOk,
  kUnavailable,  // not now: retry later (HTTP 503 + Retry-After; an error line on a socket)
  kInternal,     // failed, and a retry will not help by itself (HTTP 500)
};

class Status {
 public:
  Status() = default;  // ok
  static Status unavailable(std::string reason) { return Status(StatusCode::kUnavailable, std::move(reason)); }
  static Status internal(std::string reason) { return Status(StatusCode::kInternal, std::move(reason)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // What the client and the log are told ("store unavailable: disk full ...").
  const std::string& reason() const { return reason_; }

 private:
  Status(StatusCode code, std::string reason) : code_(code), reason_(std::move(reason)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string reason_;
};

}  // namespace logsift
