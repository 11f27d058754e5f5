// Webhook delivery: drains the durable outbox (service/alerts/alert_store.h:
// SQLite under the data dir, or the Redis stream that replicas share). Every
// attempt of one alert carries the same webhook-id (the idempotency key) and
// a fresh Standard Webhooks signature. Retries on connect errors, timeouts,
// 5xx, 408 and 429 (Retry-After honoured) with exponential backoff and
// jitter; other 4xx, or too many attempts, or too old: dead-lettered (status
// failed) at once. All state lives on one strand; store calls are short.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <random>
#include <set>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "config/config.h"
#include "service/alerts/alert_store.h"

namespace logsift {

namespace webhook {
class Client;
class AddressPolicy;
struct Result;
}  // namespace webhook

class DeliveryWorker : public std::enable_shared_from_this<DeliveryWorker> {
 public:
  // policy: where webhooks may connect (the SSRF guard); null: anywhere.
  DeliveryWorker(boost::asio::io_context& ioc, AlertStore& store, const Config& config,
                 std::shared_ptr<const webhook::AddressPolicy> policy = nullptr);
  ~DeliveryWorker();

  void start();
  // Thread-safe: new rows are in the outbox (or a retry was requested).
  void wake();
  // No new attempts after this; rows stay pending in the outbox for the next start.
  void stop();
  // After stop(), while the io_context still runs: waits until the attempts
  // in flight have their outcome recorded, or `deadline`; true if none is
  // left. (An attempt cut off by a shutdown is sent again at the next start:
  // a receiver that already took it gets it twice.)
  bool wait_in_flight(std::chrono::steady_clock::time_point deadline);
  // Runs on the worker's strand at every pump (at least once a second):
  // the router reloads subscriptions changed by another replica there. Set
  // before start().
  void set_on_pump(std::function<void()> f) { on_pump_ = std::move(f); }

  // Backoff before attempt n+1 after n failed attempts (n >= 1), with jitter:
  // base = min(cap, first * 2^(n-1)), delay uniform in [base/2, base].
  static int64_t backoff_ms(int failed_attempts, int64_t first_ms, int64_t cap_ms, std::mt19937_64& rng);

 private:
  void pump();
  void arm_timer(int64_t delay_ms);
  void send(const OutboxRow& row, const Subscription& sub);
  void on_result(const OutboxRow& row, const webhook::Result& r);
  // Writes an attempt's outcome to the store (throws if the store fails).
  void record(const OutboxRow& row, const webhook::Result& r);

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::steady_timer timer_;
  AlertStore& store_;
  Config config_;
  std::unique_ptr<webhook::Client> client_;
  std::set<std::string> in_flight_;             // outbox ids
  std::mutex flight_mu_;
  std::condition_variable flight_cv_;
  size_t in_flight_count_ = 0;                  // in_flight_.size(), under flight_mu_ (for wait_in_flight)
  // Attempts whose outcome the store has not taken yet (recorded first at
  // each pump; their rows are never sent again meanwhile, the others are,
  // up to kMaxUnrecorded outcomes held).
  static constexpr size_t kMaxUnrecorded = 10000;
  std::map<std::string, std::pair<OutboxRow, std::shared_ptr<const webhook::Result>>> unrecorded_;
  std::map<std::string, int> in_flight_per_sub_;
  std::mt19937_64 rng_;
  bool stopped_ = false;
  int64_t next_prune_ms_ = 0;  // outbox retention runs at most once a minute
  std::function<void()> on_pump_;
};

}  // namespace logsift
