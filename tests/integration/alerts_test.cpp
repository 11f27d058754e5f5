// Alerts and webhook delivery against a real `logsift serve` process and a
// real HTTP receiver (webhook_receiver.h) in this process, loopback only.
//
// Every fault test prints one line to stdout:
//   [alerts] <Test>: alerts raised=X delivered=Y lost=Z ...
// raised = alerts the test's input must raise (distinct new clusters, ...),
// delivered = those the receiver answered 2xx at least once, lost = the rest.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

using Steady = std::chrono::steady_clock;
using std::chrono::duration_cast;

// ---------------------------------------------------------------------------
// Server options

// Fast retries so that fault tests finish in seconds.
std::vector<std::string> fast_delivery_args() {
  return {"--delivery-first-retry-ms", "100", "--delivery-max-backoff-ms", "500",
          "--delivery-timeout-ms",     "3000"};
}

ServerOptions alert_server(std::vector<std::string> extra = {}, const std::string& data_dir = "") {
  ServerOptions o;
  o.args = fast_delivery_args();
  o.args.insert(o.args.end(), extra.begin(), extra.end());
  o.data_dir = data_dir;
  return o;
}

// Prints the tail of a server's log if the test has failed by the time it
// goes out of scope (declare it right after the server).
void print_log_tail(const ServerProcess& s, const std::string& name) {
  std::string log = s.log_text();
  if (log.size() > 4000) log = log.substr(log.size() - 4000);
  std::cerr << "--- " << name << " log tail ---\n" << log << "\n";
}

class LogTailOnFailure {
 public:
  explicit LogTailOnFailure(const ServerProcess& s, std::string name = "server")
      : s_(s), name_(std::move(name)) {}
  ~LogTailOnFailure() {
    if (::testing::Test::HasFailure()) print_log_tail(s_, name_);
  }

 private:
  const ServerProcess& s_;
  std::string name_;
};

// ---------------------------------------------------------------------------
// Input lines

struct Sent {
  std::string text;
  std::string cluster_id;
  std::string template_text;
  bool is_new = false;
};

// POSTs each text (one request each, with labels); ADD_FAILUREs on errors.
std::vector<Sent> send_lines(int port, const std::vector<std::string>& texts,
                             const json& labels = nullptr) {
  std::vector<Sent> out;
  HttpClient client(port);
  for (const auto& t : texts) {
    json body = {{"text", t}};
    if (!labels.is_null()) body["labels"] = labels;
    HttpResponse r = client.request("POST", "/inferences", body.dump(), "application/json");
    json j = r.json_body();
    if (r.status != 200 || !is_inference_result(j)) {
      ADD_FAILURE() << "POST /inferences '" << t << "': " << r.describe();
      continue;
    }
    out.push_back({t, j["cluster_id"], j["template"], j["new"].get<bool>()});
  }
  return out;
}

// n lines that must each open a new cluster (asserted by the caller).
std::vector<std::string> new_cluster_lines(std::uint64_t seed, std::size_t n) {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(distinct_line(seed, i));
  return v;
}

std::set<std::string> new_cluster_ids(const std::vector<Sent>& sent) {
  std::set<std::string> ids;
  for (const auto& s : sent)
    if (s.is_new) ids.insert(s.cluster_id);
  return ids;
}

// ---------------------------------------------------------------------------
// Timestamps


