// logsift serve: the service, wired once here. The io_context pool, the
// HTTP, TCP and syslog listeners (service/net), the routes (service/api), the
// pipeline, the stores and the alerts; a clean shutdown on SIGINT/SIGTERM
// (stop accepting, finish what was accepted, flush the catalog, exit 0).
#include <csignal>
#include <cstdio>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/memory.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/migrate.h"
#include "pipeline/pipeline.h"
#include "pipeline/store/catalog.h"
#include "pipeline/store/dir_lock.h"
#include "pipeline/store/redis_catalog.h"
#include "pipeline/store/redis_windows.h"
#include "service/alerts/address_policy.h"
#include "service/alerts/alert_router.h"
#include "service/alerts/alert_store.h"
#include "service/alerts/delivery.h"
#include "service/alerts/redis_alert_store.h"
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
    s.catalog = std::make_unique<SqliteCatalog>(config.data_dir, config.catalog_examples);
    s.alerts = std::make_unique<SqliteAlertStore>(config.data_dir);
  }
  return s;
}

// Runs until a signal; returns the process exit code.
int run_server(const Config& config) {
  if (auto why = api::check_exposure(config)) {
    spdlog::critical("{}", *why);
    return 2;
  }
  std::string fd_error;
  const FdBudget fds = raise_fd_limit(config, &fd_error);
  if (!fd_error.empty()) {
    spdlog::critical("startup refused: {}", fd_error);
    return 1;
  }
  if (fds.soft != fds.soft_before)
    spdlog::info("open-file limit raised from {} to {} ({} needed)", fds.soft_before, fds.soft, fds.need);
  FdReserve fd_reserve;
  ServerContext ctx;
  ctx.config = config;
  ctx.fd_reserve = &fd_reserve;
  // The routes and the app's services they reach; the transport sees only
  // the handler.
  api::AppContext app(ctx);
  ctx.http_handler = [&app](AnyExecutor ex, HttpRequest&& req, Responder respond) {
    handle_http_request(app, std::move(ex), std::move(req), std::move(respond));
  };
  const api::Authenticator auth(config);
  app.auth = &auth;
  // Declaration order is destruction order in reverse. The io_context comes
  // first so it outlives everything that owns an I/O object bound to it (the
  // delivery worker's timer and strand, held by the router; sessions held by
  // queued handlers, which it destroys last). The pipeline (whose aggregator
  // calls the router) goes before the router and the stores.
  net::io_context ioc(config.io_threads);
  // The SSRF guard shared by subscription checks and webhook delivery. Its
  // own ports are set once the listeners are bound, before any io thread
  // runs (nothing reads it before then).
  // (webhook_allow_cidrs was checked by Config::validate.)
  auto address_policy =
      std::make_shared<webhook::AddressPolicy>(webhook::parse_cidr_list(config.webhook_allow_cidrs));
  std::unique_ptr<DataDirLock> dir_lock;
  Stores stores;
  std::unique_ptr<ContractMigrator> migrator;  // owns the write gate the state stage consults
  std::unique_ptr<AlertRouter> router;
  std::unique_ptr<Pipeline> pipeline;
  std::unique_ptr<RedisWindows> windows;  // store: redis; stopped right after the pipeline
  std::unique_ptr<RedisQueueIngest> queue;  // redis_ingest_stream; stopped before the pipeline
  // Declared after the catalog, so its job (which reads the catalog) is joined first.
  BackgroundWork background;
  try {
    dir_lock = std::make_unique<DataDirLock>(config.data_dir);
    stores = open_stores(config);
    migrator = std::make_unique<ContractMigrator>(config, *stores.catalog, *stores.catalog);
    router = std::make_unique<AlertRouter>(*stores.alerts, config, address_policy);
    pipeline = std::make_unique<Pipeline>(
        config, stores.catalog.get(), [r = router.get()](auto&& events) { r->on_alerts(std::move(events)); },
        &migrator->gate());
    if (stores.redis) {
      // Every replica's windows count the whole fleet's lines.
      windows = std::make_unique<RedisWindows>(
          *stores.redis, redis_options(config), config.redis_key_prefix, redis::process_name(),
          [p = pipeline.get()](std::vector<CountDelta>&& d) { p->observe_remote(d); });
      pipeline->set_count_publisher([w = windows.get()](std::vector<CountDelta>&& d) { w->publish(std::move(d)); });
      windows->start();
    }
    if (!config.redis_ingest_stream.empty())
      queue = std::make_unique<RedisQueueIngest>(config, pipeline.get(), redis::process_name());
  } catch (const std::exception& e) {
    spdlog::critical("startup failed: {}", e.what());
    return 1;
  }
  // The cluster-id contract: a store written under another one is migrated
  // (pipeline/migrate.h) while the server answers reads; writes are refused
  // with 503 + Retry-After until the new ids are in place.
  bool migrate = false;
  try {
    migrate = migrator->check(contract_of(*pipeline));
  } catch (const std::exception& e) {
    spdlog::critical("startup failed: {}", e.what());
    pipeline->stop();
    return 1;
  }
  ctx.pipeline = pipeline.get();
  app.pipeline = pipeline.get();
  app.contract_digest = migrator->contract().digest;
  app.catalog = stores.catalog.get();
  app.write_gate = &migrator->gate();
  app.alert_store = stores.alerts.get();
  app.alert_router = router.get();
  app.background = &background;

  // Pending alerts left by an earlier run (even a kill -9) go out now.
  auto delivery = std::make_shared<DeliveryWorker>(ioc, *stores.alerts, config, address_policy);
  router->attach([p = pipeline.get()](std::vector<RuleSpec> rules) { p->set_alert_rules(std::move(rules)); },
                 delivery);
  // New clusters whose alerts a crash kept from the outbox (before traffic;
  // after a migration, under the new ids, before writes are let in).
  auto replay = [p = pipeline.get()] {
    try {
      if (size_t n = p->replay_pending_alerts())
        spdlog::warn("raised the new_cluster alerts of {} clusters created just before an unclean stop", n);
    } catch (const std::exception& e) {
      spdlog::error("replaying pending new_cluster alerts: {} (retried at the next start)", e.what());
    }
  };
  if (migrate)
    migrator->start(replay);
  else
    replay();
  delivery->start();
  std::shared_ptr<Listener> http_listener, tcp_listener, syslog_listener;
  try {
    http_listener = std::make_shared<Listener>(
        ioc, ctx, config.http_host, config.http_port, &start_http_session, config.max_http_connections,
        /*reserve=*/16, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 34\r\n"
        "Connection: close\r\n\r\n{\"error\":\"too many connections\"}\r\n");
    tcp_listener = std::make_shared<Listener>(ioc, ctx, config.tcp_host, config.tcp_port, &start_tcp_session,
                                              config.max_tcp_connections, /*reserve=*/0,
                                              "{\"error\":\"too many connections\"}\n");
    if (config.syslog_port >= 0) {
      // Syslog senders never read: a refused connection just closes.
      syslog_listener = std::make_shared<Listener>(ioc, ctx, config.syslog_host, config.syslog_port,
                                                   &start_syslog_session, config.max_tcp_connections,
                                                   /*reserve=*/0, "");
    }
  } catch (const std::exception& e) {
    spdlog::critical("cannot listen: {}", e.what());
    migrator->stop();
    pipeline->stop();
    windows.reset();
    return 1;
  }
  address_policy->set_own_ports({http_listener->local().port(), tcp_listener->local().port()});
  if (syslog_listener) address_policy->set_own_ports({http_listener->local().port(), tcp_listener->local().port(),
                                                      syslog_listener->local().port()});
  http_listener->run();
  tcp_listener->run();
  if (syslog_listener) syslog_listener->run();
  ctx.ready = true;
  if (queue) queue->start();

  std::atomic<bool> stop_requested{false};
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    spdlog::info("signal {}: draining", sig);
    stop_requested = true;
  });

  // Keeps the io threads alive while sessions only wait on pipeline callbacks.
  auto work = net::make_work_guard(ioc);
  std::vector<std::thread> threads;
  for (int i = 0; i < config.io_threads; ++i)
    threads.emplace_back([&ioc, i] {
      set_thread_name("ls-io-" + std::to_string(i));
      ioc.run();
    });
  // Printed whatever the log level: with port 0 it is how callers learn the ports.
  const std::string syslog_text =
      syslog_listener ? " syslog=" + endpoint_text(syslog_listener->local()) : std::string();
  std::fprintf(stderr, "logsift: listening http=%s tcp=%s%s data_dir=%s\n", endpoint_text(http_listener->local()).c_str(),
               endpoint_text(tcp_listener->local()).c_str(), syslog_text.c_str(), config.data_dir.c_str());
  std::fflush(stderr);

  // The main thread only waits for the signal; it also gives free heap back
  // to the OS now and then (pipeline/core/memory.h says why).
  const auto trim_every = std::chrono::milliseconds(config.memory_trim_interval_ms);
  auto next_trim = std::chrono::steady_clock::now() + trim_every;
  while (!stop_requested) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (trim_every.count() > 0 && std::chrono::steady_clock::now() >= next_trim) {
      const HeapTrim t = release_free_heap();
      spdlog::debug("heap trim: {} bytes back to the OS in {} us", t.released_bytes, t.duration_ns / 1000);
      next_trim = std::chrono::steady_clock::now() + trim_every;
    }
  }

  // 1. Stop accepting. 2. Let every connection finish what it accepted.
  ctx.draining = true;
  if (queue) queue->stop();  // the batch in hand finishes and is acked
  http_listener->close();
  tcp_listener->close();
  if (syslog_listener) syslog_listener->close();
  ctx.drain_all();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(config.shutdown_grace_ms);
  while (ctx.connections.load() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (ctx.connections.load() > 0)
    spdlog::warn("shutdown grace over with {} connections open", ctx.connections.load());
  // 3. Drain the pipeline (all accepted batches reach the catalog), 4. flush.
  pipeline->stop();
  windows.reset();  // its thread feeds the pipeline's aggregator: stop it while both exist
  // Undelivered alerts stay in the outbox (durable) for the next start.
  delivery->stop();
  work.reset();
  ioc.stop();
  for (auto& t : threads) t.join();
  background.wait();
  migrator->stop();  // a waiting replica stops waiting; a running migration finishes (one transaction)
  stores.catalog->checkpoint();
  spdlog::info("stopped: {} lines clustered", metrics().lines_clustered.get());
  return 0;
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
