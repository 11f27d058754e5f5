#include "service/net/syslog_session.h"

#include <deque>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "service/net/stream_session.h"
#include "service/net/syslog.h"

namespace logsift {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Room for the header and structured data in front of a max_line_bytes MSG.
constexpr size_t kHeaderAllowance = 8 * 1024;

class SyslogSession : public StreamSession<SyslogSession> {
  friend class StreamSession<SyslogSession>;  // calls on_read

 public:
  SyslogSession(tcp::socket&& socket, ServerContext& ctx, ListenerGrant grant)
      : StreamSession(std::move(socket), ctx, std::move(grant)),
        framer_(static_cast<size_t>(ctx.config.max_line_bytes) + kHeaderAllowance) {
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    if (!ec) peer_ = ep.address().to_string() + ":" + std::to_string(ep.port());
    parse_opts_.max_labels = ctx.config.max_labels;
  }

  void do_read() {
    if (!paused()) read_chunk(&readbuf_, ctx_.config.tcp_idle_timeout_ms);
  }

  void maybe_finish() {
    if (!read_done_ || inflight_ > 0 || reading_ || closed_) return;
    closed_ = true;
    close();
  }

 private:
  bool paused() const { return inflight_ >= ctx_.config.tcp_max_inflight_batches; }

  void on_read(beast::error_code ec, std::size_t n) {
    reading_ = false;
    auto batch = std::make_unique<Batch>();
    now_ = now_ms();
    if (ec) {
      read_done_ = true;
      if (ec == beast::error::timeout) spdlog::debug("syslog {}: idle timeout", peer_);
      framer_.finish();  // an unterminated last LF frame is still a message
    } else {
      framer_.feed(std::string_view(readbuf_.data(), n));
    }
    SyslogFrameEvent ev;
    while (framer_.next(&ev)) {
      metrics().syslog_frames.inc();
      if (ev.kind == SyslogFrameEvent::Kind::kError) {
        rejected(Reject::kBadRequest, ev.error);
        continue;
      }
      add_frame(*batch, ev.frame);
    }
    if (!batch->records.empty()) submit(std::move(batch));
    if (ec) return maybe_finish();
    do_read();
  }

  void add_frame(Batch& batch, std::string_view frame) {
    // Blank keep-alive lines some senders emit between LF frames.
    if (frame.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
    std::string error;
    parse_opts_.now_ms = now_;
    if (!parse_syslog(frame, &msg_, &error, parse_opts_)) {
      rejected(Reject::kBadRequest, error);
      return;
    }
    if (auto e = check_text(msg_.message, ctx_.config)) {
      rejected(e->reason, e->message);
      return;
    }
    Record& r = batch.records.emplace_back();
    r.received_ms = now_;
    // The framer's buffer moves on with the next read: the message is copied.
    r.text = batch.keep(msg_.message);
    r.labels = std::move(msg_.labels);
    apply_structured(r, ctx_.config, batch);
  }

  void rejected(Reject reason, const std::string& why) {
    metrics().reject(reason);
    metrics().syslog_rejected.inc();
    // Rate-limited per connection: the first few, then every 1000th.
    if (++rejections_ <= 5 || rejections_ % 1000 == 0)
      spdlog::warn("syslog {}: frame rejected ({} so far on this connection): {}", peer_, rejections_, why);
  }

  void submit(std::unique_ptr<Batch> batch) {
    ++inflight_;
    auto self = shared_from_this();
    batch->on_done = [self](std::unique_ptr<Batch> done) {
      // Refused by the store: syslog has no reply, so each message is counted
      // and logged (rate-limited) as rejected.
      if (const size_t n = done->refused()) {
        std::string why = done->refusal.reason();
        net::post(self->stream_.get_executor(), [self, n, why = std::move(why)] {
          for (size_t i = 0; i < n; ++i) self->rejected(Reject::kStoreUnavailable, why);
        });
      }
      net::post(self->stream_.get_executor(), [self] {
        --self->inflight_;
        self->do_read();  // may resume a paused connection
        self->maybe_finish();
      });
    };
    submit_with_backoff(stream_.get_executor(), ctx_.pipeline, std::move(batch), std::chrono::hours(24 * 365),
                        [](std::unique_ptr<Batch>) {});
  }

  SyslogFramer framer_;
  SyslogParseOptions parse_opts_;
  SyslogMessage msg_;
  std::string peer_ = "?";
  std::string readbuf_;
  int64_t now_ = 0;
  int inflight_ = 0;
  uint64_t rejections_ = 0;
  bool closed_ = false;
};

}  // namespace

void start_syslog_session(tcp::socket socket, ServerContext& ctx, ListenerGrant grant) {
  metrics().syslog_connections_total.inc();
  start_session<SyslogSession>(std::move(socket), ctx, std::move(grant));
}

}  // namespace logsift