long long now_unix_ms() {
  return duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---------------------------------------------------------------------------
// Payload checks

// The logsift payload: every field present with its type and sane values.
::testing::AssertionResult is_logsift_alert(const json& a) {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << why << ": " << (a.is_discarded() ? "<not JSON>" : a.dump());
  };
  if (!a.is_object()) return fail("not an object");
  for (const char* k : {"id", "rule", "rule_id", "state", "cluster_id", "template", "first_seen",
                        "last_seen", "created_at", "source"}) {
    if (!a.contains(k) || !a[k].is_string()) return fail(std::string("missing string '") + k + "'");
  }
  if (a["id"].get<std::string>().empty()) return fail("empty id");
  if (a["rule_id"].get<std::string>().empty()) return fail("empty rule_id");
  const std::string rule = a["rule"];
  if (rule != "new_cluster" && rule != "threshold" && rule != "spike") return fail("unknown rule");
  const std::string state = a["state"];
  if (state != "firing" && state != "resolved") return fail("bad state");
  if (!is_hex16(a["cluster_id"])) return fail("cluster_id is not 16 lowercase hex");
  if (a["template"].get<std::string>().empty()) return fail("empty template");
  if (a["source"] != "logsift") return fail("source is not \"logsift\"");
  // A resolved notice may carry a count of 0 (the window fell back).
  if (!a.contains("count") || !a["count"].is_number_integer() ||
      a["count"].get<long long>() < (state == "firing" ? 1 : 0))
    return fail(state == "firing" ? "count is not an integer >= 1" : "count is not an integer >= 0");
  if (!a.contains("window_seconds") || !a["window_seconds"].is_number() ||
      a["window_seconds"].get<double>() < 0)
    return fail("window_seconds is not a number >= 0");
  static const std::regex ms_utc(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  std::map<std::string, long long> t;
  for (const char* k : {"first_seen", "last_seen", "created_at"}) {
    const std::string v = a[k];
    if (!std::regex_match(v, ms_utc)) return fail(std::string(k) + " is not ISO 8601 UTC with ms");
    auto ms = parse_rfc3339_ms(v);
    if (!ms) return fail(std::string(k) + " does not parse");
    t[k] = *ms;
  }
  if (t["first_seen"] > t["last_seen"]) return fail("first_seen > last_seen");
  if (t["last_seen"] > t["created_at"] + 2000) return fail("last_seen after created_at");
  if (std::llabs(t["created_at"] - now_unix_ms()) > 10 * 60 * 1000)
    return fail("created_at is not within 10 minutes of now");
  if (!a.contains("labels") || !a["labels"].is_object()) return fail("labels is not an object");
  for (const auto& [k, v] : a["labels"].items())
    if (!v.is_string()) return fail("label '" + k + "' is not a string");
  if (!a.contains("examples") || !a["examples"].is_array()) return fail("examples is not an array");
  return ::testing::AssertionSuccess();
}

// POST from the server with the Standard Webhooks headers and a valid signature.
::testing::AssertionResult is_signed_webhook(const ReceivedRequest& r) {
  auto fail = [&](const std::string& why) {
    return ::testing::AssertionFailure() << why << " in " << r.describe();
  };
  if (r.method != "POST") return fail("method is not POST");
  if (r.target != "/hook") return fail("target is not /hook");
  if (r.header("content-type").find("application/json") == std::string::npos)
    return fail("content-type is not application/json");
  if (r.webhook_id().empty()) return fail("no webhook-id");
  if (r.header("idempotency-key") != r.webhook_id()) return fail("Idempotency-Key != webhook-id");
  const std::string ts = r.header("webhook-timestamp");
  if (ts.empty() || ts.find_first_not_of("0123456789") != std::string::npos)
    return fail("webhook-timestamp is not unix seconds");
  long long skew = std::stoll(ts) * 1000 - r.received_unix_ms();
  if (std::llabs(skew) > 5 * 60 * 1000) return fail("webhook-timestamp is not within 5 minutes");
  if (!r.signature_checked) return fail("receiver had no secret");
  if (!r.signature_ok) return fail("bad signature: " + r.signature_error);
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Subscriptions and the outbox

HttpResponse post_subscription(int port, const json& body) {
  return http_request(port, "POST", "/subscriptions", body.dump(), "application/json");
}

// POST /subscriptions that must answer 201 with an id; *reply gets the body.
::testing::AssertionResult subscribe(int port, const json& body, json* reply = nullptr) {
  HttpResponse r = post_subscription(port, body);
  json j = r.json_body();
  if (r.status != 201 || !j.is_object() || !j.contains("id") || !j["id"].is_string())
    return ::testing::AssertionFailure()
           << "POST /subscriptions " << body.dump() << " -> " << r.describe();
  if (reply) *reply = j;
  return ::testing::AssertionSuccess();
}

json hook_sub(const std::string& url, const std::string& secret = "s3cret",
              json rules = json::array({"new_cluster"})) {
  json b = {{"url", url}, {"rules", std::move(rules)}};
  if (!secret.empty()) b["secret"] = secret;
  return b;
}

struct Outbox {
  bool ok = false;
  std::string error;
  std::vector<json> pending, delivered, failed;
  std::size_t size() const { return pending.size() + delivered.size() + failed.size(); }
  std::vector<json> all() const {
    std::vector<json> v = pending;
    v.insert(v.end(), delivered.begin(), delivered.end());
    v.insert(v.end(), failed.begin(), failed.end());
    return v;
  }
  std::vector<json> for_sub(const std::string& sub) const {
    std::vector<json> v;
    for (const auto& e : all())
      if (e.value("subscription_id", "") == sub) v.push_back(e);
    return v;
  }
  std::string describe() const {
    std::ostringstream os;
    os << "outbox pending=" << pending.size() << " delivered=" << delivered.size()
       << " failed=" << failed.size();
    if (!error.empty()) os << " error: " << error;
    for (const auto& e : all()) {
      os << "\n  " << e.value("id", "?") << " status=" << e.value("status", "?")
         << " attempts=" << e.value("attempts", json()).dump()
         << " last_status=" << e.value("last_status", json()).dump()
         << " last_error=" << e.value("last_error", json()).dump();
    }
    return os.str();
  }
};

// Every entry of GET /alerts?status=S, following limit/offset; checks the
// entry shape. nullopt (with *error) if a request fails.
std::optional<std::vector<json>> list_alerts(int port, const std::string& status,
                                             std::string* error) {
  std::vector<json> out;
  constexpr int kPage = 500;
  for (int offset = 0; offset < 1000000; offset += kPage) {
    HttpResponse r = http_get(port, "/alerts?status=" + status + "&limit=" + std::to_string(kPage) +
                                        "&offset=" + std::to_string(offset));
    json j = r.json_body();
    if (r.status != 200 || !j.is_object() || !j.contains("alerts") || !j["alerts"].is_array() ||
        !j.contains("total") || !j["total"].is_number_integer()) {
      *error = "GET /alerts?status=" + status + ": " + r.describe();
      return std::nullopt;
    }
    for (auto& e : j["alerts"]) {
      bool shape = e.is_object() && e.contains("id") && e["id"].is_string() &&
                   e.contains("subscription_id") && e["subscription_id"].is_string() &&
                   e.contains("status") && e["status"] == status && e.contains("attempts") &&
                   e["attempts"].is_number_integer() && e.contains("created_at") &&
                   e.contains("updated_at") && e.contains("last_status") &&
                   e.contains("last_error") && e.contains("alert") && e["alert"].is_object();
      if (!shape) {
        *error = "GET /alerts?status=" + status + ": bad entry " + e.dump();
        return std::nullopt;
      }
      out.push_back(e);
    }
    long long total = j["total"].get<long long>();
    if (j["alerts"].empty() || static_cast<long long>(out.size()) >= total) {
      if (static_cast<long long>(out.size()) != total) {
        *error = "GET /alerts?status=" + status + ": total=" + std::to_string(total) +
                 " but the pages held " + std::to_string(out.size());
        return std::nullopt;
      }
      break;
    }
  }
  return out;
}

Outbox outbox_once(int port) {
  Outbox o;
  auto p = list_alerts(port, "pending", &o.error);
  if (!p) return o;
  auto d = list_alerts(port, "delivered", &o.error);
  if (!d) return o;
  auto f = list_alerts(port, "failed", &o.error);
  if (!f) return o;
  o.pending = std::move(*p);
  o.delivered = std::move(*d);
  o.failed = std::move(*f);
  o.ok = true;
  return o;
}

// id -> "status/attempts" of every entry; "" if an id is listed twice.
std::string outbox_signature(const Outbox& o) {
  std::map<std::string, std::string> m;
  for (const auto& e : o.all()) {
    auto [it, fresh] = m.emplace(e["id"].get<std::string>(),
                                 e["status"].get<std::string>() + "/" + e["attempts"].dump());
    if (!fresh) return "";
  }
  std::string sig = "-";
  for (const auto& [id, v] : m) sig += id + "=" + v + ";";
  return sig;
}

// The three status lists are three requests: an alert that changes status
// between them shows up twice or not at all. Take snapshots until two in a
// row agree (bounded), so callers see one consistent state.
Outbox outbox(int port) {
  Outbox prev = outbox_once(port);
  for (int i = 0; i < 20 && prev.ok; ++i) {
    Outbox next = outbox_once(port);
    if (!next.ok) return next;
    std::string a = outbox_signature(prev), b = outbox_signature(next);
    if (!a.empty() && a == b) return next;
    prev = std::move(next);
  }
  if (prev.ok) {
    prev.ok = false;
    prev.error = "the outbox did not hold still for two consecutive snapshots";
  }
  return prev;
}

// Polls the outbox until pred holds; *last gets the last snapshot.
bool wait_outbox(int port, const std::function<bool(const Outbox&)>& pred, Millis timeout,
                 Outbox* last) {
  return wait_until(
      [&] {
        *last = outbox(port);
        return last->ok && pred(*last);
      },
      timeout, Millis(50));
}

// At least n alerts pending, each after at least one failed attempt.
std::function<bool(const Outbox&)> all_pending_attempted(std::size_t n) {
  return [n](const Outbox& o) {
    if (o.pending.size() < n) return false;
    for (const auto& e : o.pending)
      if (e["attempts"].get<long long>() < 1) return false;
    return true;
  };
}

// ---------------------------------------------------------------------------
// Delivery accounting

// Key of an alert in a logsift payload: rule/cluster/state.
std::string alert_key(const json& a) {
  if (!a.is_object()) return "<not a JSON object>";
  return a.value("rule", "?") + "/" + a.value("cluster_id", "?") + "/" + a.value("state", "?");
}

struct Tally {
  std::size_t raised = 0, delivered = 0, lost = 0, requests = 0, redeliveries = 0;
  std::map<std::string, std::set<std::string>> ids_by_key;  // alert key -> webhook-ids seen
};

// expected_keys: the alerts the test's input must raise.
Tally tally(const std::vector<ReceivedRequest>& reqs, const std::set<std::string>& expected_keys) {
  Tally t;
  t.raised = expected_keys.size();
  t.requests = reqs.size();
  std::set<std::string> delivered;
  std::map<std::string, int> seen;
  for (const auto& r : reqs) {
    json b = r.json_body();
    if (!b.is_object()) continue;
    std::string key = alert_key(b);
    t.ids_by_key[key].insert(r.webhook_id());
    if (seen[r.webhook_id()]++ > 0) ++t.redeliveries;
    if (r.answered_status >= 200 && r.answered_status < 300) delivered.insert(key);
  }
  for (const auto& k : expected_keys)
    if (delivered.count(k)) ++t.delivered;
  t.lost = t.raised - t.delivered;
  return t;
}

void report(const Tally& t, const std::string& extra = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[alerts] " << info->test_suite_name() << "." << info->name()
            << ": alerts raised=" << t.raised << " delivered=" << t.delivered
            << " lost=" << t.lost << " (requests=" << t.requests
            << " redeliveries=" << t.redeliveries << (extra.empty() ? "" : " " + extra) << ")"
            << std::endl;
  ::testing::Test::RecordProperty("alerts_raised", static_cast<int>(t.raised));
  ::testing::Test::RecordProperty("alerts_delivered", static_cast<int>(t.delivered));
  ::testing::Test::RecordProperty("alerts_lost", static_cast<int>(t.lost));
}

std::set<std::string> new_cluster_keys(const std::set<std::string>& cluster_ids) {
  std::set<std::string> keys;
  for (const auto& c : cluster_ids) keys.insert("new_cluster/" + c + "/firing");
  return keys;
}

// Waits until every expected key was answered 2xx by the receiver.
bool wait_all_delivered(WebhookReceiver& rcv, const std::set<std::string>& keys, Millis timeout) {
  return rcv.wait_for(
      [&](const std::vector<ReceivedRequest>& reqs) {
        std::set<std::string> got;
        for (const auto& r : reqs)
          if (r.answered_status >= 200 && r.answered_status < 300) got.insert(alert_key(r.json_body()));
        return std::includes(got.begin(), got.end(), keys.begin(), keys.end());
      },
      timeout);
}

std::string dump_requests(const std::vector<ReceivedRequest>& reqs, std::size_t max = 40) {
  std::ostringstream os;
  os << reqs.size() << " request(s):";
  for (std::size_t i = 0; i < reqs.size() && i < max; ++i) os << "\n  " << reqs[i].describe();
  return os.str();
}

// Every key seen exactly one webhook-id (redeliveries reuse the id).
void expect_stable_ids(const Tally& t) {
  for (const auto& [key, ids] : t.ids_by_key) {
    EXPECT_EQ(ids.size(), 1u) << "alert " << key << " was sent with " << ids.size()
                              << " different webhook-ids";
  }
}

// ---------------------------------------------------------------------------
// The setup the tests share: one `logsift serve` with fast delivery retries
// (its log tail printed when the test fails) on `port`, and the receiver
// `rcv`, which verifies signatures with kSecret once started here.

constexpr const char* kSecret = "s3cret";

// Sets kSecret on `r` and starts it (on `down`'s port when given).
::testing::AssertionResult start_signed(WebhookReceiver& r, PortReservation* down = nullptr) {
  r.set_secret(kSecret);
  return down ? r.start(*down) : r.start();
}

class AlertTest : public ::testing::Test {
 protected:
  // Starts the server with alert_server(extra) and waits until it is ready.
  ::testing::AssertionResult start_server(std::vector<std::string> extra = {}) {
    return start_server_with(alert_server(std::move(extra)));
  }
  ::testing::AssertionResult start_server_with(ServerOptions options) {
    server_.emplace(std::move(options));
    ::testing::AssertionResult started = server_->start_ready();
    port = server_->http_port();
    return started;
  }
  ServerProcess& server() { return *server_; }

  ::testing::AssertionResult start_receiver(PortReservation* down = nullptr) {
    return start_signed(rcv, down);
  }
  // start_receiver() and a subscription of rcv to `rules`; *sub gets the 201 body.
  ::testing::AssertionResult start_subscribed(json* sub = nullptr,
                                              json rules = json::array({"new_cluster"})) {
    if (auto started = start_receiver(); !started) return started;
    return subscribe(port, hook_sub(rcv.url(), kSecret, std::move(rules)), sub);
  }

  // Every key answered 2xx by rcv, then the outbox holds at least n delivered
  // and none pending (*ob: the last snapshot).
  void expect_delivered_and_drained(const std::set<std::string>& keys, std::size_t n, Outbox* ob) {
    EXPECT_TRUE(wait_all_delivered(rcv, keys, Millis(15000))) << dump_requests(rcv.requests());
    EXPECT_TRUE(wait_outbox(
        port, [&](const Outbox& o) { return o.delivered.size() >= n && o.pending.empty(); },
        Millis(10000), ob))
        << ob->describe();
  }

  // SIGTERM: the server must exit 0.
  void expect_clean_stop() {
    ProcessExit e = server_->stop(SIGTERM);
    EXPECT_TRUE(e.clean()) << e.describe();
  }

  // Pending alerts survive a restart by `sig` (its own servers on one data dir).
  void restart_keeps_pending_alerts(int sig);

  void TearDown() override {
    if (HasFailure() && server_) print_log_tail(*server_, "server");
  }

  std::optional<ServerProcess> server_;  // declared before rcv: stopped after it
  int port = 0;
  WebhookReceiver rcv;
};

// The suites' names, kept for --gtest_filter; one fixture serves them all.
using Alerts = AlertTest;
using AlertFaults = AlertTest;
using AlertRules = AlertTest;
using Subscriptions = AlertTest;
using Series = AlertTest;

// ===========================================================================
// 1. Signatures: raw secret, whsec_ secret, generated secret.

TEST_F(Alerts, SignaturesVerifyForRawWhsecAndGeneratedSecrets) {
  ASSERT_TRUE(start_server());

  std::string key_bytes;
  for (int i = 0; i < 32; ++i) key_bytes.push_back(static_cast<char>(i * 37 + 11));
  const std::string whsec = "whsec_" + base64_encode(key_bytes);

  WebhookReceiver raw, wh, gen;
  wh.set_secret(whsec);
  ASSERT_TRUE(start_signed(raw));
  ASSERT_TRUE(wh.start());
  ASSERT_TRUE(gen.start());

  json reply;
  ASSERT_TRUE(subscribe(port, hook_sub(raw.url(), "s3cret"), &reply));
  EXPECT_EQ(reply.value("secret_set", false), true) << reply;
  ASSERT_TRUE(subscribe(port, hook_sub(wh.url(), whsec), &reply));
  EXPECT_EQ(reply.value("secret_set", false), true) << reply;
  ASSERT_TRUE(subscribe(port, hook_sub(gen.url(), ""), &reply));
  ASSERT_TRUE(reply.contains("secret") && reply["secret"].is_string() &&
              !reply["secret"].get<std::string>().empty())
      << "a subscription without a secret must get a generated one in the 201 body: " << reply;
  const std::string generated = reply["secret"];
  // A generated secret must be usable by a Standard Webhooks receiver: with
  // the whsec_ prefix, the rest must be base64 (that is the key).
  EXPECT_TRUE(webhook_key(generated).has_value())
      << "generated secret '" << generated << "' starts with whsec_ but the rest is not base64";
  gen.set_secret(generated);

  auto sent = send_lines(port, new_cluster_lines(101, 3));
  auto ids = new_cluster_ids(sent);
  ASSERT_EQ(ids.size(), 3u) << "test input must open 3 clusters";
  auto keys = new_cluster_keys(ids);

  for (auto* r : {&raw, &wh, &gen}) {
    EXPECT_TRUE(wait_all_delivered(*r, keys, Millis(15000)))
        << "receiver " << r->url() << ": " << dump_requests(r->requests());
    auto reqs = r->requests();
    for (const auto& q : reqs)
      EXPECT_TRUE(is_signed_webhook(q)) << "receiver " << r->url()
                                        << (r == &raw ? " (raw secret)" : r == &wh ? " (whsec_ secret)" : " (generated secret)")
                                        << ", webhook-signature='" << q.header("webhook-signature") << "'";
  }
  // The whsec_ key is the base64-decoded bytes, not the string itself.
  for (const auto& q : wh.requests()) {
    std::string as_raw = webhook_signature(whsec, q.webhook_id(), q.header("webhook-timestamp"), q.body);
    EXPECT_EQ(q.header("webhook-signature").find(as_raw.substr(3)), std::string::npos)
        << "whsec_ secret was used as raw bytes instead of its base64-decoded key";
  }
  Tally t = tally(raw.requests(), keys);
  report(t);
  EXPECT_EQ(t.lost, 0u);
  expect_clean_stop();
}

// ===========================================================================
// 2. Healthy receiver: N new clusters -> exactly N alerts, once each.

TEST_F(Alerts, HealthyReceiverGetsEachNewClusterOnce) {
  ASSERT_TRUE(start_server());
  json sub;
  ASSERT_TRUE(start_subscribed(&sub));
  const std::string sub_id = sub["id"];

  constexpr std::size_t kN = 20;
  const json labels = {{"service", "api"}, {"level", "ERROR"}, {"host", "web-1"}};
  auto sent = send_lines(port, new_cluster_lines(202, kN), labels);
  ASSERT_EQ(sent.size(), kN);
  std::map<std::string, Sent> by_cluster;
  for (const auto& s : sent) {
    ASSERT_TRUE(s.is_new) << "test input must open a new cluster: " << s.text;
    by_cluster[s.cluster_id] = s;
  }
  ASSERT_EQ(by_cluster.size(), kN) << "test input must open distinct clusters";
  auto keys = new_cluster_keys(new_cluster_ids(sent));

  Outbox ob;
  expect_delivered_and_drained(keys, kN, &ob);

  auto reqs = rcv.requests();
  Tally t = tally(reqs, keys);
  report(t);
  EXPECT_EQ(reqs.size(), kN) << "a healthy receiver must get each alert exactly once; "
                             << dump_requests(reqs);
  std::set<std::string> webhook_ids, payload_ids, clusters;
  for (const auto& r : reqs) {
    SCOPED_TRACE(r.describe());
    EXPECT_TRUE(is_signed_webhook(r));
    json a = r.json_body();
    ASSERT_TRUE(is_logsift_alert(a));
    webhook_ids.insert(r.webhook_id());
    payload_ids.insert(a["id"].get<std::string>());
    clusters.insert(a["cluster_id"].get<std::string>());
    EXPECT_EQ(a["rule"], "new_cluster");
    EXPECT_EQ(a["state"], "firing");
    auto it = by_cluster.find(a["cluster_id"]);
    ASSERT_NE(it, by_cluster.end()) << "alert for a cluster the test did not open";
    EXPECT_EQ(a["template"], it->second.template_text) << "template differs from /inferences";
    EXPECT_EQ(a["labels"].value("service", ""), "api") << "labels of the line are missing";
    EXPECT_LE(a["examples"].size(), 3u) << "more examples than --alert-max-examples (3)";
    EXPECT_NE(a["examples"].dump().find(it->second.text), std::string::npos)
        << "the cluster's first line is not among the examples";
  }
  EXPECT_EQ(webhook_ids.size(), reqs.size()) << "webhook-ids must be distinct";
  EXPECT_EQ(payload_ids.size(), reqs.size()) << "alert ids must be distinct";
  EXPECT_EQ(clusters.size(), kN);
  EXPECT_EQ(t.lost, 0u);

  ASSERT_TRUE(ob.ok) << ob.error;
  EXPECT_EQ(ob.size(), kN) << ob.describe();
  // limit/offset pages: disjoint, complete, total constant.
  std::set<std::string> paged;
  for (int offset = 0; offset < 40; offset += 7) {
    HttpResponse r = http_get(port, "/alerts?status=delivered&limit=7&offset=" + std::to_string(offset));
    json j = r.json_body();
    ASSERT_EQ(r.status, 200) << r.describe();
    ASSERT_TRUE(j.contains("alerts") && j["alerts"].is_array()) << r.describe();
    EXPECT_EQ(j.value("total", -1LL), static_cast<long long>(kN)) << r.describe();
    EXPECT_LE(j["alerts"].size(), 7u) << r.describe();
    for (const auto& e : j["alerts"])
      EXPECT_TRUE(paged.insert(e.value("id", "")).second) << "entry on two pages: " << e;
  }
  EXPECT_EQ(paged.size(), kN);
  for (const auto& e : ob.delivered) {
    EXPECT_EQ(e["subscription_id"], sub_id) << e;
    EXPECT_EQ(e["attempts"], 1) << e;
    EXPECT_TRUE(is_logsift_alert(e["alert"]));
    EXPECT_TRUE(clusters.count(e["alert"].value("cluster_id", ""))) << e;
  }
  expect_clean_stop();
}

// ===========================================================================
// 3. Receiver down, then up: every alert arrives, same webhook-id on retries.

// While an attempt is in flight the delivery worker used to re-arm its timer
// every millisecond (the in-flight row counted as due). Now it sleeps until
// the attempt's result wakes it.
TEST_F(AlertFaults, NoBusyPollingWhileAnAttemptIsInFlight) {
  ASSERT_TRUE(start_server());
  ScriptedResponse slow = ScriptedResponse::ok();
  slow.delay = Millis(2500);
  rcv.set_default_response(slow);
  ASSERT_TRUE(rcv.start());
  ASSERT_TRUE(subscribe(port, hook_sub(rcv.url())));
  auto sent = send_lines(port, new_cluster_lines(909, 1));
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_TRUE(rcv.wait_for_count(1, Millis(10000)));  // the attempt is now waiting on the receiver
  auto before = fetch_metric(port, "logsift_delivery_wakeups_total");
  let_time_pass(Millis(1500));  // the span the rate is measured over
  auto after = fetch_metric(port, "logsift_delivery_wakeups_total");
  ASSERT_TRUE(before && after);
  EXPECT_LT(*after - *before, 10) << "wake-ups during 1.5 s with one attempt in flight";
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.delivered.size() == 1; }, Millis(15000), &ob))
      << ob.describe();
}

