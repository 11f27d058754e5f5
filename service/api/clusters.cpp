// GET /clusters, /clusters/{id}, /clusters/{id}/series
#include "service/api/routes.h"

#include <charconv>
#include <stdexcept>
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "lsh/lsh.h"
#include "pipeline/core/text.h"
#include "pipeline/core/time.h"
#include "pipeline/store/curation.h"
#include "pipeline/stages/bank_miner.h"
#include "pipeline/stages/suggest.h"
#include "pipeline/store/catalog_store.h"
#include "service/api/background_work.h"

namespace logsift::api {
namespace {

// The catalog's typed rows as the API shows them, with what people decided
// about them (pipeline/store/curation.h): name and note, muted, merged.
json row_json(const ClusterRow& r, const CurationState* cur) {
  json out = {{"cluster_id", lsh::format_id(r.cluster_id)},
              {"template_id", lsh::format_id(r.template_id)},
              {"template", r.template_text},
              {"count", r.count},
              {"first_seen", format_time_ms(r.first_ms)},
              {"last_seen", format_time_ms(r.last_ms)}};
  if (cur) curation_fields(*cur, r.cluster_id, &out);
  return out;
}

json detail_json(const ClusterDetail& d, const CurationState* cur) {
  json out = row_json(d.row, cur);
  json examples = json::array();
  for (const auto& e : d.examples)
    examples.push_back({{"text", e.text},
                        {"labels", json::parse(e.labels_json, nullptr, false)},
                        {"seen", format_time_ms(e.ts_ms)}});
  out["examples"] = std::move(examples);
  return out;
}

ClusterSort sort_of(const std::string& sort) {
  return sort == "last_seen" ? ClusterSort::kLastSeen : sort == "first_seen" ? ClusterSort::kFirstSeen : ClusterSort::kCount;
}

constexpr const char* kLabelError = "'label' must be KEY:VALUE, e.g. service:checkout";

// label=KEY:VALUE (e.g. service:checkout) into *out; false if malformed.
// Absent: true, and *out stays empty.
bool parse_label(const Target& t, std::pair<std::string, std::string>* out) {
  const std::string* l = t.get("label");
  if (!l) return true;
  const size_t colon = l->find(':');
  if (colon == std::string::npos || colon == 0 || l->size() > 2048) return false;
  *out = {l->substr(0, colon), l->substr(colon + 1)};
  return true;
}

}  // namespace

// The catalog's clusters, most counted first, a page at a time, at most
// max_clusters, each once (under traffic a page may shift by a row; a
// cluster read twice is read once). A filtered page (q, label) scans every
// cluster in both stores, so pages are large: 100,000 clusters are 10 scans,
// not 100. Returns the catalog's total.
int64_t each_cluster(ClusterStore& catalog, int64_t max_clusters, const std::string& q,
                     const std::pair<std::string, std::string>& label, const std::function<void(const ClusterRow&)>& take) {
  std::unordered_set<uint64_t> seen;
  int64_t read = 0, total = 0;
  constexpr int64_t kPage = 10000;
  for (int64_t offset = 0; read < max_clusters;) {
    const int64_t want = std::min(kPage, max_clusters - read);
    const ClusterPage page = catalog.list({want, offset, ClusterSort::kCount, q, label});
    total = page.total;
    for (const auto& row : page.rows) {
      if (!seen.insert(row.cluster_id).second) continue;
      take(row);
      ++read;
    }
    offset += static_cast<int64_t>(page.rows.size());
    if (static_cast<int64_t>(page.rows.size()) < want) break;  // the last page
  }
  return total;
}

namespace {

// The catalog's suggested merges (pipeline/stages/suggest.h) as the API
// shows them; merged clusters and rejected suggestions are left out.
json suggestions_json(ClusterStore& catalog, const CurationState& cur, int64_t max_clusters) {
  std::vector<ClusterTemplate> rows;
  each_cluster(catalog, max_clusters, "", {}, [&](const ClusterRow& row) {
    if (cur.resolve(row.cluster_id) == row.cluster_id) rows.push_back({row.cluster_id, row.template_text, row.count});
  });
  json out = json::array();
  for (const auto& s : suggest_merges(rows)) {
    if (cur.rejected.count(s.id)) continue;
    json clusters = json::array();
    for (size_t m : s.members)
      clusters.push_back({{"cluster_id", lsh::format_id(rows[m].cluster_id)}, {"template", rows[m].template_text}, {"count", rows[m].count}});
    json slots = json::array();
    for (const auto& slot : s.slots) slots.push_back({{"examples", slot.examples}, {"values", slot.values}});
    out.push_back({{"id", s.id},
                   {"into", lsh::format_id(rows[s.members.front()].cluster_id)},
                   {"template", s.template_text},
                   {"clusters", std::move(clusters)},
                   {"lines", s.lines},
                   {"slots", std::move(slots)}});
  }
  return out;
}

}  // namespace

void handle_suggestions(AppContext& ctx, const HttpRequest& req, const Target& t, Responder respond) {
  if (!ctx.catalog || !ctx.curation) return respond(json_response(req, http::status::not_found, {{"error", "no catalog"}}));
  int64_t max_clusters = 20000;
  if (auto* v = t.get("max_clusters"); v && !parse_int_param(*v, 1, 1000000, &max_clusters))
    return respond(error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                                  "'max_clusters' must be an integer in [1, 1000000]"));
  const unsigned version = req.version();
  const bool keep_alive = req.keep_alive();
  ClusterStore* catalog = ctx.catalog;
  const auto cur = ctx.curation->get();
  // Mining a large catalog takes seconds: off the io threads (as mined-bank).
  auto job = [catalog, cur, max_clusters, version, keep_alive, respond]() -> BackgroundWork::Then {
    std::shared_ptr<HttpResponse> res;
    try {
      json list = suggestions_json(*catalog, *cur, max_clusters);
      json body = {{"suggestions", std::move(list)}, {"rejected", cur->rejected.size()}};
      res = std::make_shared<HttpResponse>(make_response(version, keep_alive, http::status::ok, dump(body), "application/json"));
    } catch (const std::exception&) {
      res = std::make_shared<HttpResponse>(
          exception_response(version, keep_alive, "GET /clusters/suggestions", std::current_exception()));
    }
    return [respond, res] { respond(std::move(*res)); };
  };
  if (!ctx.background || !ctx.background->try_start(std::move(job))) {
    auto res = error_response(version, keep_alive, http::status::too_many_requests, Reject::kOverloaded,
                              "a bank is being mined already: retry when it is done");
    res.set(http::field::retry_after, "1");
    respond(std::move(res));
  }
}

