// logsift serve: the service, wired once here. The io_context pool, the
// HTTP, TCP and syslog listeners (service/net), the routes (service/api), the
// pipeline, the stores and the alerts; a clean shutdown on SIGINT/SIGTERM
// (stop accepting, finish what was accepted, flush the catalog, exit 0).
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <nlohmann/json.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/memory.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/core/time.h"
#include "pipeline/migrate.h"
#include "pipeline/pipeline.h"
#include "pipeline/store/catalog.h"
#include "pipeline/store/dir_lock.h"
#include "pipeline/store/redis_catalog.h"
#include "pipeline/store/redis_windows.h"
#include "service/alerts/address_policy.h"
#include "pipeline/store/curation.h"
#include "service/alerts/alert_router.h"
#include "service/alerts/alert_store.h"
#include "service/alerts/delivery.h"
#include "service/alerts/redis_alert_store.h"
#include "service/api/app_context.h"
#include "service/api/auth.h"
#include "service/api/background_work.h"
#include "service/api/http_api.h"
#include "service/cli/cli.h"
#include "service/net/fd_limits.h"
#include "service/net/http_session.h"
#include "service/net/listener.h"
#include "service/net/redis_queue.h"
#include "service/net/server_context.h"
#include "service/net/syslog_session.h"
#include "service/net/tls.h"
#include "service/net/tcp_session.h"

namespace logsift::cli {
namespace {

namespace net = boost::asio;

redis::Options redis_options(const Config& config) {
  return redis::Options{std::chrono::milliseconds(config.redis_timeout_ms), config.redis_tls_ca_file};
}

// The store back end, chosen once: SQLite files under data_dir, or one Redis
// shared by every replica (which then shares the window counts too).
struct Stores {
  std::unique_ptr<Catalog> catalog;
  std::unique_ptr<AlertStore> alerts;  // the durable alert outbox
  std::optional<redis::Url> redis;     // store: redis
};

Stores open_stores(const Config& config) {
  Stores s;
  if (config.store == "redis") {
    s.redis = redis::parse_url(config.redis_url);
    s.catalog = std::make_unique<RedisCatalog>(*s.redis, redis_options(config), config.redis_key_prefix,
                                               config.catalog_examples, static_cast<size_t>(config.redis_buffer_bytes));
    s.alerts = std::make_unique<RedisAlertStore>(*s.redis, redis_options(config), config.redis_key_prefix,
                                                 config.redis_claim_idle_ms);
  } else {
    s.catalog = std::make_unique<SqliteCatalog>(config.data_dir, config.catalog_examples,
                                                config.catalog_sync == "full");
    s.alerts = std::make_unique<SqliteAlertStore>(config.data_dir);
  }
  return s;
}

// A start-up step that cannot go on: the process exits with `code`.
struct StartupFailed {
  int code;
};

// The running service. start() takes the steps in order; whatever step it
// reached, the destructor stops what was started in reverse, once (the one
// cleanup path: a failed start and a signal end the same way).
//
// Members are declared in the order they are built, so destruction (after
// shutdown()) runs in reverse: the io_context outlives everything that
// owns an I/O object bound to it (the delivery worker's timer and strand,
// the listeners, sessions held by queued handlers, which it destroys last);
// the pipeline (whose aggregator calls the router and whose state stage
// consults the migrator's write gate) goes before the router, the migrator
// and the stores.
class Server {
 public:
  explicit Server(const Config& config) : config_(config), app_(ctx_), auth_(config) {}
  ~Server() { shutdown(); }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Throws StartupFailed.
  void start() {
    check_limits();
    open_stores_and_pipeline();
    check_contract();
    start_alerts_and_migration();
    listen();
    start_io();
  }

  // Until SIGINT or SIGTERM; gives free heap back to the OS meanwhile
  // (pipeline/core/memory.h says why).
  void wait_for_signal() {
    const auto trim_every = std::chrono::milliseconds(config_.memory_trim_interval_ms);
    std::unique_lock lock(stop_mu_);
    auto stop = [this] { return stop_requested_; };
    while (!stop()) {
      if (trim_every.count() <= 0) {
        stop_cv_.wait(lock, stop);
        break;
      }
      if (stop_cv_.wait_for(lock, trim_every, stop)) break;
      lock.unlock();
      const HeapTrim t = release_free_heap();
      spdlog::debug("heap trim: {} bytes back to the OS in {} us", t.released_bytes, t.duration_ns / 1000);
      lock.lock();
    }
  }