TEST_F(AlertFaults, ReceiverDownThenUpDeliversEverything) {
  ASSERT_TRUE(start_server());
  PortReservation down;  // bound, not listening: connects are refused
  json sub;
  ASSERT_TRUE(subscribe(port, hook_sub(down.url()), &sub));

  constexpr std::size_t kN = 10;
  auto sent = send_lines(port, new_cluster_lines(303, kN));
  auto ids = new_cluster_ids(sent);
  ASSERT_EQ(ids.size(), kN) << "test input must open distinct clusters";
  auto keys = new_cluster_keys(ids);

  Outbox ob;
  ASSERT_TRUE(wait_outbox(
      port,
      all_pending_attempted(kN),
      Millis(15000), &ob))
      << "all alerts must be pending with attempts > 0 while the receiver is down; "
      << ob.describe();
  EXPECT_TRUE(ob.delivered.empty() && ob.failed.empty()) << ob.describe();
  for (const auto& e : ob.pending) {
    EXPECT_TRUE(e["last_error"].is_string() && !e["last_error"].get<std::string>().empty())
        << "a failed attempt must leave last_error: " << e;
  }
  std::set<std::string> pending_ids;
  for (const auto& e : ob.pending) pending_ids.insert(e["id"].get<std::string>());
  // The backlog shows in /metrics: how many wait for this subscription, and
  // for how long.
  {
    const std::string m = http_get(port, "/metrics").body;
    const std::string series = "{subscription=\"" + sub.value("id", "") + "\"} ";
    const size_t at = m.find("logsift_alerts_pending" + series);
    ASSERT_NE(at, std::string::npos) << m.substr(0, 2000);
    EXPECT_EQ(std::stoll(m.substr(at + std::string("logsift_alerts_pending").size() + series.size())),
              static_cast<long long>(kN));
    const size_t age = m.find("logsift_alerts_oldest_pending_seconds" + series);
    ASSERT_NE(age, std::string::npos);
    EXPECT_GT(std::stod(m.substr(age + std::string("logsift_alerts_oldest_pending_seconds").size() + series.size())), 0.0);
  }

  ASSERT_TRUE(start_receiver(&down));
  expect_delivered_and_drained(keys, kN, &ob);
  {
    const std::string m = http_get(port, "/metrics").body;
    EXPECT_NE(m.find("logsift_alerts_pending{subscription=\"" + sub.value("id", "") + "\"} 0\n"), std::string::npos)
        << "drained: the series stays, at 0";
  }

  auto reqs = rcv.requests();
  Tally t = tally(reqs, keys);
  report(t);
  EXPECT_EQ(t.delivered, kN);
  EXPECT_EQ(t.lost, 0u);
  expect_stable_ids(t);
  for (const auto& r : reqs) EXPECT_TRUE(is_signed_webhook(r));
  std::set<std::string> delivered_entry_ids;
  for (const auto& e : ob.delivered) {
    delivered_entry_ids.insert(e["id"].get<std::string>());
    EXPECT_GE(e["attempts"].get<long long>(), 2) << "the down period must count attempts: " << e;
  }
  EXPECT_EQ(delivered_entry_ids, pending_ids) << "outbox ids changed between pending and delivered";
  expect_clean_stop();
}

