#include "service/net/syslog_session.h"

#include <deque>
#include <map>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "service/net/stream_session.h"
#include "service/net/syslog.h"

namespace logsift {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// Room for the header and structured data in front of a max_line_bytes MSG.
constexpr size_t kHeaderAllowance = 8 * 1024;
// Sources (host + app + process id) with an open event, per connection, at
// most: past it, the oldest event ends.
constexpr size_t kMaxSources = 1024;

// rsyslog escapes control characters on receipt ("#011" for a tab): a
// trace's "\tat ..." arrives as "#011at ...". Its leading tabs are tabs again.
std::string_view unescape_leading_tabs(std::string_view message, std::string* scratch) {
  if (message.substr(0, 4) != "#011") return message;
  scratch->clear();
  while (message.substr(0, 4) == "#011") {
    scratch->push_back('\t');
    message.remove_prefix(4);
  }
  scratch->append(message);
  return *scratch;
}

class SyslogSession : public StreamSession<SyslogSession> {
  friend class StreamSession<SyslogSession>;  // calls on_read

 public:
  SyslogSession(tcp::socket&& socket, ServerContext& ctx, ListenerGrant grant, std::shared_ptr<TlsServer> tls)
      : StreamSession(std::move(socket), ctx, std::move(grant), std::move(tls)),
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
    if (read_done_ && !reading_ && !sources_.empty()) flush_sources(/*all=*/true);  // the stream ended
    if (!read_done_ || inflight_ > 0 || reading_ || closed_) return;
    closed_ = true;
    quiet_.cancel();
    note_open_events();
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
    for (auto& [key, src] : sources_) src.events->detach();  // open events wait for later frames
    note_open_events();
    if (!batch->records.empty()) submit(std::move(batch));
    if (ec) return maybe_finish();
    arm_quiet_time();
    do_read();
  }

  // One source: a program on a host (its events do not mix with another's).
  struct Source {
    std::unique_ptr<EventAssembler> events;
    int64_t last_ms = 0;
  };

  // Every open event whose quiet time has passed ends (all: every one).
  void flush_sources(bool all) {
    auto batch = std::make_unique<Batch>();
    const int64_t now = now_ms();
    for (auto it = sources_.begin(); it != sources_.end();) {
      Source& s = it->second;
      const int64_t quiet = s.events->expecting() ? ctx_.config.multiline_timeout_ms : ctx_.config.multiline_short_timeout_ms;
      if (all || now - s.last_ms >= quiet) {
        s.events->flush(*batch);
        it = sources_.erase(it);
      } else {
        ++it;
      }
    }
    note_open_events();
    if (!batch->records.empty()) submit(std::move(batch));
  }

  void arm_quiet_time() {
    if (sources_.empty() || quiet_armed_) return;
    quiet_armed_ = true;
    quiet_.expires_after(std::chrono::milliseconds(ctx_.config.multiline_short_timeout_ms));
    quiet_.async_wait([self = shared_from_this()](const beast::error_code& ec) {
      self->quiet_armed_ = false;
      if (ec || self->closed_) return;
      self->flush_sources(/*all=*/false);
      self->arm_quiet_time();
    });
  }

  void note_open_events() {
    int64_t open = 0, bytes = 0;
    if (!closed_)
      for (const auto& [key, src] : sources_) {
        open += src.events->open();
        bytes += static_cast<int64_t>(src.events->open_bytes());
      }
    metrics().multiline_open_events.add(open - open_events_);
    metrics().multiline_open_bytes.add(bytes - open_bytes_);
    open_events_ = open;
    open_bytes_ = bytes;
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
    Record r;
    r.received_ms = now_;
    // The framer's buffer moves on with the next read: the message is copied.
    r.text = batch.keep(unescape_leading_tabs(msg_.message, &scratch_));
    r.labels = std::move(msg_.labels);
    // Each message may be one line of a stack trace (rsyslog's imfile, a
    // program's stderr through logger): the lines of one program's trace
    // become one event (pipeline/ingest/multiline.h).
    std::string key(msg_.hostname);
    key.append(1, '\x1f').append(msg_.app_name).append(1, '\x1f').append(msg_.procid);
    auto it = sources_.find(key);
    if (it == sources_.end()) {
      if (sources_.size() >= kMaxSources) {  // bounded: the longest quiet source's event ends
        auto oldest = sources_.begin();
        for (auto s = sources_.begin(); s != sources_.end(); ++s)
          if (s->second.last_ms < oldest->second.last_ms) oldest = s;
        oldest->second.events->flush(batch);
        sources_.erase(oldest);
      }
      it = sources_.emplace(std::move(key), Source{std::make_unique<EventAssembler>(ctx_.config), now_}).first;
      it->second.events->relay_levels(true);
    }
    it->second.last_ms = now_;
    it->second.events->add(std::move(r), batch);
    if (!it->second.events->open()) sources_.erase(it);
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
  std::string scratch_;
  std::map<std::string, Source> sources_;  // those with an open event
  net::steady_timer quiet_{stream_.get_executor()};
  bool quiet_armed_ = false;
  int64_t open_events_ = 0, open_bytes_ = 0;
  std::string peer_ = "?";
  std::string readbuf_;
  int64_t now_ = 0;
  int inflight_ = 0;
  uint64_t rejections_ = 0;
  bool closed_ = false;
};

}  // namespace

void start_syslog_session(tcp::socket socket, ServerContext& ctx, ListenerGrant grant, std::shared_ptr<TlsServer> tls) {
  metrics().syslog_connections_total.inc();
  start_session<SyslogSession>(std::move(socket), ctx, std::move(grant), std::move(tls));
}

}  // namespace logsift