HttpResponse handle_clusters(AppContext& ctx, const HttpRequest& req, const Target& t) {
  if (!ctx.catalog) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  const auto cur = ctx.curation ? ctx.curation->get() : nullptr;
  int64_t limit = 50, offset = 0;
  if (auto* v = t.get("limit"); v && !parse_int_param(*v, 1, 1000, &limit))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'limit' must be an integer in [1, 1000]");
  if (auto* v = t.get("offset"); v && !parse_int_param(*v, 0, int64_t{1} << 40, &offset))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'offset' must be a non-negative integer");
  const std::string sort = t.get("sort") ? *t.get("sort") : "count";
  const std::string q = t.get("q") ? *t.get("q") : "";
  if (q.size() > 1024)
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'q' must be at most 1024 bytes");
  if (sort != "count" && sort != "last_seen" && sort != "first_seen" && sort != "rate")
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'sort' must be count, last_seen, first_seen or rate");
  std::pair<std::string, std::string> label;
  if (!parse_label(t, &label))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          kLabelError);
  if (sort != "rate") {
    const ClusterPage page = ctx.catalog->list({limit, offset, sort_of(sort), q, label});
    json rows = json::array();
    for (const auto& r : page.rows) rows.push_back(row_json(r, cur.get()));
    json out = {{"clusters", std::move(rows)}, {"limit", limit}, {"offset", offset}, {"total", page.total}};
    if (!label.first.empty()) out["label"] = *t.get("label");
    out["sort"] = sort;
    if (!q.empty()) out["q"] = q;
    return json_response(req, http::status::ok, out);
  }
  // sort=rate: by the count in the last `window` (one of series_windows),
  // from the aggregator's sliding windows; clusters quiet in the window are
  // not listed.
  const std::string* w = t.get("window");
  auto window = w ? parse_duration_ms(*w) : std::optional<int64_t>(ctx.config.series_windows_ms().front());
  if (!window)
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'window' must be a duration such as 1m, 5m or 1h");
  std::vector<std::pair<uint64_t, uint64_t>> counts;
  try {
    counts = ctx.pipeline->window_counts(*window);
  } catch (const std::invalid_argument&) {
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "window not kept; configured series_windows: " + ctx.config.series_windows);
  }
  if (!label.first.empty()) {
    const auto ids = ctx.catalog->with_label(label.first, label.second);
    const std::unordered_set<uint64_t> keep(ids.begin(), ids.end());
    std::erase_if(counts, [&](const auto& c) { return !keep.count(c.first); });
  }
  const std::string q_lower = text::ascii_lower(q);
  json page = json::array();
  int64_t matched = 0;
  constexpr size_t kChunk = 256;
  for (size_t i = 0; i < counts.size(); i += kChunk) {
    std::vector<uint64_t> ids;
    for (size_t j = i; j < std::min(counts.size(), i + kChunk); ++j) ids.push_back(counts[j].first);
    const auto rows = ctx.catalog->rows(ids);
    size_t r = 0;
    for (size_t j = i; j < std::min(counts.size(), i + kChunk) && r < rows.size(); ++j) {
      if (rows[r].cluster_id != counts[j].first) continue;  // not in the catalog (yet)
      const ClusterRow& row = rows[r++];
      if (!q.empty() && text::ascii_lower(row.template_text).find(q_lower) == std::string::npos) continue;
      if (matched >= offset && matched < offset + limit) {
        json out_row = row_json(row, cur.get());
        out_row["window_count"] = counts[j].second;
        page.push_back(std::move(out_row));
      }
      ++matched;
    }
    // Without a search the total is known without reading every row.
    if (q.empty() && matched >= offset + limit) {
      matched = static_cast<int64_t>(counts.size());
      break;
    }
  }
  json out = {{"clusters", std::move(page)}, {"limit", limit}, {"offset", offset}, {"total", matched},
              {"sort", "rate"}, {"window_seconds", static_cast<double>(*window) / 1000.0}};
  if (w) out["window"] = *w;
  if (!label.first.empty()) out["label"] = *t.get("label");
  if (!q.empty()) out["q"] = q;
  return json_response(req, http::status::ok, out);
}