// ===========================================================================
// 4. Pending alerts survive SIGTERM and kill -9.

void AlertTest::restart_keeps_pending_alerts(int sig) {
  TempDir data("logsift-alerts-restart-");
  PortReservation down;
  constexpr std::size_t kN = 8;
  std::set<std::string> keys;
  std::set<std::string> pending_ids;
  std::string sub_id;
  {
    ServerProcess s1(alert_server({}, data.path()));
    ASSERT_TRUE(s1.start_ready());
    LogTailOnFailure tail(s1, "first server");
    json sub;
    ASSERT_TRUE(subscribe(s1.http_port(), hook_sub(down.url()), &sub));
    sub_id = sub["id"];
    auto sent = send_lines(s1.http_port(), new_cluster_lines(404 + sig, kN));
    auto ids = new_cluster_ids(sent);
    ASSERT_EQ(ids.size(), kN) << "test input must open distinct clusters";
    keys = new_cluster_keys(ids);
    Outbox ob;
    ASSERT_TRUE(wait_outbox(
        s1.http_port(),
        all_pending_attempted(kN),
        Millis(15000), &ob))
        << ob.describe();
    for (const auto& e : ob.pending) pending_ids.insert(e["id"].get<std::string>());
    auto t0 = Steady::now();
    ProcessExit e = s1.stop(sig, Millis(15000));
    auto took = duration_cast<Millis>(Steady::now() - t0).count();
    if (sig == SIGTERM) {
      EXPECT_TRUE(e.clean()) << "SIGTERM with pending deliveries must exit 0 (took " << took
                             << " ms): " << e.describe();
    } else {
      EXPECT_EQ(e.signal, SIGKILL) << e.describe();
    }
  }
  ASSERT_TRUE(start_receiver(&down));
  ServerProcess s2(alert_server({}, data.path()));
  ASSERT_TRUE(s2.start_ready());
  LogTailOnFailure tail(s2, "restarted server");
  port = s2.http_port();

  HttpResponse subs = http_get(port, "/subscriptions/" + sub_id);
  EXPECT_EQ(subs.status, 200) << "the subscription must survive the restart: " << subs.describe();

  bool all = wait_all_delivered(rcv, keys, Millis(20000));
  Outbox ob;
  bool drained = wait_outbox(
      port, [&](const Outbox& o) { return o.delivered.size() >= kN && o.pending.empty(); },
      Millis(all ? 10000 : 1000), &ob);
  auto reqs = rcv.requests();
  Tally t = tally(reqs, keys);
  report(t, sig == SIGTERM ? "after SIGTERM" : "after SIGKILL");
  EXPECT_TRUE(all) << dump_requests(reqs) << "\n" << ob.describe();
  EXPECT_TRUE(drained) << ob.describe();
  EXPECT_EQ(t.lost, 0u);
  expect_stable_ids(t);
  for (const auto& r : reqs) EXPECT_TRUE(is_signed_webhook(r));
  std::set<std::string> delivered_entry_ids;
  for (const auto& e : ob.delivered) delivered_entry_ids.insert(e["id"].get<std::string>());
  EXPECT_EQ(delivered_entry_ids, pending_ids)
      << "outbox ids before the restart and delivered ids after it differ";
  EXPECT_EQ(ob.size(), kN) << "alerts duplicated or lost across the restart: " << ob.describe();
  ProcessExit e = s2.stop(SIGTERM);
  EXPECT_TRUE(e.clean()) << e.describe();
}

TEST_F(AlertFaults, PendingAlertsDeliveredAfterSigtermRestart) { restart_keeps_pending_alerts(SIGTERM); }
TEST_F(AlertFaults, PendingAlertsDeliveredAfterSigkillRestart) { restart_keeps_pending_alerts(SIGKILL); }

// ===========================================================================
// 5. 4xx: dead-lettered after one attempt; manual retry.

TEST_F(AlertFaults, ClientErrorDeadLettersAtOnceAndManualRetryResends) {
  ASSERT_TRUE(start_server());
  rcv.set_default_response(ScriptedResponse::with_status(400));
  json sub;
  ASSERT_TRUE(start_subscribed(&sub));
  const std::string sub_id = sub["id"];

  auto sent = send_lines(port, new_cluster_lines(505, 1));
  auto ids = new_cluster_ids(sent);
  ASSERT_EQ(ids.size(), 1u);
  auto keys = new_cluster_keys(ids);

  Outbox ob;
  ASSERT_TRUE(wait_outbox(port, [](const Outbox& o) { return !o.failed.empty(); }, Millis(15000), &ob))
      << "a 400 answer must dead-letter the alert; " << ob.describe() << "\n"
      << dump_requests(rcv.requests());
  ASSERT_EQ(ob.failed.size(), 1u) << ob.describe();
  const json entry = ob.failed[0];
  EXPECT_EQ(entry["subscription_id"], sub_id);
  EXPECT_EQ(entry["attempts"], 1) << entry;
  EXPECT_EQ(entry["last_status"], 400) << entry;
  EXPECT_TRUE(ob.pending.empty()) << ob.describe();
  // No retry may follow (bounded check: several first-retry periods).
  EXPECT_FALSE(rcv.wait_for_count(2, Millis(1500))) << "a 400 must not be retried; "
                                                    << dump_requests(rcv.requests());
  auto first = rcv.requests();
  ASSERT_EQ(first.size(), 1u) << dump_requests(first);
  EXPECT_TRUE(is_signed_webhook(first[0]));
  const std::string webhook_id = first[0].webhook_id();

  // Manual retry after the receiver is fixed.
  rcv.set_default_response(ScriptedResponse::ok());
  const std::string entry_id = entry["id"];
  HttpResponse rr = http_request(port, "POST", "/alerts/" + entry_id + "/retry", "", "");
  EXPECT_EQ(rr.status, 202) << rr.describe();
  json rj = rr.json_body();
  EXPECT_EQ(rj.value("id", ""), entry_id) << rr.describe();
  EXPECT_EQ(rj.value("status", ""), "pending") << rr.describe();
  EXPECT_TRUE(rcv.wait_for_count(2, Millis(10000))) << dump_requests(rcv.requests());
  auto reqs = rcv.requests();
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].webhook_id(), webhook_id) << "a manual retry must reuse the webhook-id";
  EXPECT_TRUE(is_signed_webhook(reqs[1]));
  EXPECT_EQ(reqs[1].json_body().value("id", "a"), reqs[0].json_body().value("id", "b"))
      << "a manual retry must resend the same alert";
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.delivered.size() == 1; },
                          Millis(10000), &ob))
      << ob.describe();
  if (ob.delivered.size() == 1) {
    EXPECT_EQ(ob.delivered[0]["id"], entry_id);
    // Whether a manual retry restarts the attempt count is not specified;
    // it must at least count the successful attempt.
    EXPECT_GE(ob.delivered[0]["attempts"].get<long long>(), 1) << ob.delivered[0];
    EXPECT_EQ(ob.delivered[0]["last_status"], 200) << ob.delivered[0];
    std::cout << "[alerts] manual retry: delivered entry attempts="
              << ob.delivered[0]["attempts"].dump() << " (1 failed + 1 retried attempt)" << std::endl;
  }
  Tally t = tally(rcv.requests(), keys);
  report(t, "after manual retry");
  EXPECT_EQ(t.lost, 0u);

  // Retrying a delivered alert: 409; an unknown one: 404.
  HttpResponse again = http_request(port, "POST", "/alerts/" + entry_id + "/retry", "", "");
  EXPECT_TRUE(is_json_error(again, 409)) << again.describe();
  HttpResponse unknown = http_request(port, "POST", "/alerts/alert_does_not_exist/retry", "", "");
  EXPECT_TRUE(is_json_error(unknown, 404)) << unknown.describe();

  // Retrying a pending alert: 409.
  PortReservation down;
  json sub2;
  ASSERT_TRUE(subscribe(port, hook_sub(down.url()), &sub2));
  const std::string sub2_id = sub2["id"];
  send_lines(port, new_cluster_lines(506, 1));
  ASSERT_TRUE(wait_outbox(
      port,
      [&](const Outbox& o) {
        for (const auto& e : o.pending)
          if (e["subscription_id"] == sub2_id && e["attempts"].get<long long>() >= 1) return true;
        return false;
      },
      Millis(10000), &ob))
      << ob.describe();
  std::string pending_id;
  for (const auto& e : ob.pending)
    if (e["subscription_id"] == sub2_id) pending_id = e["id"];
  HttpResponse busy = http_request(port, "POST", "/alerts/" + pending_id + "/retry", "", "");
  EXPECT_TRUE(is_json_error(busy, 409)) << "retry of a pending alert: " << busy.describe();
  HttpResponse del = http_request(port, "DELETE", "/subscriptions/" + sub2_id, "", "");
  EXPECT_EQ(del.status, 204) << del.describe();

  expect_clean_stop();
}

