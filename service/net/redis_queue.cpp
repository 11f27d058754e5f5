#include "service/net/redis_queue.h"

#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/pipeline.h"

namespace logsift {

using redis::Reply;

RedisQueueIngest::RedisQueueIngest(const Config& config, Pipeline* pipeline, std::string consumer)
    : config_(config),
      pipeline_(pipeline),
      stream_(config.redis_ingest_stream),
      group_(config.redis_ingest_group),
      consumer_(std::move(consumer)),
      conn_(redis::parse_url(config.redis_url),
            redis::Options{std::chrono::milliseconds(config.redis_timeout_ms), config.redis_tls_ca_file}) {
  // From the start of the stream: lines queued before any replica ran count.
  Reply r = conn_.command({"XGROUP", "CREATE", stream_, group_, "0", "MKSTREAM"});
  if (r.is_error() && r.str.rfind("BUSYGROUP", 0) != 0)
    throw std::runtime_error("redis_ingest_stream " + stream_ + ": XGROUP CREATE: " + r.str);
  spdlog::info("queue ingest: stream {} group {} consumer {}", stream_, group_, consumer_);
}

RedisQueueIngest::~RedisQueueIngest() { stop(); }

void RedisQueueIngest::start() {
  thread_ = std::thread([this] {
    set_thread_name("ls-queue");
    run();
  });
}

void RedisQueueIngest::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void RedisQueueIngest::run() {
  bool down = false;
  while (!stop_) {
    bool ok = false;
    try {
      ok = step();
    } catch (const std::exception& e) {  // the pipeline stopped under us (shutdown)
      spdlog::warn("queue ingest: {}", e.what());
      break;
    }
    if (ok && down) spdlog::info("queue ingest: Redis answers again");
    if (!ok && !down) spdlog::error("queue ingest: Redis unreachable; reading stops until it answers");
    down = !ok;
    if (down) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // A last try for the acks of what is done.
  if (!to_ack_.empty()) {
    try {
      std::vector<std::string> cmd = {"XACK", stream_, group_};
      cmd.insert(cmd.end(), to_ack_.begin(), to_ack_.end());
      conn_.command(cmd);
    } catch (const redis::Error&) {
    }
  }
}

void RedisQueueIngest::take(const Reply& entries, std::vector<Entry>* out) {
  for (const auto& e : entries.elements) {
    if (e.type != Reply::Type::kArray || e.elements.empty()) continue;
    Entry x;
    x.id = e.elements[0].str;
    if (e.elements.size() >= 2)
      for (size_t i = 0; i + 1 < e.elements[1].elements.size(); i += 2)
        if (e.elements[1].elements[i].str == "line") {
          x.line = e.elements[1].elements[i + 1].str;
          x.has_line = true;
        }
    out->push_back(std::move(x));
  }
}

bool RedisQueueIngest::step() {
  try {
    if (!to_ack_.empty()) {
      std::vector<std::string> cmd = {"XACK", stream_, group_};
      cmd.insert(cmd.end(), to_ack_.begin(), to_ack_.end());
      Reply r = conn_.command(cmd);
      if (r.is_error()) spdlog::error("queue ingest: XACK: {}", r.str);
      metrics().queue_acked.inc(to_ack_.size());
      to_ack_.clear();
    }
    std::vector<Entry> entries;
    if (const int64_t now = now_ms(); now >= next_reclaim_ms_) {
      next_reclaim_ms_ = now + std::max<int64_t>(config_.redis_claim_idle_ms / 4, 100);
      Reply r = conn_.command({"XAUTOCLAIM", stream_, group_, consumer_, std::to_string(config_.redis_claim_idle_ms),
                               "0-0", "COUNT", "500"});
      if (r.is_error()) spdlog::error("queue ingest: XAUTOCLAIM: {}", r.str);
      else if (r.elements.size() >= 2) take(r.elements[1], &entries);
      if (!entries.empty())
        spdlog::warn("queue ingest: took {} entries left unacknowledged for {} ms", entries.size(),
                     config_.redis_claim_idle_ms);
    }
    if (entries.empty()) {
      Reply r = conn_.command({"XREADGROUP", "GROUP", group_, consumer_, "COUNT", "500", "BLOCK", "500", "STREAMS",
                               stream_, ">"});
      if (r.is_error()) {
        // NOGROUP: the stream was deleted under us; make it again.
        spdlog::error("queue ingest: XREADGROUP: {}", r.str);
        if (r.str.rfind("NOGROUP", 0) == 0) conn_.command({"XGROUP", "CREATE", stream_, group_, "0", "MKSTREAM"});
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        return true;
      }
      if (r.type == Reply::Type::kArray)
        for (const auto& s : r.elements)
          if (s.elements.size() >= 2) take(s.elements[1], &entries);
    }
    if (!entries.empty()) process(entries);
    return true;
  } catch (const redis::Error&) {
    return false;
  }
}

void RedisQueueIngest::process(std::vector<Entry>& entries) {
  metrics().queue_lines.inc(entries.size());
  auto batch = std::make_unique<Batch>();
  const int64_t received = now_ms();
  batch->records.reserve(entries.size());
  // The stream's entries, in order, are one source: the lines of a stack
  // trace become one event (pipeline/ingest/multiline.h), cut at the end of
  // what this read took; entry_record says which record answers each entry.
  std::vector<int> entry_record(entries.size(), -1);
  EventAssembler events(config_);
  events.track(&entry_record);
  for (size_t i = 0; i < entries.size(); ++i) {
    auto& e = entries[i];
    Record r;
    r.received_ms = received;
    r.tag = static_cast<uint32_t>(i);
    if (!e.has_line) {
      reject_record(r, {Reject::kMissingText, "stream entry " + e.id + " has no 'line' field"});
      spdlog::warn("queue ingest: entry {} has no 'line' field; acknowledged and dropped", e.id);
    } else if (auto err = record_from_envelope(batch->keep(e.line), config_, *batch, &r)) {
      reject_record(r, *err);
      spdlog::warn("queue ingest: entry {} rejected: {}", e.id, err->message);
    }
    events.add(std::move(r), *batch);
  }
  events.flush(*batch);
  std::vector<bool> live(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) live[i] = batch->records[entry_record[i]].ok();
  if (batch->live() == 0) {
    for (const auto& e : entries) to_ack_.push_back(e.id);  // only rejections: nothing to wait for
    return;
  }
  Results out = pipeline_->run(std::move(batch));  // waits: the lines are in the catalog when it returns
  if (!out.batch().refusal.ok()) {
    // Refused by the store (its write buffer is full): left unacknowledged,
    // they are taken again after redis_claim_idle_ms.
    spdlog::warn("queue ingest: {} entries refused ({}); retried later", entries.size(),
                 out.batch().refusal.reason());
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    return;
  }
  size_t failed = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (live[i] && !out[static_cast<size_t>(entry_record[i])].ok()) {  // failed inside the pipeline: taken again later
      ++failed;
      continue;
    }
    to_ack_.push_back(entries[i].id);
  }
  if (failed) spdlog::warn("queue ingest: {} entries failed in the pipeline; retried later", failed);
}

}  // namespace logsift