 private:
  // 1. Exposure and descriptors: refused before anything is opened.
  void check_limits() {
    if (auto why = api::check_exposure(config_)) {
      spdlog::critical("{}", *why);
      throw StartupFailed{2};
    }
    std::string fd_error;
    const FdBudget fds = raise_fd_limit(config_, &fd_error);
    if (!fd_error.empty()) {
      spdlog::critical("startup refused: {}", fd_error);
      throw StartupFailed{1};
    }
    if (fds.soft != fds.soft_before)
      spdlog::info("open-file limit raised from {} to {} ({} needed)", fds.soft_before, fds.soft, fds.need);
    fd_reserve_ = std::make_unique<FdReserve>();
    ctx_.config = config_;
    ctx_.fd_reserve = fd_reserve_.get();
    // The routes and the app's services they reach; the transport sees
    // only the handler.
    ctx_.http_handler = [this](AnyExecutor ex, HttpRequest&& req, Responder respond) {
      handle_http_request(app_, std::move(ex), std::move(req), std::move(respond));
    };
    app_.auth = &auth_;
    // The SSRF guard shared by subscription checks and webhook delivery
    // (webhook_allow_cidrs was checked by Config::validate). Its own ports
    // are set once the listeners are bound, before any io thread runs.
    address_policy_ = std::make_shared<webhook::AddressPolicy>(webhook::parse_cidr_list(config_.webhook_allow_cidrs));
  }

  // 2. The data dir lock, the stores, the migrator (its write gate), the
  //    router, the pipeline, and with Redis the shared windows and queue.
  void open_stores_and_pipeline() {
    try {
      dir_lock_ = std::make_unique<DataDirLock>(config_.data_dir);
      stores_ = open_stores(config_);
      migrator_ = std::make_unique<ContractMigrator>(config_, *stores_.catalog, *stores_.catalog);
      router_ = std::make_unique<AlertRouter>(*stores_.alerts, config_, address_policy_);
      pipeline_ = std::make_unique<Pipeline>(
          config_, stores_.catalog.get(), [r = router_.get()](auto&& events) { r->on_alerts(std::move(events)); },
          &migrator_->gate());
      if (stores_.redis) {
        // Every replica's windows count the whole fleet's lines.
        windows_ = std::make_unique<RedisWindows>(
            *stores_.redis, redis_options(config_), config_.redis_key_prefix, redis::process_name(),
            [p = pipeline_.get()](std::vector<CountDelta>&& d) { p->observe_remote(d); });
        pipeline_->set_count_publisher([w = windows_.get()](std::vector<CountDelta>&& d) { w->publish(std::move(d)); });
        windows_->start();
      }
      // Curation: read once now (a store that cannot give it stops the
      // start, as for the catalog), then at each state tick for the
      // actions other replicas take.
      curation_.set_translator(id_map_translator(*stores_.catalog));
      refresh_curation(*stores_.catalog, curation_);
      if (!config_.curation_file.empty()) import_curation_file();
      pipeline_->set_curation(&curation_, [c = stores_.catalog.get(), cur = &curation_] { refresh_curation(*c, *cur); });
      router_->set_curation(&curation_);
      if (!config_.redis_ingest_stream.empty())
        queue_ = std::make_unique<RedisQueueIngest>(config_, pipeline_.get(), redis::process_name());
      // Fault injection for the crash-between-commits test only
      // (HardeningAlerts.NewClusterAlertSurvivesACrashBetweenCatalogAndOutbox):
      // the process dies after a catalog commit that created clusters, before
      // their alerts reach the outbox. Read once here, outside the commit path.
      if (std::getenv("LOGSIFT_FAILPOINT_CRASH_AFTER_CATALOG_COMMIT"))
        pipeline_->set_after_commit_hook([] { std::_Exit(137); });
    } catch (const std::exception& e) {
      spdlog::critical("startup failed: {}", e.what());
      throw StartupFailed{1};
    }
    ctx_.pipeline = pipeline_.get();
    app_.pipeline = pipeline_.get();
    app_.catalog = stores_.catalog.get();
    app_.write_gate = &migrator_->gate();
    app_.alert_store = stores_.alerts.get();
    app_.alert_router = router_.get();
    app_.curation = &curation_;
    app_.background = &background_;
  }