// ===========================================================================
// 6. Retried answers: 503, 408, 429 + Retry-After, closed connection, timeout.

TEST_F(AlertFaults, RetryableAnswersAreRetriedAndDelivered) {
  ServerOptions opts;
  opts.args = {"--delivery-first-retry-ms", "100", "--delivery-max-backoff-ms", "500",
               "--delivery-timeout-ms", "1000"};
  ASSERT_TRUE(start_server_with(opts));
  ASSERT_TRUE(start_subscribed());

  std::set<std::string> all_keys;
  std::uint64_t seed = 600;
  // Sends one new-cluster line after scripting `script`; returns the
  // requests of that alert once it was answered 2xx.
  auto phase = [&](const std::string& name, std::vector<ScriptedResponse> script,
                   std::size_t want_requests) -> std::vector<ReceivedRequest> {
    SCOPED_TRACE(name);
    rcv.push_responses(std::move(script));
    auto sent = send_lines(port, new_cluster_lines(++seed, 1));
    auto ids = new_cluster_ids(sent);
    EXPECT_EQ(ids.size(), 1u);
    if (ids.size() != 1) return {};
    auto keys = new_cluster_keys(ids);
    all_keys.insert(keys.begin(), keys.end());
    EXPECT_TRUE(wait_all_delivered(rcv, keys, Millis(15000))) << dump_requests(rcv.requests());
    std::vector<ReceivedRequest> mine;
    for (const auto& r : rcv.requests())
      if (keys.count(alert_key(r.json_body()))) mine.push_back(r);
    EXPECT_EQ(mine.size(), want_requests) << dump_requests(mine);
    std::set<std::string> wids;
    for (const auto& r : mine) {
      wids.insert(r.webhook_id());
      EXPECT_TRUE(is_signed_webhook(r));
    }
    EXPECT_EQ(wids.size(), 1u) << "retries must reuse the webhook-id; " << dump_requests(mine);
    return mine;
  };
  auto gap_ms = [](const ReceivedRequest& a, const ReceivedRequest& b) {
    return static_cast<long long>(duration_cast<Millis>(b.received_steady - a.received_steady).count());
  };

  auto a = phase("503 then 408 then 200",
                 {ScriptedResponse::with_status(503), ScriptedResponse::with_status(408)}, 3);
  if (a.size() >= 2) {
    EXPECT_LT(gap_ms(a[0], a[1]), 750)
        << "first retry must come within --delivery-first-retry-ms (100) plus scheduling slack";
  }
  auto b = phase("429 Retry-After: 1 then 200",
                 {ScriptedResponse::with_status(429, {{"Retry-After", "1"}})}, 2);
  long long gap429 = b.size() >= 2 ? gap_ms(b[0], b[1]) : -1;
  if (b.size() >= 2) {
    EXPECT_GE(gap429, 950) << "Retry-After: 1 must delay the retry by ~1 s";
    EXPECT_LT(gap429, 5000);
  }
  phase("connection closed without response then 200", {ScriptedResponse::closed()}, 2);
  ScriptedResponse slow = ScriptedResponse::with_status(503);
  slow.delay = Millis(3000);
  auto d = phase("no answer within --delivery-timeout-ms (1000) then 200", {slow}, 2);
  if (d.size() >= 2) {
    long long g = gap_ms(d[0], d[1]);
    EXPECT_GE(g, 900) << "retried before the 1000 ms timeout";
    EXPECT_LT(g, 2900) << "the attempt must time out after --delivery-timeout-ms, not wait for the answer";
  }

  Outbox ob;
  EXPECT_TRUE(wait_outbox(port,
                          [&](const Outbox& o) { return o.delivered.size() >= 4 && o.pending.empty(); },
                          Millis(10000), &ob))
      << ob.describe();
  EXPECT_TRUE(ob.failed.empty()) << ob.describe();
  Tally t = tally(rcv.requests(), all_keys);
  report(t, "gap_429_ms=" + std::to_string(gap429));
  EXPECT_EQ(t.lost, 0u);
  expect_clean_stop();
}

// ===========================================================================
// 7. Burst: 100k lines of one cluster -> one threshold alert, one new_cluster.

TEST_F(AlertFaults, BurstOfOneClusterRaisesOneAlertPerRule) {
  ASSERT_TRUE(start_server());
  ASSERT_TRUE(start_receiver());
  json sub;
  ASSERT_TRUE(subscribe(
      port,
      hook_sub(rcv.url(), "s3cret",
               json::array({"new_cluster", {{"kind", "threshold"}, {"threshold", 1000}, {"window", "1m"}}})),
      &sub));
  std::string threshold_rule_id;
  if (sub.contains("rules") && sub["rules"].is_array()) {
    for (const auto& r : sub["rules"])
      if (r.is_object() && r.value("kind", "") == "threshold") threshold_rule_id = r.value("id", "");
  }
  EXPECT_FALSE(threshold_rule_id.empty()) << "normalised rules need ids: " << sub;

  constexpr int kBatches = 10, kPerBatch = 10000;
  std::string cluster;
  HttpClient client(port, Millis(60000));
  auto t0 = Steady::now();
  for (int b = 0; b < kBatches; ++b) {
    json texts = json::array();
    for (int i = 0; i < kPerBatch; ++i) {
      long long n = static_cast<long long>(b) * kPerBatch + i;
      texts.push_back("Worker pool task " + std::to_string(n * 7919 % 1000003) + " finished in " +
                      std::to_string(n % 997) + " ms");
    }
    HttpResponse r = client.request("POST", "/inferences", json{{"texts", texts}}.dump(),
                                    "application/json");
    ASSERT_EQ(r.status, 200) << "batch " << b << ": " << r.describe().substr(0, 500);
    json j = r.json_body();
    ASSERT_TRUE(j.contains("results") && j["results"].size() == static_cast<std::size_t>(kPerBatch));
    for (const auto& res : j["results"]) {
      ASSERT_TRUE(res.contains("cluster_id")) << res;
      if (cluster.empty()) cluster = res["cluster_id"];
      ASSERT_EQ(res["cluster_id"], cluster) << "test input must be one cluster: " << res;
    }
  }
  auto send_ms = duration_cast<Millis>(Steady::now() - t0).count();
  long long count = -1;
  EXPECT_TRUE(wait_until(
      [&] {
        json c = http_get(port, "/clusters/" + cluster).json_body();
        if (c.is_object() && c.contains("count") && c["count"].is_number_integer())
          count = c["count"].get<long long>();
        return count >= kBatches * kPerBatch;
      },
      Millis(20000)))
      << "cluster count " << count;

  // Sentinel: a later new cluster. Once its alert is in the outbox, every
  // burst line has been through the aggregator.
  auto sentinel = send_lines(port, new_cluster_lines(707, 1));
  auto sentinel_ids = new_cluster_ids(sentinel);
  ASSERT_EQ(sentinel_ids.size(), 1u);
  std::set<std::string> keys = {"new_cluster/" + cluster + "/firing", "threshold/" + cluster + "/firing",
                                "new_cluster/" + *sentinel_ids.begin() + "/firing"};
  EXPECT_TRUE(wait_all_delivered(rcv, keys, Millis(20000))) << dump_requests(rcv.requests());
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [&](const Outbox& o) { return o.pending.empty() && o.size() >= 3; },
                          Millis(10000), &ob))
      << ob.describe().substr(0, 3000);
  auto reqs = rcv.requests();
  Tally t = tally(reqs, keys);
  report(t, "lines=" + std::to_string(kBatches * kPerBatch) + " send_ms=" + std::to_string(send_ms));
  EXPECT_EQ(ob.size(), 3u) << "the burst must raise 1 new_cluster + 1 threshold (+1 sentinel); "
                           << ob.describe().substr(0, 3000);
  EXPECT_EQ(reqs.size(), 3u) << dump_requests(reqs);
  std::map<std::string, int> per_key;
  for (const auto& r : reqs) {
    json a = r.json_body();
    EXPECT_TRUE(is_logsift_alert(a));
    ++per_key[alert_key(a)];
    if (a.value("rule", "") == "threshold") {
      EXPECT_GE(a.value("count", 0LL), 1000) << a;
      EXPECT_EQ(a.value("window_seconds", json()).dump(), "60") << a;
      EXPECT_EQ(a.value("rule_id", ""), threshold_rule_id) << a;
      EXPECT_LE(a["examples"].size(), 3u) << a;
    }
  }
  for (const auto& k : keys) EXPECT_EQ(per_key[k], 1) << k;
  EXPECT_EQ(t.lost, 0u);
  expect_clean_stop();
}