void handle_mined_bank(AppContext& ctx, const HttpRequest& req, const Target& t, Responder respond) {
  if (!ctx.catalog) return respond(json_response(req, http::status::not_found, {{"error", "no catalog"}}));
  const unsigned version = req.version();
  const bool keep_alive = req.keep_alive();
  auto bad = [&](const std::string& why) {
    respond(error_response(version, keep_alive, http::status::bad_request, Reject::kBadRequest, why));
  };
  MineOptions opts;
  if (auto* v = t.get("similarity")) {
    double d = 0;
    const char* end = v->data() + v->size();
    auto [p, ec] = std::from_chars(v->data(), end, d);
    if (v->empty() || ec != std::errc() || p != end || !(d > 0 && d <= 1))
      return bad("'similarity' must be a number in (0, 1]");
    opts.similarity = d;
  }
  if (auto* v = t.get("min_values")) {
    int64_t k = 0;
    if (!parse_int_param(*v, 2, 1000, &k)) return bad("'min_values' must be an integer in [2, 1000]");
    opts.min_values = static_cast<int>(k);
  }
  int64_t max_clusters = 100000;
  if (auto* v = t.get("max_clusters"); v && !parse_int_param(*v, 1, 1000000, &max_clusters))
    return bad("'max_clusters' must be an integer in [1, 1000000]");
  std::string q = t.get("q") ? *t.get("q") : "";
  if (q.size() > 1024) return bad("'q' must be at most 1024 bytes");
  std::pair<std::string, std::string> label;
  if (!parse_label(t, &label)) return bad(kLabelError);
  // Reading and mining a large catalog takes seconds: off the io threads,
  // one request at a time (service/api/background_work.h).
  ClusterStore* catalog = ctx.catalog;
  auto job = [catalog, version, keep_alive, opts, max_clusters, q = std::move(q), label = std::move(label),
              respond]() -> BackgroundWork::Then {
    // The answer is sent once the slot is free (BackgroundWork::try_start).
    auto answer = [respond](HttpResponse res) -> BackgroundWork::Then {
      auto r = std::make_shared<HttpResponse>(std::move(res));
      return [respond, r] { respond(std::move(*r)); };
    };
    try {
      // Each cluster's template with its count is what `logsift mine`
      // would have seen from every line the service clustered.
      BankMiner miner;
      int64_t read = 0;
      const int64_t total = each_cluster(*catalog, max_clusters, q, label, [&](const ClusterRow& row) {
        miner.add(row.template_text, row.count);
        ++read;
      });
      const auto formats = miner.mine(opts);
      // A comment is one line: a line break in the query would start a format.
      auto one_line = [](std::string s) {
        for (char& c : s)
          if (c == '\n' || c == '\r') c = ' ';
        return s;
      };
      std::string text = "# mined from the catalog: the " + std::to_string(read) + " most counted clusters of " +
                         std::to_string(total) + (q.empty() ? "" : one_line(", template containing '" + q + "'")) +
                         (label.first.empty() ? "" : one_line(", label " + label.first + ":" + label.second)) + "\n";
      text += BankMiner::bank_text(formats, opts, miner.lines(), miner.templates());
      auto res = make_response(version, keep_alive, http::status::ok, std::move(text), "text/plain; charset=utf-8");
      res.set("X-Logsift-Formats", std::to_string(formats.size()));
      return answer(std::move(res));
    } catch (const std::exception&) {
      return answer(exception_response(version, keep_alive, "GET /clusters/mined-bank", std::current_exception()));
    }
  };
  if (!ctx.background || !ctx.background->try_start(std::move(job))) {
    auto res = error_response(version, keep_alive, http::status::too_many_requests, Reject::kOverloaded,
                              "a bank is being mined already: retry when it is done");
    res.set(http::field::retry_after, "1");
    respond(std::move(res));
  }
}

