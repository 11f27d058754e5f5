// A real HTTP webhook receiver for the alert/webhook integration tests.
//
// WebhookReceiver is a small Boost.Beast server on its own thread, bound to
// 127.0.0.1 only. It records every request it reads (method, target, headers,
// body, receive time, what it answered, whether the Standard Webhooks
// signature verified) and answers with a scripted response: 200 by default,
// or any status with extra headers (e.g. 429 + Retry-After), a delay, or a
// connection closed without any response.
//
// "Down" receivers: PortReservation binds 127.0.0.1:0 without listening, so
// the port is known but every connect to it is refused (and no other process
// can take it). WebhookReceiver::start(reservation) later listens on that very
// socket; stop() + start(port) re-listens on a known port with SO_REUSEADDR.
//
// Everything is bounded: waits take deadlines, stop() closes the listener
// and every open connection and joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace logsift_it {

// ---------------------------------------------------------------------------
// Standard Webhooks signature helpers (OpenSSL).

// RFC 4648 base64 with padding (EVP_EncodeBlock).
std::string base64_encode(std::string_view data);
// Strict decode of padded standard base64; nullopt if malformed.
std::optional<std::string> base64_decode(std::string_view text);
// HMAC key for a subscription secret: "whsec_<base64>" -> decoded bytes,
// anything else -> the secret's raw bytes. nullopt for a bad whsec_ value.
std::optional<std::string> webhook_key(const std::string& secret);
// "v1," + base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")).
std::string webhook_signature(const std::string& key, const std::string& id,
                              const std::string& timestamp, const std::string& body);
// Checks a webhook-signature header value (space-separated "vN,<b64>" entries;
// one matching v1 entry suffices). On failure *why says what is wrong.
bool verify_webhook_signature(const std::string& secret, const std::string& id,
                              const std::string& timestamp, const std::string& body,
                              const std::string& signature_header, std::string* why = nullptr);

// ---------------------------------------------------------------------------

struct ReceivedRequest {
  std::size_t seq = 0;  // 0, 1, 2... in receive order
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::chrono::steady_clock::time_point received_steady;
  std::chrono::system_clock::time_point received_wall;
  int answered_status = 0;  // what the receiver answered; 0 = closed without response
  bool signature_checked = false;  // a secret was set when it arrived
  bool signature_ok = false;
  std::string signature_error;

  std::string header(const std::string& name) const;  // "" if absent
  std::string webhook_id() const { return header("webhook-id"); }
  // Parsed body; a discarded value if not JSON.
  nlohmann::json json_body() const;
  // Unix milliseconds of the receive time.
  long long received_unix_ms() const;
  std::string describe() const;  // one line, for failure messages
};

struct ScriptedResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool close_without_response = false;  // read the request, then close the connection
  std::chrono::milliseconds delay{0};   // wait this long before answering (or closing)

  static ScriptedResponse ok() { return {}; }
  static ScriptedResponse with_status(int s,
                                      std::vector<std::pair<std::string, std::string>> h = {}) {
    ScriptedResponse r;
    r.status = s;
    r.headers = std::move(h);
    return r;
  }
  static ScriptedResponse closed() {
    ScriptedResponse r;
    r.close_without_response = true;
    return r;
  }
};

// A loopback port bound (not listening): connects are refused until a
// WebhookReceiver is started on it.
class PortReservation {
 public:
  PortReservation();  // throws std::runtime_error on failure
  ~PortReservation();
  PortReservation(const PortReservation&) = delete;
  PortReservation& operator=(const PortReservation&) = delete;

  int port() const { return port_; }
  std::string url(const std::string& path = "/hook") const;
  // Gives the bound socket away (the reservation is then empty); -1 if empty.
  int release();

 private:
  int fd_ = -1;
  int port_ = 0;
};

class WebhookReceiver {
 public:
  using Handler = std::function<ScriptedResponse(const ReceivedRequest&)>;

  WebhookReceiver();
  ~WebhookReceiver();
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  // Listens on 127.0.0.1:port (0 = ephemeral) with SO_REUSEADDR.
  ::testing::AssertionResult start(int port = 0);
  // Listens on the reserved socket (same port; the reservation is consumed).
  ::testing::AssertionResult start(PortReservation& reservation);
  // Stops listening, closes every connection, joins the thread. Recorded
  // requests are kept; start() may be called again.
  void stop();
  bool listening() const;
  int port() const;  // the last port listened on
  std::string url(const std::string& path = "/hook") const;

  // If set, every request's webhook-signature is verified with this secret.
  void set_secret(const std::string& secret);
  // Response for requests when no script entry and no handler applies.
  void set_default_response(ScriptedResponse r);
  // Responses consumed one per request, in order, before the default.
  void push_responses(std::vector<ScriptedResponse> rs);
  // Decides each response (overrides script and default); empty to remove.
  // Called on the receiver thread with its lock held: it must not call this
  // receiver's methods.
  void set_handler(Handler h);

  std::vector<ReceivedRequest> requests() const;
  std::size_t count() const;
  // Waits until at least n requests were recorded.
  bool wait_for_count(std::size_t n, std::chrono::milliseconds timeout);
  // Waits until pred(recorded requests) is true; evaluated on every arrival.
  bool wait_for(const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
                std::chrono::milliseconds timeout);
  void clear();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Distinct webhook-ids that were answered 2xx at least once.
std::vector<std::string> delivered_ids(const std::vector<ReceivedRequest>& reqs);

}  // namespace logsift_it