// ===========================================================================
// 6b. Receiver down for good: dead-lettered after --delivery-max-attempts,
//     then delivered by a manual retry once it is up.

TEST_F(AlertFaults, MaxAttemptsDeadLettersThenManualRetryDelivers) {
  ASSERT_TRUE(start_server({"--delivery-max-attempts", "3"}));
  PortReservation down;
  ASSERT_TRUE(subscribe(port, hook_sub(down.url())));
  constexpr std::size_t kN = 2;
  auto sent = send_lines(port, new_cluster_lines(650, kN));
  auto ids = new_cluster_ids(sent);
  ASSERT_EQ(ids.size(), kN);
  auto keys = new_cluster_keys(ids);

  Outbox ob;
  ASSERT_TRUE(wait_outbox(port, [&](const Outbox& o) { return o.failed.size() >= kN; }, Millis(15000), &ob))
      << "after 3 refused attempts each alert must be dead-lettered; " << ob.describe();
  EXPECT_TRUE(ob.pending.empty() && ob.delivered.empty()) << ob.describe();
  for (const auto& e : ob.failed) {
    EXPECT_EQ(e["attempts"], 3) << e;
    EXPECT_TRUE(e["last_error"].is_string() && !e["last_error"].get<std::string>().empty()) << e;
  }
  const std::size_t lost_before_retry = ob.failed.size();

  ASSERT_TRUE(start_receiver(&down));
  for (const auto& e : ob.failed) {
    HttpResponse r = http_request(port, "POST", "/alerts/" + e["id"].get<std::string>() + "/retry", "", "");
    EXPECT_EQ(r.status, 202) << r.describe();
  }
  EXPECT_TRUE(wait_all_delivered(rcv, keys, Millis(10000))) << dump_requests(rcv.requests());
  EXPECT_TRUE(wait_outbox(port, [&](const Outbox& o) { return o.delivered.size() >= kN; }, Millis(10000), &ob))
      << ob.describe();
  Tally t = tally(rcv.requests(), keys);
  report(t, "dead_lettered_before_retry=" + std::to_string(lost_before_retry));
  EXPECT_EQ(t.lost, 0u);
  expect_stable_ids(t);
  expect_clean_stop();
}

// ===========================================================================
// 7b. Threshold incident: one firing alert, then one resolved notice.

TEST_F(AlertRules, ThresholdFiresOnceThenResolves) {
  ASSERT_TRUE(start_server());
  ASSERT_TRUE(start_receiver());
  ASSERT_TRUE(subscribe(port, hook_sub(rcv.url(), "s3cret",
                                       json::array({{{"kind", "threshold"}, {"threshold", 5}, {"window", "2s"}}}))));
  auto burst = [&](int n, int base) {
    json texts = json::array();
    for (int i = 0; i < n; ++i)
      texts.push_back("Payment gateway timeout after " + std::to_string(300 + base + i) + " ms for order " +
                      std::to_string(9000 + base + i));
    HttpResponse r = post_json(port, json{{"texts", texts}});
    EXPECT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    return j.contains("results") && !j["results"].empty() ? j["results"][0].value("cluster_id", "") : "";
  };
  const std::string cluster = burst(15, 0);
  ASSERT_FALSE(cluster.empty());
  const std::string firing = "threshold/" + cluster + "/firing", resolved = "threshold/" + cluster + "/resolved";
  EXPECT_TRUE(wait_all_delivered(rcv, {firing}, Millis(10000))) << dump_requests(rcv.requests());
  // More lines within the same incident must not fire again.
  EXPECT_EQ(burst(15, 100), cluster);

  // The count falls below 5 once the 2 s window has passed.
  bool on_its_own = wait_all_delivered(rcv, {resolved}, Millis(6000));
  bool after_line = on_its_own;
  if (!on_its_own) {
    EXPECT_EQ(burst(1, 200), cluster);  // a quiet line, in case it is evaluated on lines only
    after_line = wait_all_delivered(rcv, {resolved}, Millis(5000));
  }
  std::cout << "[alerts] threshold resolved notice: "
            << (on_its_own ? "sent without further lines"
                           : after_line ? "sent only after a further line arrived" : "never sent")
            << std::endl;
  EXPECT_TRUE(after_line) << "no resolved notice after the threshold window passed; "
                          << dump_requests(rcv.requests());
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.pending.empty(); }, Millis(10000), &ob))
      << ob.describe();
  auto reqs = rcv.requests();
  std::map<std::string, int> per_key;
  std::map<std::string, std::string> wid;
  std::map<std::string, std::string> rule_id;
  for (const auto& r : reqs) {
    json a = r.json_body();
    EXPECT_TRUE(is_logsift_alert(a)) << r.describe();
    EXPECT_TRUE(is_signed_webhook(r));
    std::string k = alert_key(a);
    ++per_key[k];
    wid[k] = r.webhook_id();
    if (a.is_object()) rule_id[k] = a.value("rule_id", "");
  }
  EXPECT_EQ(per_key[firing], 1) << dump_requests(reqs);
  EXPECT_EQ(per_key[resolved], 1) << dump_requests(reqs);
  EXPECT_EQ(per_key.size(), 2u) << dump_requests(reqs);
  EXPECT_NE(wid[firing], wid[resolved]) << "the resolved notice is a separate message";
  EXPECT_EQ(rule_id[firing], rule_id[resolved]);
  Tally t = tally(reqs, {firing, resolved});
  report(t);
  expect_clean_stop();
}

// ===========================================================================
// 7c. Spike: rate jumps over the EWMA baseline -> one firing alert.

TEST_F(AlertRules, SpikeOverBaselineFiresOnce) {
  ASSERT_TRUE(start_server({"--alert-spike-window-ms", "1000", "--alert-spike-min-count", "20",
                                     "--alert-spike-factor", "3"}));
  ASSERT_TRUE(start_receiver());
  // "spike" as a kind string takes the --alert-spike-* defaults. If the
  // server rejects it, fall back to the same rule spelled out so that the
  // rule itself is still exercised.
  json sub;
  auto by_name = subscribe(port, hook_sub(rcv.url(), "s3cret", json::array({"spike", "new_cluster"})), &sub);
  EXPECT_TRUE(by_name) << "the kind string \"spike\" must be accepted";
  if (!by_name) {
    ASSERT_TRUE(subscribe(port,
                          hook_sub(rcv.url(), "s3cret",
                                   json::array({{{"kind", "spike"}, {"spike_factor", 3}, {"min_count", 20}, {"window", "1s"}},
                                                "new_cluster"})),
                          &sub));
  }
  int seq = 0;
  auto lines = [&](int n) {
    json texts = json::array();
    for (int i = 0; i < n; ++i, ++seq)
      texts.push_back("Session cache miss for tenant " + std::to_string(100 + seq) + " on node " +
                      std::to_string(seq % 7));
    HttpResponse r = post_json(port, json{{"texts", texts}});
    EXPECT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    return j.contains("results") && !j["results"].empty() ? j["results"][0].value("cluster_id", "") : "";
  };
  // Baseline: 2 lines per 1 s window for 3 windows (load pacing, not readiness).
  std::string cluster = lines(2);
  ASSERT_FALSE(cluster.empty());
  for (int w = 0; w < 3; ++w) {
    let_time_pass(Millis(1000));  // into the next 1 s window: the baseline is a rate over time
    EXPECT_EQ(lines(2), cluster);
  }
  // Spike: 200 lines in one window, then 200 more (same incident).
  EXPECT_EQ(lines(200), cluster);
  EXPECT_EQ(lines(200), cluster);
  const std::string firing = "spike/" + cluster + "/firing";
  EXPECT_TRUE(wait_all_delivered(rcv, {firing}, Millis(10000))) << dump_requests(rcv.requests());
  // Sentinel new cluster: once its alert is out and nothing is pending,
  // every spike line went through the aggregator.
  auto sentinel = send_lines(port, new_cluster_lines(777, 1));
  auto keys = new_cluster_keys(new_cluster_ids(sentinel));
  EXPECT_TRUE(wait_all_delivered(rcv, keys, Millis(10000))) << dump_requests(rcv.requests());
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.pending.empty(); }, Millis(10000), &ob))
      << ob.describe();
  int firings = 0;
  for (const auto& r : rcv.requests()) {
    json a = r.json_body();
    if (alert_key(a) == firing) {
      ++firings;
      EXPECT_TRUE(is_logsift_alert(a));
      EXPECT_GE(a.value("count", 0LL), 20) << a;
    }
  }
  EXPECT_EQ(firings, 1) << dump_requests(rcv.requests());
  keys.insert(firing);
  Tally t = tally(rcv.requests(), keys);
  report(t);
  expect_clean_stop();
}

// ===========================================================================
// 8. Alertmanager webhook format.