  // A team's curation file (GET /curation's JSON): what it holds and this
  // store has not in effect is taken; a bad file stops the start.
  void import_curation_file() {
    std::ifstream in(config_.curation_file);
    if (!in) throw std::runtime_error("curation_file " + config_.curation_file + ": cannot read it");
    const nlohmann::json file = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (file.is_discarded()) throw std::runtime_error("curation_file " + config_.curation_file + ": not JSON");
    const CurationImport r = import_curation(*stores_.catalog, curation_, file, "curation_file " + config_.curation_file,
                                             now_ms(), static_cast<size_t>(config_.curation_max_metric_series));
    spdlog::info("curation: {} applied: {} actions taken, {} in effect already, {} refused", config_.curation_file,
                 r.taken, r.in_effect, r.refused.size());
    for (const auto& why : r.refused) spdlog::warn("curation: {}: {}", config_.curation_file, why);
  }

  // 3. The cluster-id contract: a store written under another one is
  //    migrated (pipeline/migrate.h) while the server answers reads; writes
  //    are refused with 503 + Retry-After until the new ids are in place.
  void check_contract() {
    try {
      migrate_ = migrator_->check(contract_of(*pipeline_));
    } catch (const std::exception& e) {
      spdlog::critical("startup failed: {}", e.what());
      throw StartupFailed{1};
    }
    app_.contract_digest = migrator_->contract().digest;
  }

  // 4. Delivery (pending alerts left by an earlier run, even a kill -9, go
  //    out now), then the new clusters whose alerts a crash kept from the
  //    outbox: before traffic, or after a migration under the new ids
  //    before writes are let in.
  void start_alerts_and_migration() {
    delivery_ = std::make_shared<DeliveryWorker>(ioc_, *stores_.alerts, config_, address_policy_);
    router_->attach([p = pipeline_.get()](std::vector<RuleSpec> rules) { p->set_alert_rules(std::move(rules)); },
                    delivery_);
    auto replay = [this, p = pipeline_.get()] {
      // A migration gave the clusters new ids: the curation log's ids are
      // carried through its id map again before writes are let in.
      try {
        refresh_curation(*stores_.catalog, curation_, /*force=*/true);
      } catch (const std::exception& e) {
        spdlog::error("curation: reading the log after the migration: {}", e.what());
      }
      try {
        if (size_t n = p->replay_pending_alerts())
          spdlog::warn("raised the new_cluster alerts of {} clusters created just before an unclean stop", n);
      } catch (const std::exception& e) {
        spdlog::error("replaying pending new_cluster alerts: {} (retried at the next start)", e.what());
      }
    };
    if (migrate_)
      migrator_->start(replay);
    else
      replay();
    delivery_->start();
  }

  // 5. TLS (certificates checked before anything listens), then the
  // listeners, bound (port 0 picks one) but not yet accepting.
  void load_tls() {
    try {
      for (auto [name, slot] : {std::pair{"http", &http_tls_}, {"tcp", &tcp_tls_}, {"syslog", &syslog_tls_}}) {
        TlsSettings s = tls_settings_for(config_, name);
        if (!s.cert_file.empty()) *slot = std::make_shared<TlsServer>(name, std::move(s));
      }
    } catch (const std::exception& e) {
      spdlog::critical("cannot start TLS: {}", e.what());
      throw StartupFailed{2};
    }
  }

  void listen() {
    load_tls();
    try {
      http_ = std::make_shared<Listener>(
          ioc_, ctx_, config_.http_host, config_.http_port, &start_http_session, config_.max_http_connections,
          /*reserve=*/16, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 34\r\n"
          "Connection: close\r\n\r\n{\"error\":\"too many connections\"}\r\n", http_tls_);
      tcp_ = std::make_shared<Listener>(ioc_, ctx_, config_.tcp_host, config_.tcp_port, &start_tcp_session,
                                        config_.max_tcp_connections, /*reserve=*/0,
                                        "{\"error\":\"too many connections\"}\n", tcp_tls_);
      if (config_.syslog_port >= 0)  // syslog senders never read: a refused connection just closes
        syslog_ = std::make_shared<Listener>(ioc_, ctx_, config_.syslog_host, config_.syslog_port,
                                             &start_syslog_session, config_.max_tcp_connections, /*reserve=*/0, "");
      if (syslog_tls_)
        syslog_tls_listener_ = std::make_shared<Listener>(ioc_, ctx_, config_.syslog_tls_host, config_.syslog_tls_port,
                                                          &start_syslog_session, config_.max_tcp_connections,
                                                          /*reserve=*/0, "", syslog_tls_);
    } catch (const std::exception& e) {
      spdlog::critical("cannot listen: {}", e.what());
      throw StartupFailed{1};
    }
    std::vector<uint16_t> own = {http_->local().port(), tcp_->local().port()};
    if (syslog_) own.push_back(syslog_->local().port());
    if (syslog_tls_listener_) own.push_back(syslog_tls_listener_->local().port());
    address_policy_->set_own_ports(own);
  }