HttpResponse handle_cluster(AppContext& ctx, const HttpRequest& req, std::string_view id_text) {
  uint64_t id;
  if (!lsh::parse_id(id_text, &id))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "cluster id must be 16 hex digits");
  if (!ctx.catalog) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  const auto cur = ctx.curation ? ctx.curation->get() : nullptr;
  // A cluster merged into another answers with the one it joined.
  if (const uint64_t joined = cur ? cur->resolve(id) : id; joined != id)
    if (auto c = ctx.catalog->get(joined)) {
      json out = detail_json(*c, cur.get());
      out["merged_from"] = {{"cluster_id", std::string(id_text)}};
      return json_response(req, http::status::ok, out);
    }
  if (auto c = ctx.catalog->get(id)) return json_response(req, http::status::ok, detail_json(*c, cur.get()));
  // An id from before a contract change answers with what it became: 200,
  // the current cluster, and where it came from.
  const auto to = ctx.catalog->migrated(id);
  auto c = to.empty() ? std::nullopt : ctx.catalog->get(to.front().new_id);
  if (!c)
    return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                          "no cluster " + std::string(id_text));
  json out = detail_json(*c, cur.get());
  json became = json::array();
  for (const auto& m : to) became.push_back({{"cluster_id", lsh::format_id(m.new_id)}, {"share", m.share}});
  out["migrated_from"] = {{"cluster_id", std::string(id_text)}, {"became", became}};
  return json_response(req, http::status::ok, out);
}

HttpResponse handle_series(AppContext& ctx, const HttpRequest& req, std::string_view id_text, const Target& t) {
  uint64_t id;
  if (!lsh::parse_id(id_text, &id))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "cluster id must be 16 hex digits");
  const std::string* w = t.get("window");
  auto window = w ? parse_duration_ms(*w) : std::optional<int64_t>(ctx.config.series_windows_ms().front());
  if (!window)
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'window' must be a duration such as 1m, 5m or 1h");
  try {
    auto s = ctx.pipeline->series(id, *window);
    if (!s && ctx.catalog && ctx.catalog->get(id)) {
      // Known, but no count in the kept windows (quiet, or counted before a
      // restart): an empty series, not an error.
      return json_response(req, http::status::ok,
                           {{"cluster_id", std::string(id_text)},
                            {"window_seconds", static_cast<double>(*window) / 1000.0},
                            {"points", json::array()},
                            {"total", 0}});
    }
    if (!s)
      return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                            "no recent counts for cluster " + std::string(id_text));
    return json_response(req, http::status::ok, *s);
  } catch (const std::invalid_argument&) {
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "window not kept; configured series_windows: " + ctx.config.series_windows);
  }
}

}  // namespace logsift::api
