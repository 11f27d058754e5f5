#include "service/alerts/delivery.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/time.h"
#include "pipeline/core/metrics.h"
#include "service/alerts/alert_payload.h"
#include "service/alerts/webhook_client.h"
#include "service/alerts/webhook_signing.h"

namespace logsift {

namespace net = boost::asio;

DeliveryWorker::DeliveryWorker(net::io_context& ioc, AlertStore& store, const Config& config,
                               std::shared_ptr<const webhook::AddressPolicy> policy)
    : strand_(net::make_strand(ioc)),
      timer_(strand_),
      store_(store),
      config_(config),
      client_(std::make_unique<webhook::Client>(ioc, std::string_view(), std::move(policy))),
      rng_(std::random_device{}()) {}

DeliveryWorker::~DeliveryWorker() = default;

void DeliveryWorker::start() {
  net::post(strand_, [self = shared_from_this()] { self->pump(); });
}

void DeliveryWorker::wake() {
  net::post(strand_, [self = shared_from_this()] { self->pump(); });
}

bool DeliveryWorker::wait_in_flight(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(flight_mu_);
  return flight_cv_.wait_until(lock, deadline, [this] { return in_flight_count_ == 0; });
}

void DeliveryWorker::stop() {
  net::post(strand_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->timer_.cancel();
  });
}

int64_t DeliveryWorker::backoff_ms(int failed_attempts, int64_t first_ms, int64_t cap_ms, std::mt19937_64& rng) {
  int shift = std::min(failed_attempts - 1, 30);
  int64_t base = std::min(cap_ms, first_ms << std::max(shift, 0));
  std::uniform_int_distribution<int64_t> jitter(base / 2, base);
  return jitter(rng);
}

void DeliveryWorker::arm_timer(int64_t delay_ms) {
  timer_.expires_after(std::chrono::milliseconds(std::max<int64_t>(delay_ms, 1)));
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->pump();
  });
}

void DeliveryWorker::pump() {
  if (stopped_) return;
  metrics().delivery_wakeups.inc();
  if (on_pump_) {
    try {
      on_pump_();
    } catch (const std::exception& e) {
      spdlog::error("delivery: {}", e.what());
    }
  }
  if (const int64_t t = now_ms(); t >= next_prune_ms_) {
    next_prune_ms_ = t + 60000;
    try {
      if (int64_t n = store_.prune(t - config_.outbox_retention_ms)) spdlog::info("outbox: pruned {} old alerts", n);
    } catch (const std::exception& e) {
      spdlog::error("outbox prune: {}", e.what());
    }
  }
  // Outcomes the store did not take last time go first. While it still
  // cannot (a full disk), delivery goes on for the other rows: the held
  // outcomes' rows count as in flight, so none is sent twice.
  for (auto it = unrecorded_.begin(); it != unrecorded_.end();) {
    try {
      record(it->second.first, *it->second.second);
      it = unrecorded_.erase(it);
    } catch (const std::exception&) {
      break;  // the store is still away: the rest wait too
    }
  }
  metrics().delivery_results_unsaved.set(static_cast<int64_t>(unrecorded_.size()));
  if (unrecorded_.size() >= kMaxUnrecorded) {  // bounded memory: stop sending until some are saved
    arm_timer(1000);
    return;
  }
  try {
    const size_t max_in_flight = 256;
    int64_t now = now_ms();
    // Rows in flight, and rows of a receiver at its concurrency limit (counting
    // what this pump picks), are not sendable: a receiver that hangs holds
    // only its own delivery_concurrency rows, never another receiver's turn.
    std::map<std::string, int> picked;  // per subscription, this pump
    auto sendable = [&](const std::string& id, const std::string& sub) {
      if (in_flight_.count(id) || unrecorded_.count(id)) return false;
      auto it = in_flight_per_sub_.find(sub);
      const int busy = it == in_flight_per_sub_.end() ? 0 : it->second;
      auto p = picked.find(sub);
      return busy + (p == picked.end() ? 0 : p->second) < config_.delivery_concurrency;
    };
    auto pick = [&](const std::string& id, const std::string& sub) {
      if (!sendable(id, sub)) return false;
      ++picked[sub];
      return true;
    };
    if (in_flight_.size() < max_in_flight) {
      std::map<std::string, std::optional<Subscription>> subs;
      const size_t per_sub = static_cast<size_t>(config_.delivery_concurrency);
      for (const auto& row : store_.due(now, max_in_flight - in_flight_.size(), per_sub, pick)) {
        auto it = subs.find(row.subscription_id);
        if (it == subs.end()) it = subs.emplace(row.subscription_id, store_.subscription(row.subscription_id)).first;
        if (!it->second) {
          store_.mark_failed(row.id, row.attempts, 0, "subscription deleted", now);
          metrics().alerts_dead_lettered.inc();
          continue;
        }
        send(row, *it->second);  // pick() kept each receiver within delivery_concurrency
      }
    }
    picked.clear();  // what was picked is in flight now (or dead-lettered): counted there
    // Sleep until the next row we could send; wake() and results pump earlier.
    // Rows in flight, or of a receiver at its concurrency limit, do not count:
    // their attempts' results wake us (no 1 ms polling while they run).
    const auto next = in_flight_.size() < 256
                          ? store_.next_due(static_cast<size_t>(config_.delivery_concurrency), sendable)
                          : std::nullopt;
    // Held outcomes are retried within a second.
    arm_timer(next ? std::clamp<int64_t>(*next - now, 1, unrecorded_.empty() ? 1000 : 250) : 1000);
  } catch (const std::exception& e) {
    spdlog::error("delivery: {}", e.what());
    arm_timer(1000);
  }
}