  // Certificates are read again on SIGHUP and when a file changes on disk
  // (checked every tls_reload_interval_ms): new connections get the new pair.
  void reload_tls(bool force) {
    for (auto* t : {&http_tls_, &tcp_tls_, &syslog_tls_})
      if (*t) (*t)->reload(force);
  }

  void watch_tls() {
    if (!http_tls_ && !tcp_tls_ && !syslog_tls_) return;
    hangup_ = std::make_unique<net::signal_set>(ioc_, SIGHUP);
    wait_hangup();
    if (config_.tls_reload_interval_ms > 0) {
      tls_timer_ = std::make_unique<net::steady_timer>(ioc_);
      arm_tls_timer();
    }
  }

  void wait_hangup() {
    hangup_->async_wait([this](const boost::system::error_code& ec, int) {
      if (ec) return;
      spdlog::info("SIGHUP: reloading the TLS certificates");
      reload_tls(/*force=*/true);
      wait_hangup();
    });
  }

  void arm_tls_timer() {
    tls_timer_->expires_after(std::chrono::milliseconds(config_.tls_reload_interval_ms));
    tls_timer_->async_wait([this](const boost::system::error_code& ec) {
      if (ec) return;
      reload_tls(/*force=*/false);
      arm_tls_timer();
    });
  }

  // 6. Accepting, ready, the io threads, and the signal that stops it all.
  void start_io() {
    http_->run();
    tcp_->run();
    if (syslog_) syslog_->run();
    if (syslog_tls_listener_) syslog_tls_listener_->run();
    watch_tls();
    ctx_.ready = true;
    if (queue_) queue_->start();
    signals_ = std::make_unique<net::signal_set>(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](const boost::system::error_code& ec, int sig) {
      if (ec) return;
      spdlog::info("signal {}: draining", sig);
      {
        std::lock_guard lock(stop_mu_);
        stop_requested_ = true;
      }
      stop_cv_.notify_all();
    });
    // Keeps the io threads alive while sessions only wait on pipeline callbacks.
    work_.emplace(net::make_work_guard(ioc_));
    for (int i = 0; i < config_.io_threads; ++i)
      io_threads_.emplace_back([this, i] {
        set_thread_name("ls-io-" + std::to_string(i));
        ioc_.run();
      });
    // Printed whatever the log level: with port 0 it is how callers learn the ports.
    std::string syslog_text = syslog_ ? " syslog=" + endpoint_text(syslog_->local()) : std::string();
    if (syslog_tls_listener_) syslog_text += " syslog_tls=" + endpoint_text(syslog_tls_listener_->local());
    std::string tls_text;
    for (auto [name, t] : {std::pair{"http", &http_tls_}, {"tcp", &tcp_tls_}, {"syslog", &syslog_tls_}})
      if (*t) tls_text += std::string(tls_text.empty() ? " tls=" : ",") + name + "(client_auth " + (*t)->client_auth() + ")";
    std::fprintf(stderr, "logsift: listening http=%s tcp=%s%s data_dir=%s%s\n", endpoint_text(http_->local()).c_str(),
                 endpoint_text(tcp_->local()).c_str(), syslog_text.c_str(), config_.data_dir.c_str(), tls_text.c_str());
    std::fflush(stderr);
    serving_ = true;
  }

