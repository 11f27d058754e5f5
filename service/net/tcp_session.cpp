#include "service/net/tcp_session.h"

#include <algorithm>
#include <deque>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/line_framer.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/reply_json.h"
#include "service/net/stream_session.h"

namespace logsift {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;


class TcpSession : public StreamSession<TcpSession> {
  friend class StreamSession<TcpSession>;  // calls on_read

 public:
  using StreamSession::StreamSession;

  void do_read() {
    if (!paused()) read_chunk(&readbuf_, ctx_.config.tcp_idle_timeout_ms);
  }

  void maybe_finish() {
    if (read_done_ && !reading_ && events_.open()) flush_open_event();  // the stream ended: so did its event
    if (!read_done_ || !pending_.empty() || writing_ || !write_queue_.empty() || reading_) return;
    if (closed_) return;
    closed_ = true;
    quiet_.cancel();
    note_open_event();
    close();
  }

 private:
  struct Slot {
    std::unique_ptr<Batch> done;  // null while in the pipeline
  };

  // Reading pauses while the connection has tcp_max_inflight_batches batches
  // in the pipeline or tcp_max_write_queue_bytes of replies not yet taken by
  // the client: a slow pipeline or a client that does not read pushes back
  // through TCP flow control instead of growing memory.
  bool paused() const {
    return static_cast<int>(pending_.size()) >= ctx_.config.tcp_max_inflight_batches ||
           write_queue_bytes_ >= static_cast<size_t>(ctx_.config.tcp_max_write_queue_bytes);
  }

  void on_read(beast::error_code ec, std::size_t n) {
    reading_ = false;
    if (ec) {
      read_done_ = true;
      if (ec == beast::error::timeout) spdlog::debug("tcp: idle timeout");
      // A partial last line without '\n' at EOF is still a line.
      if (is_end_of_stream(ec) || ec == beast::error::timeout) {
        if (auto last = framer_.finish()) {
          auto batch = std::make_unique<Batch>();
          now_ = now_ms();
          events_.add_line(batch->keep(*last), now_, *batch);
          events_.flush(*batch);
          note_open_event();
          submit(std::move(batch));
        }
      }
      return maybe_finish();
    }
    readbuf_.resize(n);
    now_ = now_ms();
    auto batch = std::make_unique<Batch>();
    // Zero copy: the batch adopts the read buffer and complete lines are
    // views into it; only a line split across two reads is copied.
    std::string_view chunk = batch->adopt(std::move(readbuf_));
    readbuf_ = std::string();
    // A record per line at most: reserved, so that the records are not moved
    // again each time the vector grows (a Record is a few hundred bytes).
    batch->records.reserve(1 + static_cast<size_t>(std::count(chunk.begin(), chunk.end(), '\n')));
    // The connection is one source: the lines of a stack trace become one
    // event (pipeline/ingest/multiline.h); each line still gets a reply.
    const size_t lines = framer_.feed(
        chunk,
        [&](std::string_view line, bool in_chunk) { events_.add_line(in_chunk ? line : batch->keep(line), now_, *batch); },
        [&] {
          Record r;
          reject_record(r, {Reject::kLineTooLong,
                            "line over max_line_bytes (" + std::to_string(ctx_.config.max_line_bytes) + ")"});
          events_.add(std::move(r), *batch);
        });
    metrics().tcp_lines.inc(lines);
    events_.detach();  // an open event waits for the next read, out of this one's buffer
    note_open_event();
    if (!batch->records.empty()) submit(std::move(batch));
    arm_quiet_time();
    do_read();
  }

  // The open event ends after a quiet time with no line of this connection:
  // long for one that announced a trace, short for a plain line's (whose
  // reply waits for it).
  void arm_quiet_time() {
    if (!events_.open()) return;
    const uint64_t generation = ++reads_;
    quiet_.expires_after(std::chrono::milliseconds(
        events_.expecting() ? ctx_.config.multiline_timeout_ms : ctx_.config.multiline_short_timeout_ms));
    quiet_.async_wait([self = shared_from_this(), generation](const beast::error_code& ec) {
      if (ec || generation != self->reads_ || self->closed_) return;
      self->flush_open_event();
    });
  }