TEST_F(Alerts, AlertmanagerFormatVersion4) {
  ASSERT_TRUE(start_server());
  ASSERT_TRUE(start_receiver());
  json body = hook_sub(rcv.url());
  body["format"] = "alertmanager";
  json sub;
  ASSERT_TRUE(subscribe(port, body, &sub));
  EXPECT_EQ(sub.value("format", ""), "alertmanager") << sub;

  auto sent = send_lines(port, new_cluster_lines(808, 1), json{{"service", "api"}});
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_TRUE(rcv.wait_for_count(1, Millis(15000)));
  auto r = rcv.requests()[0];
  EXPECT_TRUE(is_signed_webhook(r));
  json p = r.json_body();
  ASSERT_TRUE(p.is_object()) << r.describe();
  EXPECT_EQ(p.value("version", ""), "4") << p;
  EXPECT_EQ(p.value("status", ""), "firing") << p;
  EXPECT_TRUE(p.contains("receiver") && p["receiver"].is_string()) << p;
  EXPECT_TRUE(p.contains("groupKey") && p["groupKey"].is_string()) << p;
  for (const char* k : {"groupLabels", "commonLabels", "commonAnnotations"})
    EXPECT_TRUE(p.contains(k) && p[k].is_object()) << k << ": " << p;
  EXPECT_TRUE(p.contains("externalURL") && p["externalURL"].is_string()) << p;
  ASSERT_TRUE(p.contains("alerts") && p["alerts"].is_array() && !p["alerts"].empty()) << p;
  const json& a = p["alerts"][0];
  EXPECT_EQ(a.value("status", ""), "firing") << a;
  ASSERT_TRUE(a.contains("labels") && a["labels"].is_object()) << a;
  EXPECT_EQ(a["labels"].value("alertname", ""), "logsift_new_cluster") << a;
  EXPECT_EQ(a["labels"].value("cluster_id", ""), sent[0].cluster_id) << a;
  EXPECT_EQ(a["labels"].value("service", ""), "api") << a;
  EXPECT_TRUE(a.contains("annotations") && a["annotations"].is_object()) << a;
  ASSERT_TRUE(a.contains("startsAt") && a["startsAt"].is_string()) << a;
  auto starts = parse_rfc3339_ms(a["startsAt"]);
  ASSERT_TRUE(starts.has_value()) << "startsAt does not parse: " << a["startsAt"];
  EXPECT_LT(std::llabs(*starts - now_unix_ms()), 10 * 60 * 1000LL) << a["startsAt"];
  ASSERT_TRUE(a.contains("endsAt") && a["endsAt"].is_string()) << a;
  EXPECT_TRUE(parse_rfc3339_ms(a["endsAt"]).has_value()) << a["endsAt"];
  EXPECT_TRUE(a.contains("fingerprint") && a["fingerprint"].is_string() &&
              !a["fingerprint"].get<std::string>().empty())
      << a;
  EXPECT_TRUE(a.contains("generatorURL")) << a;
  Tally t = tally({}, {});
  t.raised = 1;
  t.delivered = rcv.count() >= 1 ? 1 : 0;
  t.lost = t.raised - t.delivered;
  t.requests = rcv.count();
  report(t);
  expect_clean_stop();
}

// ===========================================================================
// 9. Subscriptions: validation names the field; GET/DELETE; deleted = silent.

TEST_F(Subscriptions, ValidationErrorsNameTheField) {
  ASSERT_TRUE(start_server());
  PortReservation nowhere;  // never contacted: no line is sent in this test
  const json base = {{"url", nowhere.url()}, {"rules", json::array({"new_cluster"})}};
  auto with = [&](const std::string& k, json v) {
    json b = base;
    b[k] = std::move(v);
    return b;
  };
  auto without = [&](const std::string& k) {
    json b = base;
    b.erase(k);
    return b;
  };
  struct Case {
    std::string name;
    json body;
    std::string field;
    bool prefix;  // field must start with `field` (exact otherwise)
  };
  const std::vector<Case> cases = {
      {"url missing", without("url"), "url", false},
      {"url not a string", with("url", 42), "url", false},
      {"url ftp scheme", with("url", "ftp://127.0.0.1/x"), "url", false},
      {"url without host", with("url", "http:///hook"), "url", false},
      {"url not a url", with("url", "not a url"), "url", false},
      {"rules missing", without("rules"), "rules", false},
      {"rules empty", with("rules", json::array()), "rules", false},
      {"rules not an array", with("rules", "new_cluster"), "rules", false},
      {"unknown rule kind string", with("rules", json::array({"new_cluster", "bogus"})), "rules[1]", true},
      {"negative threshold",
       with("rules", json::array({"new_cluster", {{"kind", "threshold"}, {"threshold", -5}, {"window", "1m"}}})),
       "rules[1].threshold", false},
      {"threshold not a number",
       with("rules", json::array({{{"kind", "threshold"}, {"threshold", "lots"}}})),
       "rules[0].threshold", false},
      {"bad window", with("rules", json::array({{{"kind", "threshold"}, {"threshold", 5}, {"window", "forever"}}})),
       "rules[0].window", false},
      {"unknown rule kind object", with("rules", json::array({{{"kind", "nope"}}})), "rules[0]", true},
      {"rule object without kind", with("rules", json::array({{{"threshold", 5}}})), "rules[0]", true},
      {"unknown format", with("format", "xml"), "format", false},
      {"labels not an object", with("labels", "api"), "labels", false},
      {"label value not a string", with("labels", {{"service", 5}}), "labels", true},
      {"unknown min_level", with("min_level", "LOUD"), "min_level", false},
      {"bad cooldown", with("cooldown", "soon"), "cooldown", false},
      {"secret not a string", with("secret", 123), "secret", false},
      {"empty secret", with("secret", ""), "secret", false},
      // "whsec_" secrets are keyed by the base64-decoding of the rest: a
      // rest that is not base64 cannot sign anything.
      {"whsec_ secret that is not base64", with("secret", "whsec_not*base64!"), "secret", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.body.dump());
    HttpResponse r = post_subscription(port, c.body);
    EXPECT_TRUE(is_json_error(r, 400));
    json j = r.json_body();
    if (!j.is_object() || !j.contains("field") || !j["field"].is_string()) {
      ADD_FAILURE() << "no \"field\" in the error: " << r.describe();
      continue;
    }
    const std::string f = j["field"];
    if (c.prefix) {
      EXPECT_EQ(f.rfind(c.field, 0), 0u) << "field '" << f << "' should start with '" << c.field << "'";
    } else {
      EXPECT_EQ(f, c.field);
    }
  }
  for (const std::string raw : {"not json", "[]", "{}"}) {
    SCOPED_TRACE(raw);
    HttpResponse r = http_request(port, "POST", "/subscriptions", raw, "application/json");
    EXPECT_TRUE(is_json_error(r, 400)) << r.describe();
  }
  HttpResponse list = http_get(port, "/subscriptions");
  ASSERT_EQ(list.status, 200) << list.describe();
  json stored = list.json_body();
  ASSERT_TRUE(stored.is_object() && stored.contains("subscriptions")) << list.describe();
  EXPECT_EQ(stored["subscriptions"].size(), 0u)
      << "rejected subscriptions must not be stored (cases above that answered 201 were): "
      << list.describe();
  // Every known kind string is valid on its own (rule defaults from the flags).
  for (const std::string kind : {"new_cluster", "threshold", "spike"}) {
    HttpResponse r = post_subscription(port, {{"url", nowhere.url()}, {"rules", json::array({kind})}});
    EXPECT_EQ(r.status, 201) << "rules [\"" << kind << "\"]: " << r.describe();
  }
  EXPECT_TRUE(server_healthy(port));
}

TEST_F(Subscriptions, CreateGetListDeleteNeverEchoSecrets) {
  ASSERT_TRUE(start_server());
  PortReservation nowhere;  // never contacted: no line is sent in this test
  json body = {{"url", nowhere.url()},
               {"secret", "s3cret-value-xyz"},
               {"rules", json::array({"new_cluster", {{"kind", "threshold"}, {"threshold", 5}, {"window", "1m"}}})},
               {"labels", {{"service", "api"}}},
               {"min_level", "WARN"},
               {"cooldown", "5m"}};
  json a;
  ASSERT_TRUE(subscribe(port, body, &a));
  const std::string id = a["id"];
  EXPECT_EQ(id.rfind("sub_", 0), 0u) << a;
  EXPECT_EQ(a.value("url", ""), body["url"]) << a;
  EXPECT_EQ(a.value("format", ""), "logsift") << "format defaults to logsift: " << a;
  EXPECT_EQ(a.value("secret_set", false), true) << a;
  EXPECT_EQ(a.dump().find("s3cret-value-xyz"), std::string::npos) << "201 echoes the secret: " << a;
  ASSERT_TRUE(a.contains("rules") && a["rules"].is_array() && a["rules"].size() == 2) << a;
  std::set<std::string> rule_ids;
  for (const auto& r : a["rules"]) {
    EXPECT_TRUE(r.is_object() && r.contains("id") && r["id"].is_string()) << "rule without id: " << r;
    EXPECT_TRUE(r.is_object() && r.contains("kind")) << r;
    if (r.is_object() && r.contains("id") && r["id"].is_string()) rule_ids.insert(r["id"].get<std::string>());
  }
  EXPECT_EQ(rule_ids.size(), 2u) << "rule ids must be distinct: " << a;

  json b;
  ASSERT_TRUE(subscribe(port, {{"url", "https://127.0.0.1:" + std::to_string(nowhere.port()) + "/x"}, {"rules", json::array({"new_cluster"})}}, &b));
  ASSERT_TRUE(b.contains("secret") && b["secret"].is_string()) << b;
  const std::string generated = b["secret"];
  EXPECT_GE(generated.size(), 16u) << "generated secret is too short: " << generated;
  const std::string id_b = b["id"];
  EXPECT_NE(id, id_b);

  HttpResponse list = http_get(port, "/subscriptions");
  ASSERT_EQ(list.status, 200) << list.describe();
  json lj = list.json_body();
  ASSERT_TRUE(lj.contains("subscriptions") && lj["subscriptions"].is_array()) << list.describe();
  std::set<std::string> listed;
  for (const auto& s : lj["subscriptions"]) {
    listed.insert(s.value("id", ""));
    EXPECT_FALSE(s.contains("secret")) << s;
  }
  EXPECT_EQ(listed, (std::set<std::string>{id, id_b}));
  EXPECT_EQ(list.body.find("s3cret-value-xyz"), std::string::npos) << list.body;
  EXPECT_EQ(list.body.find(generated), std::string::npos) << list.body;

  HttpResponse one = http_get(port, "/subscriptions/" + id);
  ASSERT_EQ(one.status, 200) << one.describe();
  EXPECT_EQ(one.json_body().value("id", ""), id);
  EXPECT_EQ(one.body.find("s3cret-value-xyz"), std::string::npos) << one.body;

  HttpResponse del = http_request(port, "DELETE", "/subscriptions/" + id, "", "");
  EXPECT_EQ(del.status, 204) << del.describe();
  EXPECT_TRUE(del.body.empty()) << del.describe();
  EXPECT_EQ(http_get(port, "/subscriptions/" + id).status, 404);
  HttpResponse del2 = http_request(port, "DELETE", "/subscriptions/" + id, "", "");
  EXPECT_TRUE(is_json_error(del2, 404)) << del2.describe();
  EXPECT_TRUE(is_json_error(http_get(port, "/subscriptions/sub_doesnotexist"), 404));
  json after = http_get(port, "/subscriptions").json_body();
  ASSERT_TRUE(after.contains("subscriptions")) << after;
  ASSERT_EQ(after["subscriptions"].size(), 1u) << after;
  EXPECT_EQ(after["subscriptions"][0].value("id", ""), id_b);
}