  // Stops what was started, in order; idempotent.
  void shutdown() {
    if (shut_down_) return;
    shut_down_ = true;
    // 1. Stop accepting. 2. Let every connection finish what it accepted.
    ctx_.draining = true;
    if (queue_) queue_->stop();  // the batch in hand finishes and is acked
    for (auto* l : {&http_, &tcp_, &syslog_, &syslog_tls_listener_})
      if (*l) (*l)->close();
    if (hangup_) net::post(ioc_, [h = hangup_.get()] { h->cancel(); });
    if (tls_timer_) net::post(ioc_, [t = tls_timer_.get()] { t->cancel(); });
    ctx_.drain_all();
    if (!io_threads_.empty()) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.shutdown_grace_ms);
      if (!ctx_.wait_for_no_connections(deadline))
        spdlog::warn("shutdown grace over with {} connections open", ctx_.connections.load());
    }
    // 3. Drain the pipeline (all accepted batches reach the catalog), 4. flush.
    if (pipeline_) pipeline_->stop();
    windows_.reset();  // its thread feeds the pipeline's aggregator: stop it while both exist
    // Undelivered alerts stay in the outbox (durable) for the next start;
    // attempts in flight get their outcome recorded first (within the grace),
    // or a receiver that took one would get it again after the restart.
    if (delivery_) {
      delivery_->stop();
      if (!io_threads_.empty() &&
          !delivery_->wait_in_flight(std::chrono::steady_clock::now() +
                                     std::chrono::milliseconds(std::min(config_.shutdown_grace_ms, config_.delivery_timeout_ms))))
        spdlog::warn("shutdown: webhook deliveries still in flight are sent again at the next start");
    }
    work_.reset();
    ioc_.stop();
    for (auto& t : io_threads_) t.join();
    background_.wait();
    // A waiting replica stops waiting; a running migration finishes (one transaction).
    if (migrator_) migrator_->stop();
    if (serving_) {
      stores_.catalog->checkpoint();
      spdlog::info("stopped: {} lines clustered", metrics().lines_clustered.get());
    }
  }

  const Config config_;
  ServerContext ctx_;
  api::AppContext app_;
  const api::Authenticator auth_;
  net::io_context ioc_{config_.io_threads};
  std::unique_ptr<FdReserve> fd_reserve_;
  std::shared_ptr<webhook::AddressPolicy> address_policy_;
  std::unique_ptr<DataDirLock> dir_lock_;
  Stores stores_;
  Curation curation_;  // the fold of the store's curation log, read by the state stage, router and API
  std::unique_ptr<ContractMigrator> migrator_;  // owns the write gate the state stage consults
  std::unique_ptr<AlertRouter> router_;
  // Declared after the catalog, so its job (which reads the catalog) is joined first.
  BackgroundWork background_;
  std::unique_ptr<Pipeline> pipeline_;
  std::unique_ptr<RedisWindows> windows_;     // store: redis; stopped right after the pipeline
  std::unique_ptr<RedisQueueIngest> queue_;   // redis_ingest_stream; stopped before the pipeline
  std::shared_ptr<DeliveryWorker> delivery_;
  std::shared_ptr<TlsServer> http_tls_, tcp_tls_, syslog_tls_;
  std::shared_ptr<Listener> http_, tcp_, syslog_, syslog_tls_listener_;
  std::unique_ptr<net::signal_set> signals_;
  std::unique_ptr<net::signal_set> hangup_;   // SIGHUP: reload the certificates
  std::unique_ptr<net::steady_timer> tls_timer_;  // checks the certificate files for changes
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work_;
  std::vector<std::thread> io_threads_;
  bool migrate_ = false;
  bool serving_ = false;
  bool shut_down_ = false;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_requested_ = false;  // under stop_mu_
};

// Runs until a signal; returns the process exit code.
int run_server(const Config& config) {
  Server server(config);
  try {
    server.start();
  } catch (const StartupFailed& f) {
    return f.code;
  }
  server.wait_for_signal();
  return 0;  // ~Server drains and stops
}

int cmd_serve(const Args& a) { return run_server(a.config); }

}  // namespace

const Command kServe = {"serve", "run the service (HTTP API + TCP ingest)",
    "usage: logsift serve [--config FILE] [--http-port N] [--tcp-port N] [--data-dir DIR] [--KEY VALUE]...\n"
                 "\nRuns the HTTP API (POST /inferences, GET /clusters, /clusters/{id}, /info, /metrics,\n"
                 "/healthz, /readyz) and the newline-delimited TCP ingest. Port 0 picks a free port; the\n"
                 "bound addresses are logged as `listening http=HOST:PORT tcp=HOST:PORT`. SIGINT/SIGTERM\n"
                 "stop accepting, finish accepted work, flush the catalog and exit 0.\n",
    true, {"json", "stats"}, {}, &cmd_serve};

}  // namespace logsift::cli
