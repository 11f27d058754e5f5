// Curation routes: merge, name and mute clusters, undo any of it, read the
// log (pipeline/store/curation.h). Each action is checked against the store's
// latest log and appended only onto it; a refusal is a 4xx with its reason
// and nothing written.
#include "service/api/routes.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/stages/suggest.h"
#include "pipeline/store/curation.h"
#include "pipeline/store/catalog_store.h"
#include "service/api/auth.h"

namespace logsift::api {
namespace {

HttpResponse refused(const HttpRequest& req, const CurationRefusal& r) {
  const auto status = static_cast<http::status>(r.status);
  const Reject why = r.status == 404 ? Reject::kNotFound : Reject::kBadRequest;
  return error_response(req.version(), req.keep_alive(), status, why, r.reason);
}

// Who took an action: the name of the token that let the request in
// (admin_token's "name:token", or "admin-N"), never the token.
std::string taken_by(const AppContext& ctx, const HttpRequest& req) {
  if (!ctx.auth || !ctx.auth->admin_configured()) return "local (no admin token configured)";
  const auto h = req[http::field::authorization];
  const std::string name = ctx.auth->name_of(std::string_view(h.data(), h.size()));
  return name.empty() ? "admin token" : name;
}

HttpResponse take(AppContext& ctx, const HttpRequest& req, CurationAction a, json extra = json::object()) {
  a.at_ms = now_ms();
  a.by = taken_by(ctx, req);
  Catalog* catalog = ctx.catalog;
  auto known = [catalog](uint64_t id) { return catalog->get(id).has_value(); };
  if (auto r = take_action(*catalog, *ctx.curation, a, known, static_cast<size_t>(ctx.config.curation_max_metric_series)))
    return refused(req, *r);
  metrics().curation_actions.inc();
  spdlog::info("curation: action {} ({}) on cluster {} by {}", a.seq, kind_name(a.kind), lsh::format_id(a.cluster_id), a.by);
  json out = export_action(a, false);
  out.update(extra);
  return json_response(req, http::status::created, out);
}

bool read_id(const json& body, const char* key, uint64_t* out) {
  auto it = body.find(key);
  return it != body.end() && it->is_string() && lsh::parse_id(it->get<std::string>(), out);
}

// Parts a split would make, from the cluster's stored examples: which of
// them goes where (later lines with other values make parts of their own).
constexpr size_t kMaxSplitPartsInExamples = 50;

std::optional<HttpResponse> read_split(AppContext& ctx, const HttpRequest& req, const json& body, CurationAction* a,
                                       json* parts) {
  auto pos = body.find("position");
  if (pos == body.end() || !pos->is_number_integer() || pos->get<int64_t>() < 0)
    return bad_field(req, "position", "'position' must be the number (from 0) of a word of the template");
  a->position = pos->get<int64_t>();
  const auto c = ctx.catalog->get(a->cluster_id);
  if (!c) return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                                "no cluster " + lsh::format_id(a->cluster_id));
  const auto words = template_words(c->row.template_text);
  if (a->position >= static_cast<int64_t>(words.size()))
    return bad_field(req, "position", "the template has " + std::to_string(words.size()) + " words");
  if (words[static_cast<size_t>(a->position)].find("<*>") == std::string::npos)
    return bad_field(req, "position", "that word is a constant already: choose a word with <*>");
  a->pattern = c->row.template_text;
  const SplitRule rule{a->cluster_id, a->position, 0};
  std::map<std::string, std::pair<uint64_t, int>> seen;  // value -> (part, examples)
  for (const auto& e : c->examples)
    if (auto part = split_part(rule, c->row.template_text, e.text)) {
      auto& [id, n] = seen[part->value];
      id = part->cluster_id;
      ++n;
    }
  if (seen.size() > kMaxSplitPartsInExamples)
    return error_response(req.version(), req.keep_alive(), http::status::conflict, Reject::kBadRequest,
                          "that word takes " + std::to_string(seen.size()) +
                              " values in the stored examples alone: a split would make a cluster of each");
  *parts = json::array();
  for (const auto& [value, p] : seen)
    parts->push_back({{"value", value}, {"cluster_id", lsh::format_id(p.first)}, {"examples", p.second}});
  return std::nullopt;
}

}  // namespace

void curation_fields(const CurationState& cur, uint64_t id, json* row) {
  if (const auto* n = cur.named(id)) {
    (*row)["name"] = n->name;
    (*row)["note"] = n->note;
    if (cur.pinned.count(id)) (*row)["metric"] = true;
  }
  if (cur.muted(id, now_ms())) {
    const int64_t until = cur.muted_until.at(id);
    (*row)["muted_until"] = until == std::numeric_limits<int64_t>::max() ? json(nullptr) : json(format_time_ms(until));
    (*row)["muted"] = true;
  }
  if (const uint64_t to = cur.resolve(id); to != id) (*row)["merged_into"] = lsh::format_id(to);
  if (const SplitRule* r = cur.split_of(id)) (*row)["split"] = {{"position", r->position}, {"action", r->seq}};
  if (!cur.merged_into.empty()) {
    json members = json::array();
    for (uint64_t m : cur.members(id)) members.push_back(lsh::format_id(m));
    if (!members.empty()) (*row)["merged"] = std::move(members);
  }
}

