#pragma once
// Queue ingest (redis_ingest_stream set): replicas consume log lines from a
// Redis Stream through one consumer group, so a producer can feed the fleet
// through a queue instead of a connection per replica.
//
// Entries: XADD STREAM * line "<a log line>" (plain text, or a JSON object
// line with labels, as on the TCP port). An entry without a "line" field, or
// whose line is rejected (empty, over max_line_bytes, bad UTF-8), is counted
// as rejected, logged and acked: it would never succeed.
//
// One thread ("ls-queue") per replica: XREADGROUP (COUNT 500, BLOCK 500 ms)
// under this replica's consumer name, one batch through the pipeline, and
// XACK only once the batch is done, that is once its lines are in the
// catalog (or, while Redis is away, in the catalog's write buffer, the point
// where an HTTP caller gets its 200; XACK then waits for Redis). A batch the
// store refused (its write buffer full) is not acked. Entries left unacked
// by a replica that died, or refused, are taken again with XAUTOCLAIM
// after redis_claim_idle_ms, by any replica. Delivery is at-least-once: a
// replica killed between the catalog write and the XACK has those lines
// counted again by the replica that takes them over.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "pipeline/store/redis.h"

namespace logsift {

class Pipeline;

class RedisQueueIngest {
 public:
  // Connects and creates the group (from the start of the stream, MKSTREAM)
  // at once: a wrong URL fails the start with a clear error.
  RedisQueueIngest(const Config& config, Pipeline* pipeline, std::string consumer);
  ~RedisQueueIngest();  // stop()
  RedisQueueIngest(const RedisQueueIngest&) = delete;
  RedisQueueIngest& operator=(const RedisQueueIngest&) = delete;

  void start();
  // Finishes the batch in hand (and its XACK if Redis answers), then returns.
  void stop();

 private:
  struct Entry {
    std::string id, line;
    bool has_line = false;
  };
  void run();
  // One read and its batch. False when Redis did not answer.
  bool step();
  void process(std::vector<Entry>& entries);
  static void take(const redis::Reply& entries, std::vector<Entry>* out);

  Config config_;
  Pipeline* pipeline_;
  std::string stream_, group_, consumer_;
  redis::Connection conn_;
  std::vector<std::string> to_ack_;  // done, ack not yet confirmed by Redis
  int64_t next_reclaim_ms_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace logsift