void DeliveryWorker::send(const OutboxRow& row, const Subscription& sub) {
  std::string body;
  try {
    if (sub.format == "alertmanager") {
      auto alert = webhook::alert_from_json(nlohmann::json::parse(row.payload));
      body = webhook::to_alertmanager_json({alert}, sub.id, config_.alert_external_url).dump();
    } else if (sub.format == "alertmanager_api") {
      auto alert = webhook::alert_from_json(nlohmann::json::parse(row.payload));
      body = webhook::to_alertmanager_api_json({alert}, config_.alert_external_url).dump();
    } else {
      body = row.payload;
    }
  } catch (const std::exception& e) {  // a corrupt row must not wedge the queue
    store_.mark_failed(row.id, row.attempts, 0, std::string("bad payload: ") + e.what(), now_ms());
    metrics().alerts_dead_lettered.inc();
    return;
  }
  in_flight_.insert(row.id);
  {
    std::lock_guard lock(flight_mu_);
    in_flight_count_ = in_flight_.size();
  }
  ++in_flight_per_sub_[sub.id];
  int64_t ts = now_ms() / 1000;
  webhook::Request req;
  req.url = sub.url;
  req.body = std::move(body);
  req.timeout = std::chrono::milliseconds(config_.delivery_timeout_ms);
  req.headers = {{"webhook-id", row.id},
                 {"webhook-timestamp", std::to_string(ts)},
                 {"webhook-signature", webhook::sign(sub.secret, row.id, ts, req.body)},
                 {"Idempotency-Key", row.id}};
  client_->post(std::move(req), [self = shared_from_this(), row](webhook::Result r) {
    net::post(self->strand_, [self, row, r = std::move(r)] { self->on_result(row, r); });
  });
}

void DeliveryWorker::on_result(const OutboxRow& row, const webhook::Result& r) {
  in_flight_.erase(row.id);
  if (--in_flight_per_sub_[row.subscription_id] <= 0) in_flight_per_sub_.erase(row.subscription_id);
  try {
    record(row, r);
  } catch (const std::exception& e) {
    // The store did not take the outcome (a shared store away): keep it and
    // record it at a later pump, rather than sending an alert that the
    // receiver may already have again.
    spdlog::error("delivery: recording result of {}: {} (kept, retried)", row.id, e.what());
    unrecorded_.insert_or_assign(row.id, std::make_pair(row, std::make_shared<const webhook::Result>(r)));
  }
  {
    std::lock_guard lock(flight_mu_);
    in_flight_count_ = in_flight_.size();
  }
  flight_cv_.notify_all();
  pump();
}

void DeliveryWorker::record(const OutboxRow& row, const webhook::Result& r) {
  int attempts = row.attempts + 1;
  int64_t now = now_ms();
  using Outcome = webhook::Result::Outcome;
  if (r.outcome == Outcome::kDelivered) {
    store_.mark_delivered(row.id, attempts, r.status, now);
    metrics().alerts_delivered.inc();
  } else if (r.outcome == Outcome::kReject) {
    // The receiver said no (4xx): retrying would only repeat it.
    store_.mark_failed(row.id, attempts, r.status, r.error, now);
    metrics().alerts_dead_lettered.inc();
    spdlog::warn("alert {} dead-lettered: {}", row.id, r.error);
  } else if (attempts >= config_.delivery_max_attempts || now - row.created_ms >= config_.delivery_max_age_ms) {
    store_.mark_failed(row.id, attempts, r.status, "gave up after " + std::to_string(attempts) + " attempts: " + r.error,
                       now);
    metrics().alerts_dead_lettered.inc();
    spdlog::warn("alert {} dead-lettered after {} attempts: {}", row.id, attempts, r.error);
  } else {
    // Retry-After is honoured when it asks for a real wait; "0" or a date
    // in the past falls back to our own backoff (no hot retry loop).
    int64_t delay = r.retry_after && r.retry_after->count() > 0
                        ? r.retry_after->count()
                        : backoff_ms(attempts, config_.delivery_first_retry_ms, config_.delivery_max_backoff_ms, rng_);
    store_.schedule_retry(row.id, attempts, r.status, r.error, now + delay, now);
    metrics().alert_attempts_failed.inc();
  }
}

}  // namespace logsift