std::string curation_prometheus(AppContext& ctx) {
  if (!ctx.curation || !ctx.pipeline) return "";
  const auto cur = ctx.curation->get();
  if (cur->pinned.empty()) return "";
  std::unordered_map<uint64_t, uint64_t> counts;
  for (const auto& [id, n] : ctx.pipeline->pinned_counts()) counts[id] = n;
  std::vector<uint64_t> ids(cur->pinned.begin(), cur->pinned.end());
  std::sort(ids.begin(), ids.end());
  // A label value escapes backslash, double quote and line feed (the text format).
  auto escaped = [](const std::string& v) {
    std::string o;
    for (char c : v) {
      if (c == '\\' || c == '"') o.push_back('\\');
      if (c == '\n') {
        o += "\\n";
        continue;
      }
      o.push_back(c);
    }
    return o;
  };
  std::string out =
      "# HELP logsift_cluster_lines_total Lines of each cluster named and exported as a metric (POST "
      "/clusters/{id}/name with metric: true), counted by this replica since it started.\n"
      "# TYPE logsift_cluster_lines_total counter\n";
  for (uint64_t id : ids) {
    const auto* n = cur->named(id);
    out += "logsift_cluster_lines_total{cluster=\"" + escaped(n ? n->name : "") + "\",cluster_id=\"" +
           lsh::format_id(id) + "\"} " + std::to_string(counts.count(id) ? counts[id] : 0) + "\n";
  }
  return out;
}

HttpResponse handle_curation(AppContext& ctx, const HttpRequest& req) {
  if (!ctx.catalog || !ctx.curation) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  refresh_curation(*ctx.catalog, *ctx.curation);
  const auto cur = ctx.curation->get();
  json actions = json::array();
  for (const auto& a : cur->actions) actions.push_back(export_action(a, cur->undone.count(a.seq) > 0));
  json merged = json::object(), named = json::object(), muted = json::object();
  for (const auto& [from, to] : cur->merged_into) merged[lsh::format_id(from)] = lsh::format_id(to);
  for (const auto& [id, n] : cur->names) named[lsh::format_id(id)] = {{"name", n.name}, {"note", n.note}};
  const int64_t now = now_ms();
  for (const auto& [id, until] : cur->muted_until)
    if (until > now)
      muted[lsh::format_id(id)] = until == std::numeric_limits<int64_t>::max() ? json(nullptr) : json(format_time_ms(until));
  return json_response(req, http::status::ok,
                       {{"version", cur->version},
                        {"actions", std::move(actions)},
                        {"merged", std::move(merged)},
                        {"named", std::move(named)},
                        {"muted", std::move(muted)}});
}