TEST_F(Subscriptions, DeletedSubscriptionGetsNothingMore) {
  ASSERT_TRUE(start_server());
  WebhookReceiver gone, stays;
  ASSERT_TRUE(start_signed(gone));
  ASSERT_TRUE(start_signed(stays));
  json sub_gone;
  ASSERT_TRUE(subscribe(port, hook_sub(gone.url()), &sub_gone));
  ASSERT_TRUE(subscribe(port, hook_sub(stays.url())));

  auto first = send_lines(port, new_cluster_lines(909, 1));
  auto keys1 = new_cluster_keys(new_cluster_ids(first));
  ASSERT_EQ(keys1.size(), 1u);
  ASSERT_TRUE(wait_all_delivered(gone, keys1, Millis(15000))) << dump_requests(gone.requests());
  ASSERT_TRUE(wait_all_delivered(stays, keys1, Millis(15000))) << dump_requests(stays.requests());

  HttpResponse del = http_request(port, "DELETE", "/subscriptions/" + sub_gone["id"].get<std::string>(), "", "");
  ASSERT_EQ(del.status, 204) << del.describe();
  const std::size_t before = gone.count();

  auto second = send_lines(port, new_cluster_lines(910, 3));
  auto keys2 = new_cluster_keys(new_cluster_ids(second));
  ASSERT_EQ(keys2.size(), 3u);
  // The remaining subscription is the sentinel: once it has the new alerts
  // and nothing is pending, the deleted one would have had them too.
  EXPECT_TRUE(wait_all_delivered(stays, keys2, Millis(15000))) << dump_requests(stays.requests());
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.pending.empty(); }, Millis(10000), &ob))
      << ob.describe();
  EXPECT_EQ(gone.count(), before) << "a deleted subscription still got alerts: "
                                  << dump_requests(gone.requests());
}

// ===========================================================================
// 10. Series endpoint.

TEST_F(Series, ShapeAndCountsPerConfiguredWindow) {
  ASSERT_TRUE(start_server({"--series-windows", "1m,10m"}));
  std::vector<std::string> a_lines, b_lines;
  for (int i = 0; i < 5; ++i)
    a_lines.push_back("Cache shard " + std::to_string(10 + i) + " rebalanced in " + std::to_string(100 + i * 7) + " ms");
  for (int i = 0; i < 3; ++i)
    b_lines.push_back("Disk /dev/sd" + std::string(1, static_cast<char>('a' + i)) + std::to_string(i + 1) + " is full");
  auto a = send_lines(port, a_lines);
  auto b = send_lines(port, b_lines);
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(b.size(), 3u);
  for (const auto& s : a) ASSERT_EQ(s.cluster_id, a[0].cluster_id) << "test input: one cluster for " << s.text;
  for (const auto& s : b) ASSERT_EQ(s.cluster_id, b[0].cluster_id) << "test input: one cluster for " << s.text;
  ASSERT_NE(a[0].cluster_id, b[0].cluster_id);

  struct Want {
    std::string cluster;
    std::string window;
    long long seconds;
    long long total;
  };
  for (const Want& w : {Want{a[0].cluster_id, "1m", 60, 5}, Want{a[0].cluster_id, "10m", 600, 5},
                        Want{b[0].cluster_id, "1m", 60, 3}}) {
    SCOPED_TRACE(w.cluster + " window=" + w.window);
    const std::string target = "/clusters/" + w.cluster + "/series?window=" + w.window;
    HttpResponse r;
    json j;
    bool ok = wait_until(
        [&] {
          r = http_get(port, target);
          j = r.json_body();
          return r.status == 200 && j.is_object() && j.value("total", -1LL) >= w.total;
        },
        Millis(10000));
    ASSERT_TRUE(ok) << r.describe();
    EXPECT_EQ(j.value("cluster_id", ""), w.cluster) << j;
    EXPECT_EQ(j.value("window_seconds", -1LL), w.seconds) << j;
    ASSERT_TRUE(j.contains("bucket_seconds") && j["bucket_seconds"].is_number()) << j;
    double bucket = j["bucket_seconds"].get<double>();
    EXPECT_GT(bucket, 0) << j;
    EXPECT_LE(bucket, static_cast<double>(w.seconds)) << j;
    EXPECT_EQ(j.value("total", -1LL), w.total) << j;
    ASSERT_TRUE(j.contains("points") && j["points"].is_array()) << j;
    EXPECT_LE(j["points"].size(), static_cast<std::size_t>(w.seconds / bucket) + 1) << j;
    long long sum = 0;
    double prev_t = -1e300;
    for (const auto& p : j["points"]) {
      ASSERT_TRUE(p.is_object() && p.contains("t") && p.contains("count")) << p;
      ASSERT_TRUE(p["count"].is_number_integer() && p["count"].get<long long>() >= 0) << p;
      sum += p["count"].get<long long>();
      if (p["t"].is_number()) {
        EXPECT_GT(p["t"].get<double>(), prev_t) << "points must be in time order: " << j;
        prev_t = p["t"].get<double>();
      } else {
        EXPECT_TRUE(p["t"].is_string() && parse_rfc3339_ms(p["t"]).has_value()) << p;
      }
    }
    EXPECT_EQ(sum, w.total) << "points must add up to total: " << j;
  }
  HttpResponse not_configured = http_get(port, "/clusters/" + a[0].cluster_id + "/series?window=5m");
  EXPECT_TRUE(is_json_error(not_configured, 400)) << "5m is not in --series-windows 1m,10m: "
                                                  << not_configured.describe();
  HttpResponse bogus = http_get(port, "/clusters/" + a[0].cluster_id + "/series?window=soon");
  EXPECT_TRUE(is_json_error(bogus, 400)) << bogus.describe();
  HttpResponse unknown = http_get(port, "/clusters/0123456789abcdef/series?window=1m");
  EXPECT_TRUE(is_json_error(unknown, 404)) << unknown.describe();
  expect_clean_stop();
}

// ===========================================================================
// 11. Label filter and min_level select which alerts a subscription gets.

TEST_F(Subscriptions, LabelFilterAndMinLevelSelectAlerts) {
  ASSERT_TRUE(start_server());
  WebhookReceiver filtered, everything;
  ASSERT_TRUE(start_signed(filtered));
  ASSERT_TRUE(start_signed(everything));
  json body = hook_sub(filtered.url());
  body["labels"] = {{"service", "api"}};
  body["min_level"] = "WARN";
  ASSERT_TRUE(subscribe(port, body));
  ASSERT_TRUE(subscribe(port, hook_sub(everything.url())));

  struct Line {
    json labels;
    bool match;
  };
  const std::vector<Line> plan = {
      {{{"service", "api"}, {"level", "ERROR"}}, true},
      {{{"service", "web"}, {"level", "ERROR"}}, false},
      {{{"service", "api"}, {"level", "INFO"}}, false},
      {{{"service", "api"}, {"level", "WARN"}}, true},
      {{{"level", "ERROR"}}, false},
  };
  std::set<std::string> all_keys, want_keys;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    auto sent = send_lines(port, {distinct_line(1111, i)}, plan[i].labels);
    ASSERT_EQ(sent.size(), 1u);
    ASSERT_TRUE(sent[0].is_new) << sent[0].text;
    std::string key = "new_cluster/" + sent[0].cluster_id + "/firing";
    all_keys.insert(key);
    if (plan[i].match) want_keys.insert(key);
  }
  EXPECT_TRUE(wait_all_delivered(everything, all_keys, Millis(15000)))
      << dump_requests(everything.requests());
  EXPECT_TRUE(wait_all_delivered(filtered, want_keys, Millis(15000)))
      << dump_requests(filtered.requests());
  Outbox ob;
  EXPECT_TRUE(wait_outbox(port, [](const Outbox& o) { return o.pending.empty(); }, Millis(10000), &ob))
      << ob.describe();
  std::set<std::string> got;
  for (const auto& r : filtered.requests()) got.insert(alert_key(r.json_body()));
  EXPECT_EQ(got, want_keys) << dump_requests(filtered.requests());
}

}  // namespace
}  // namespace logsift_it