  void flush_open_event() {
    auto batch = std::make_unique<Batch>();
    events_.flush(*batch);
    note_open_event();
    if (!batch->records.empty()) submit(std::move(batch));
  }

  // logsift_multiline_open_events / _bytes: this connection's share.
  void note_open_event() {
    const int64_t open = events_.open() && !closed_ ? 1 : 0;
    const int64_t bytes = closed_ ? 0 : static_cast<int64_t>(events_.open_bytes());
    metrics().multiline_open_events.add(open - open_events_);
    metrics().multiline_open_bytes.add(bytes - open_bytes_);
    open_events_ = open;
    open_bytes_ = bytes;
  }

  void submit(std::unique_ptr<Batch> batch) {
    pending_.emplace_back();
    Slot* slot = &pending_.back();  // deque: stable address while it exists
    auto self = shared_from_this();
    batch->on_done = [self, slot](std::unique_ptr<Batch> b) {
      net::post(self->stream_.get_executor(), [self, slot, b = std::move(b)]() mutable {
        slot->done = std::move(b);
        if (slot != &self->pending_.front()) metrics().tcp_batches_reordered.inc();
        self->flush_done();
      });
    };
    if (batch->live() == 0) {  // only rejections: no need to visit the pipeline
      slot->done = std::move(batch);
      flush_done();
      return;
    }
    submit_with_backoff(stream_.get_executor(), ctx_.pipeline, std::move(batch), std::chrono::hours(24 * 365),
                        [](std::unique_ptr<Batch>) {});
  }

  // Pops finished batches from the front (input order) into the write queue.
  void flush_done() {
    while (!pending_.empty() && pending_.front().done) {
      auto b = std::move(pending_.front().done);
      pending_.pop_front();
      // Refused by the store (nothing of it stored): each line gets its
      // error line and counts as a rejection.
      for (size_t i = 0, n = b->refused(); i < n; ++i) metrics().reject(Reject::kStoreUnavailable);
      if (ctx_.config.tcp_replies || b->aborted) {
        std::string out;
        out.reserve(b->records.size() * 160);
        for (const auto& r : b->records) {
          if (!b->aborted) {
            append_line_results(r, true, &out);  // one reply per input line: an event's lines share its result
            continue;
          }
          for (uint32_t k = 0; k < r.lines; ++k) out += "{\"error\":\"shutting down\"}\n";
        }
        write_queue_bytes_ += out.size();
        write_queue_.push_back(std::move(out));
      }
    }
    do_write();
    do_read();  // may resume a paused connection
    maybe_finish();
  }

  void do_write() {
    if (writing_ || write_queue_.empty() || closed_) return;
    writing_ = true;
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.tcp_idle_timeout_ms));
    net::async_write(stream_, net::buffer(write_queue_.front()),
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->writing_ = false;
                       self->write_queue_bytes_ -= self->write_queue_.front().size();
                       self->write_queue_.pop_front();
                       if (ec) {  // client went away: drop replies, keep processing accepted lines
                         self->closed_ = true;
                         self->write_queue_.clear();
                         self->write_queue_bytes_ = 0;
                       }
                       self->do_write();
                       self->do_read();  // a drained write queue resumes reading
                       self->maybe_finish();
                     });
  }

  std::string readbuf_;
  LineFramer framer_{static_cast<size_t>(ctx_.config.max_line_bytes)};
  EventAssembler events_{ctx_.config};
  net::steady_timer quiet_{stream_.get_executor()};
  uint64_t reads_ = 0;  // which read armed quiet_
  int64_t open_events_ = 0, open_bytes_ = 0;  // what note_open_event() last counted
  int64_t now_ = 0;  // when the current chunk was read
  bool writing_ = false;
  bool closed_ = false;
  std::deque<Slot> pending_;
  std::deque<std::string> write_queue_;
  size_t write_queue_bytes_ = 0;
};

}  // namespace

void start_tcp_session(tcp::socket socket, ServerContext& ctx, ListenerGrant grant, std::shared_ptr<TlsServer> tls) {
  metrics().tcp_connections_total.inc();
  start_session<TcpSession>(std::move(socket), ctx, std::move(grant), std::move(tls));
}

}  // namespace logsift