HttpResponse handle_cluster_action(AppContext& ctx, const HttpRequest& req, std::string_view id_text,
                                   std::string_view action) {
  if (req.method() != http::verb::post)
    return error_response(req.version(), req.keep_alive(), http::status::method_not_allowed, Reject::kMethodNotAllowed,
                          "use POST on /clusters/{id}/" + std::string(action));
  if (!ctx.catalog || !ctx.curation) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  CurationAction a;
  if (!lsh::parse_id(id_text, &a.cluster_id))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "cluster id must be 16 hex digits");
  json body = req.body().empty() ? json::object() : json::parse(req.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object())
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kMalformedJson,
                          "body must be a JSON object");
  if (action == "merge") {
    a.kind = CurationKind::kMerge;
    if (!read_id(body, "into", &a.into)) return bad_field(req, "into", "'into' must be a cluster id (16 hex digits)");
  } else if (action == "value") {
    // "This word is a value": the cluster's template with that word as <*>
    // is a rule; the clusters whose templates it matches join it now, and
    // lines whose templates it matches later, whatever word stands there.
    a.kind = CurationKind::kValue;
    auto pos = body.find("position");
    if (pos == body.end() || !pos->is_number_integer() || pos->get<int64_t>() < 0)
      return bad_field(req, "position", "'position' must be the number (from 0) of a word of the template");
    a.position = pos->get<int64_t>();
    const auto c = ctx.catalog->get(a.cluster_id);
    if (!c) return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                                  "no cluster " + std::string(id_text));
    auto words = template_words(c->row.template_text);
    if (a.position >= static_cast<int64_t>(words.size()))
      return bad_field(req, "position", "the template has " + std::to_string(words.size()) + " words");
    if (words[static_cast<size_t>(a.position)] == "<*>")
      return bad_field(req, "position", "that word is a value already");
    words[static_cast<size_t>(a.position)] = "<*>";
    for (size_t i = 0; i < words.size(); ++i) a.pattern += (i ? " " : "") + words[i];
    ValueRule rule{a.cluster_id, template_words(a.pattern), 0};
    const auto cur = ctx.curation->get();
    const int64_t total = each_cluster(*ctx.catalog, 1000000, "", {}, [&](const ClusterRow& row) {
      if (row.cluster_id != a.cluster_id && cur->resolve(row.cluster_id) == row.cluster_id &&
          rule.matches(row.template_text))
        a.members.push_back(row.cluster_id);
    });
    // A word that is the statement itself ("<*> <*> failed"): bounded.
    if (a.members.size() > 10 && static_cast<int64_t>(a.members.size()) * 4 > total)
      return error_response(req.version(), req.keep_alive(), http::status::conflict, Reject::kBadRequest,
                            "that rule would join " + std::to_string(a.members.size()) + " of the catalog's " +
                                std::to_string(total) + " clusters (more than a quarter): choose a word that says less");
  } else if (action == "split") {
    // "This value is a constant": later lines of the cluster go to a part
    // per value of that word.
    a.kind = CurationKind::kSplit;
    json parts;
    if (auto err = read_split(ctx, req, body, &a, &parts)) return std::move(*err);
    return take(ctx, req, std::move(a), {{"parts", std::move(parts)}});
  } else if (action == "name") {
    a.kind = CurationKind::kName;
    auto name = body.find("name"), note = body.find("note");
    if (name == body.end() || !name->is_string()) return bad_field(req, "name", "'name' must be a string");
    if (note != body.end() && !note->is_string()) return bad_field(req, "note", "'note' must be a string");
    auto metric = body.find("metric");
    if (metric != body.end() && !metric->is_boolean()) return bad_field(req, "metric", "'metric' must be true or false");
    a.name = name->get<std::string>();
    if (note != body.end()) a.note = note->get<std::string>();
    a.metric = metric != body.end() && metric->get<bool>();
  } else {
    a.kind = CurationKind::kMute;
    // "until": an RFC 3339 time; "for": a duration (10m, 2h, 7d); neither: for good.
    auto until = body.find("until"), span = body.find("for");
    if (until != body.end() && span != body.end()) return bad_field(req, "until", "give 'until' or 'for', not both");
    if (until != body.end() && !until->is_null()) {
      std::optional<int64_t> t = until->is_string() ? parse_rfc3339_ms(until->get<std::string>()) : std::nullopt;
      if (!t || *t <= 0) return bad_field(req, "until", "'until' must be an RFC 3339 time, e.g. 2026-12-01T08:00:00Z");
      a.until_ms = *t;
    } else if (span != body.end()) {
      std::optional<int64_t> d = span->is_string() ? parse_duration_ms(span->get<std::string>()) : std::nullopt;
      if (!d || *d <= 0) return bad_field(req, "for", "'for' must be a duration such as 30m, 2h or 7d");
      a.until_ms = now_ms() + *d;
    }
  }
  return take(ctx, req, std::move(a));
}

HttpResponse handle_suggestion_action(AppContext& ctx, const HttpRequest& req, std::string_view id,
                                      std::string_view action) {
  if (!ctx.catalog || !ctx.curation) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  CurationAction a;
  a.suggestion = std::string(id);
  if (action == "reject") {
    a.kind = CurationKind::kReject;
    return take(ctx, req, std::move(a));
  }
  // Accept: the clusters as the suggestion listed them, which its id names
  // (a list changed since, by traffic or another person, is another id).
  a.kind = CurationKind::kAccept;
  json body = json::parse(req.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object())
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kMalformedJson,
                          "body must be a JSON object: the suggestion's \"into\" and \"members\"");
  if (!read_id(body, "into", &a.into)) return bad_field(req, "into", "'into' must be a cluster id (16 hex digits)");
  const auto members = body.find("members");
  if (members == body.end() || !members->is_array() || members->empty() || members->size() > 1000)
    return bad_field(req, "members", "'members' must be an array of 1 to 1000 cluster ids");
  for (const auto& m : *members) {
    uint64_t v = 0;
    if (!m.is_string() || !lsh::parse_id(m.get<std::string>(), &v))
      return bad_field(req, "members", "'members' must be an array of 1 to 1000 cluster ids");
    a.members.push_back(v);
  }
  if (suggestion_id(a.into, a.members) != a.suggestion)
    return error_response(req.version(), req.keep_alive(), http::status::conflict, Reject::kBadRequest,
                          "these clusters are not suggestion " + a.suggestion + ": list the suggestions again");
  return take(ctx, req, std::move(a));
}

HttpResponse handle_undo(AppContext& ctx, const HttpRequest& req, std::string_view seq_text) {
  if (req.method() != http::verb::post)
    return error_response(req.version(), req.keep_alive(), http::status::method_not_allowed, Reject::kMethodNotAllowed,
                          "use POST on /curation/{seq}/undo");
  if (!ctx.catalog || !ctx.curation) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  CurationAction a;
  a.kind = CurationKind::kUndo;
  const auto [end, ec] = std::from_chars(seq_text.data(), seq_text.data() + seq_text.size(), a.undoes);
  if (ec != std::errc() || end != seq_text.data() + seq_text.size() || a.undoes < 1)
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "the action number must be a positive integer");
  return take(ctx, req, std::move(a));
}

}  // namespace logsift::api
