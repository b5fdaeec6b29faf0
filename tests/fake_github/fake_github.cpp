#include "tests/fake_github/fake_github.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <zlib.h>

#include "core/text.h"
#include "tests/fake_github/fake_graphql.h"

namespace convfail::fake {
namespace {

using Json = nlohmann::json;

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t h(int n, std::uint64_t salt) {
  return mix(static_cast<std::uint64_t>(n) * 1000003u + salt);
}

std::uint64_t fnv(const std::string& s) {
  std::uint64_t x = 1469598103934665603ull;
  for (unsigned char c : s) x = (x ^ c) * 1099511628211ull;
  return x;
}

const std::int64_t kBase = 1609459200;     // 2021-01-01T00:00:00Z
const std::int64_t kChanged = 1735689600;  // 2025-01-01T00:00:00Z: edits come after everything
const char* kLabels[] = {"module: onnx", "bug",        "question", "pending on user response",
                         "triaged",      "enhancement"};

const char* kAssociations[] = {"NONE",         "CONTRIBUTOR", "MEMBER",
                               "COLLABORATOR", "OWNER",       "FIRST_TIME_CONTRIBUTOR"};

// A user object as api.github.com sends it (the fields of the recorded responses).
Json user_json(const std::string& origin, int k) {
  std::string login = "user" + std::to_string(k);
  std::int64_t id = 100000 + k;
  return {{"login", login},
          {"id", id},
          {"node_id", "MDQ6VXNlcj" + std::to_string(id)},
          {"avatar_url", "https://avatars.githubusercontent.com/u/" + std::to_string(id) + "?v=4"},
          {"gravatar_id", ""},
          {"url", origin + "/users/" + login},
          {"html_url", "https://github.com/" + login},
          {"followers_url", origin + "/users/" + login + "/followers"},
          {"repos_url", origin + "/users/" + login + "/repos"},
          {"type", k % 17 == 0 ? "Bot" : "User"},
          {"site_admin", false}};
}

// A 64-hex weak validator, as GitHub sends for API responses.
std::string weak_etag(const std::string& body) {
  char buf[80];
  std::uint64_t a = fnv(body);
  std::snprintf(buf, sizeof buf, "W/\"%016llx%016llx%016llx%016llx\"",
                static_cast<unsigned long long>(a), static_cast<unsigned long long>(mix(a ^ 1)),
                static_cast<unsigned long long>(mix(a ^ 2)),
                static_cast<unsigned long long>(mix(a ^ 3)));
  return buf;
}

// A gzip stream of a JSON array padded with `mb` MB of spaces.
std::string gzip_padding(int mb) {
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::string out, chunk(1 << 20, ' ');
  std::string buf(1 << 16, '\0');
  auto pump = [&](const std::string& in, int flush) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf.data());
      z.avail_out = static_cast<uInt>(buf.size());
      deflate(&z, flush);
      out.append(buf.data(), buf.size() - z.avail_out);
    } while (z.avail_out == 0);
  };
  pump("[", Z_NO_FLUSH);
  for (int i = 0; i < mb; ++i) pump(chunk, Z_NO_FLUSH);
  pump("]", Z_FINISH);
  deflateEnd(&z);
  return out;
}

// Timeline "fix kinds": 1-4 are the four has_fix_link rules, 5-7 look alike but are not.
// The placeholder of --deep-issue's value in a response object; splice_deep() replaces it in the
// response text (building the nested value as JSON would recurse 100,000 levels here too).
const char* const kDeepPlaceholder = "@@fake-github-deep-value@@";

enum Kind {
  kNone = 0,
  kClosedCommit = 1,
  kReferenced = 2,
  kCrossRefClosed = 3,
  kConnected = 4,
  kCrossRefOpen = 5,
  kCrossRefOtherRepo = 6,
  kReferencedNoCommit = 7
};

}  // namespace

std::int64_t fake_repository_id(const std::string& full_name) {
  return 1000 + static_cast<std::int64_t>(fnv(lower(full_name)) % 900000000);
}

struct FakeGitHub::Impl {
  FakeGitHubOptions opt;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mu;
  std::map<int, int> revision;            // issue -> number of edits
  std::map<int, std::int64_t> edited_at;  // issue -> updated_at of its last edit
  std::int64_t edits = 0;
  std::map<std::string, int> hits;  // fault bookkeeping per URL
  std::vector<LoggedRequest> requests;
  std::int64_t window = -1;
  int used = 0;
  std::map<std::int64_t, std::string> repos_by_id;  // /repositories/<id> -> full name
  std::string bomb;                                 // the gzip body, made on first use
  std::int64_t gql_window = -1;  // GraphQL points: their own budget, as on GitHub
  int gql_used = 0;
  int posts = 0;                               // POST /graphql answered (for --graphql-shape)
  mutable std::atomic<std::int64_t> fresh{0};  // --endless-pages: cursor and page counter
  std::string empty_body;                      // --empty-objects-mb: made on first use

  // The response text with --deep-issue's placeholder replaced by [[[...null...]]].
  std::string splice_deep(std::string body) const {
    if (opt.deep_issue <= 0) return body;
    std::string quoted = std::string("\"") + kDeepPlaceholder + "\"";
    std::size_t at = body.find(quoted);
    if (at == std::string::npos) return body;
    auto levels = static_cast<std::size_t>(std::max(0, opt.deep_levels));
    std::string deep = std::string(levels, '[') + "null" + std::string(levels, ']');
    return body.replace(at, quoted.size(), deep);
  }

  // A user, or REST's "ghost" for a deleted account (--deleted-users: one user in ten).
  Json user(const std::string& origin, int k) const {
    if (!opt.deleted_users || k % 10 != 3) return user_json(origin, k);
    Json g = user_json(origin, 10137);
    g["login"] = "ghost";
    g["id"] = 10137;
    g["node_id"] = "MDQ6VXNlcjEwMTM3";
    g["url"] = origin + "/users/ghost";
    g["html_url"] = "https://github.com/ghost";
    g["type"] = "User";
    return g;
  }

  // Database ids: small ones, or (--big-ids) above 2^31 and, for every third, above 2^53.
  std::int64_t big(int n, std::int64_t id) const {
    if (!opt.big_ids) return id;
    return id + (n % 3 == 0 ? (std::int64_t{1} << 53) + 1 : (std::int64_t{1} << 31));
  }

  static std::string origin(const httplib::Request& req) {
    return "http://" + req.get_header_value("Host");
  }

  bool pr(int n) const { return n % 7 == 3; }
  bool closed(int n) const { return n % 5 != 0; }
  int kind(int n) const { return static_cast<int>(h(n, 11) % 10); }
  std::vector<std::string> labels(int n) const {
    std::vector<std::string> out;
    std::uint64_t x = h(n, 3);
    if (x % 4 != 0) out.push_back(kLabels[0]);
    if ((x >> 8) % 2) out.push_back(kLabels[1]);
    if (n % 11 == 0) out.push_back(kLabels[2]);
    if (n % 13 == 0) out.push_back(kLabels[3]);
    if ((x >> 16) % 5 == 0) out.push_back(kLabels[4]);
    if ((x >> 24) % 7 == 0) out.push_back(kLabels[5]);
    return out;
  }
  int base_comments(int n) const { return n % 97 == 0 ? 105 : static_cast<int>(h(n, 5) % 4); }
  int rev(int n) const {
    auto it = revision.find(n);
    return it == revision.end() ? 0 : it->second;
  }
  std::int64_t created(int n) const { return kBase + n * 7200; }
  std::int64_t updated(int n) const {
    auto it = edited_at.find(n);
    if (it != edited_at.end()) return it->second;
    return created(n) + 3600 + static_cast<std::int64_t>(h(n, 7) % (86400 * 30));
  }

  Json issue(const std::string& origin, const std::string& repo, int n) const {
    std::string api = origin + "/repos/" + repo;
    std::string self = api + "/issues/" + std::to_string(n);
    std::string detail = opt.detail_urls_to.empty() ? self
                                                    : opt.detail_urls_to + "/repos/" + repo +
                                                          "/issues/" + std::to_string(n);
    Json labels_json = Json::array();
    for (const auto& l : labels(n))
      labels_json.push_back({{"id", static_cast<std::int64_t>(fnv(l) % 1000000000)},
                             {"name", l},
                             {"color", "ededed"},
                             {"default", false}});
    int r = rev(n);
    Json j = {{"url", self},
              {"repository_url", api},
              {"labels_url", self + "/labels{/name}"},
              {"comments_url", detail + "/comments"},
              {"events_url", self + "/events"},
              {"timeline_url", detail + "/timeline"},
              {"node_id", "I_kwDO" + std::to_string(5000000 + n)},
              {"html_url",
               "https://github.com/" + repo + (pr(n) ? "/pull/" : "/issues/") + std::to_string(n)},
              {"id", big(n, 5000000 + n)},
              {"number", n},
              {"title", n == opt.bad_title_issue
                            ? Json(n)
                            : Json("Generated issue " + std::to_string(n) +
                                   ": converter fails on op " + std::to_string(h(n, 13) % 300))},
              {"body", "Steps to reproduce " + std::to_string(n) +
                           (r ? " (edited " + std::to_string(r) + " times)" : std::string())},
              {"user", user(origin, static_cast<int>(h(n, 17) % 50))},
              {"labels", labels_json},
              {"locked", false},
              {"assignee", nullptr},
              {"assignees", Json::array()},
              {"milestone", nullptr},
              {"state", closed(n) ? "closed" : "open"},
              {"comments", base_comments(n) + r},
              {"created_at", format_iso8601(created(n))},
              {"updated_at", format_iso8601(updated(n))},
              {"closed_at", closed(n) ? Json(format_iso8601(updated(n))) : Json(nullptr)},
              {"author_association", kAssociations[h(n, 41) % 6]},
              {"active_lock_reason", nullptr},
              {"performed_via_github_app", nullptr}};
    if (n == opt.deep_issue) j["performed_via_github_app"] = kDeepPlaceholder;
    if (pr(n)) {
      std::string html = "https://github.com/" + repo + "/pull/" + std::to_string(n);
      j["pull_request"] = {{"url", api + "/pulls/" + std::to_string(n)},
                           {"html_url", html},
                           {"diff_url", html + ".diff"},
                           {"patch_url", html + ".patch"},
                           {"merged_at", closed(n) ? Json(format_iso8601(updated(n))) : Json()}};
    } else if (opt.old_format) {  // pre-2014 API dumps: every plain issue has this
      j["pull_request"] = {{"html_url", nullptr}, {"diff_url", nullptr}, {"patch_url", nullptr}};
    }
    return j;
  }

  Json comments(const std::string& origin, int n) const {
    Json out = Json::array();
    int count = base_comments(n) + rev(n);
    for (int i = 0; i < count; ++i) {
      std::string t = format_iso8601(created(n) + 60 * (i + 1));
      out.push_back({{"id", big(n + i, static_cast<std::int64_t>(n) * 1000 + i)},
                     {"user", user(origin, static_cast<int>(h(n + i, 19) % 50))},
                     {"body", "Comment " + std::to_string(i) + " on issue " + std::to_string(n)},
                     {"created_at", t},
                     {"updated_at", t},
                     {"author_association", kAssociations[h(n + i, 43) % 6]}});
    }
    return out;
  }

  Json source_issue(const std::string& repo, int number, bool is_closed, bool is_pr) const {
    Json s = {{"number", number},
              {"state", is_closed ? "closed" : "open"},
              {"repository", {{"full_name", repo}}},
              {"html_url", "https://github.com/" + repo + (is_pr ? "/pull/" : "/issues/") +
                               std::to_string(number)}};
    if (is_pr) s["pull_request"] = {{"url", "https://api.github.com/repos/" + repo + "/pulls"}};
    return s;
  }

  Json timeline(const std::string& origin, const std::string& repo, int n) const {
    Json out = Json::array();
    auto ev = [&](const std::string& event, std::int64_t at) {
      return Json{{"event", event},
                  {"actor", user(origin, static_cast<int>(h(n, 23) % 50))},
                  {"created_at", format_iso8601(at)}};
    };
    std::string sha = std::to_string(h(n, 29));
    auto labs = labels(n);
    if (!labs.empty()) {
      Json e = ev("labeled", created(n) + 10);
      e["label"] = {{"name", labs[0]}};
      out.push_back(e);
    }
    if (n % 89 == 0)  // long timelines paginate
      for (int i = 0; i < 110; ++i) out.push_back(ev("subscribed", created(n) + 20 + i));
    int k = kind(n);
    bool src_pr = h(n, 31) % 2 == 0;
    int src_number = static_cast<int>(h(n, 37) % 1000) + 1;
    Json e;
    switch (k) {
      case kReferenced:
        e = ev("referenced", created(n) + 200);
        e["commit_id"] = sha;
        out.push_back(e);
        break;
      case kReferencedNoCommit:
        e = ev("referenced", created(n) + 200);
        e["commit_id"] = nullptr;
        out.push_back(e);
        break;
      case kCrossRefClosed:
      case kCrossRefOpen:
      case kCrossRefOtherRepo:
        e = ev("cross-referenced", created(n) + 200);
        e["source"] = {{"type", "issue"},
                       {"issue", source_issue(k == kCrossRefOtherRepo ? "someone/elsewhere" : repo,
                                              src_number, k != kCrossRefOpen, src_pr)}};
        out.push_back(e);
        break;
      case kConnected:
        out.push_back(ev("connected", created(n) + 200));
        break;
      default:
        break;
    }
    // The event types without actor/created_at (shapes of recorded timelines): a commit
    // pushed, a review and a line comment, then assigned and merged. None is a fix link.
    if (n % 6 == 1) {
      std::string person = "Dev " + std::to_string(h(n, 47) % 50);
      out.push_back({{"event", "committed"},
                     {"sha", sha + "c"},
                     {"node_id", "C_" + sha},
                     {"url", origin + "/repos/" + repo + "/git/commits/" + sha + "c"},
                     {"author",
                      {{"name", person},
                       {"email", "dev@example.org"},
                       {"date", format_iso8601(created(n) + 300)}}},
                     {"committer",
                      {{"name", "GitHub"},
                       {"email", "noreply@github.com"},
                       {"date", format_iso8601(created(n) + 360)}}},
                     {"message", "Fix converter op " + std::to_string(h(n, 13) % 300)},
                     {"parents", Json::array()}});
      out.push_back({{"event", "reviewed"},
                     {"id", static_cast<std::int64_t>(n) * 10 + 1},
                     {"user", user_json(origin, static_cast<int>(h(n, 53) % 50))},
                     {"body", nullptr},
                     {"state", "approved"},
                     {"submitted_at", format_iso8601(created(n) + 400)},
                     {"author_association", "MEMBER"}});
      out.push_back(
          {{"event", "line-commented"},
           {"node_id", "PRRT_" + std::to_string(n)},
           {"comments", Json::array({{{"id", static_cast<std::int64_t>(n) * 10 + 2},
                                      {"user", user_json(origin, static_cast<int>(h(n, 59) % 50))},
                                      {"path", "onnx/convert.py"},
                                      {"line", static_cast<int>(h(n, 61) % 400) + 1},
                                      {"body", "nit"},
                                      {"created_at", format_iso8601(created(n) + 450)},
                                      {"updated_at", format_iso8601(created(n) + 450)}}})}});
      Json a = ev("assigned", created(n) + 500);
      a["assignee"] = user(origin, static_cast<int>(h(n, 67) % 50));
      out.push_back(a);
      Json m = ev("merged", created(n) + 600);
      m["commit_id"] = nullptr;  // merged into another branch: no fix link here
      out.push_back(m);
    }
    for (int i = 0; i < rev(n); ++i) out.push_back(ev("mentioned", kChanged + i));
    if (closed(n)) {
      e = ev("closed", updated(n));
      e["commit_id"] = k == kClosedCommit ? Json(sha) : Json(nullptr);
      out.push_back(e);
    }
    return out;
  }

  bool fix_link(int n) const {
    int k = kind(n);
    return (k == kClosedCommit && closed(n)) || k == kReferenced || k == kCrossRefClosed ||
           k == kConnected;
  }

  // The listing: filters, then sort by (updated_at, number).
  std::vector<int> list(const httplib::Request& req, std::string* error) const {
    std::string state = req.has_param("state") ? req.get_param_value("state") : "open";
    if (state != "open" && state != "closed" && state != "all") {
      *error = "state";
      return {};
    }
    std::vector<std::string> want;
    if (req.has_param("labels")) {
      std::stringstream ss(req.get_param_value("labels"));
      std::string l;
      while (std::getline(ss, l, ','))
        if (!l.empty()) want.push_back(l);
    }
    std::int64_t since = -1;
    if (req.has_param("since")) {
      since = parse_iso8601(req.get_param_value("since")).value_or(-1);
      if (since < 0) {
        *error = "since";
        return {};
      }
    }
    std::vector<int> out;
    for (int n = 1; n <= opt.issues; ++n) {
      if (state != "all" && (state == "closed") != closed(n)) continue;
      if (since >= 0 && updated(n) < since) continue;
      auto labs = labels(n);
      bool ok = std::all_of(want.begin(), want.end(), [&](const std::string& w) {
        return std::find(labs.begin(), labs.end(), w) != labs.end();
      });
      if (ok) out.push_back(n);
    }
    bool asc = req.has_param("direction") && req.get_param_value("direction") == "asc";
    std::string sort = req.has_param("sort") ? req.get_param_value("sort") : "created";
    std::sort(out.begin(), out.end(), [&](int a, int b) {
      std::int64_t ka = sort == "updated" ? updated(a) : created(a);
      std::int64_t kb = sort == "updated" ? updated(b) : created(b);
      if (ka != kb) return asc ? ka < kb : ka > kb;
      return asc ? a < b : a > b;
    });
    return out;
  }

  // Cuts one page from `all` and sets the Link header (rel next/last/prev/first).
  Json paginate(const httplib::Request& req, httplib::Response& res, const Json& all,
                const std::string& repo, const std::string& rest) const {
    int per_page = 30, page = 1;
    try {
      if (req.has_param("per_page")) per_page = std::stoi(req.get_param_value("per_page"));
      if (req.has_param("page")) page = std::stoi(req.get_param_value("page"));
    } catch (...) {
    }
    per_page = std::clamp(per_page, 1, 100);
    page = std::max(page, 1);
    if (opt.endless_pages && rest == "/issues") {  // the first page again, and a next one
      Json first = Json::array();
      for (std::size_t i = 0; i < all.size() && i < static_cast<std::size_t>(per_page); ++i)
        first.push_back(all[i]);
      std::string q;
      for (const auto& [k, v] : req.params)
        if (k != "page") q += (q.empty() ? "" : "&") + k + "=" + url_encode(v);
      res.set_header("Link", "<" + origin(req) + "/repositories/" +
                                 std::to_string(fake_repository_id(repo)) + rest + "?" + q +
                                 (q.empty() ? "" : "&") + "page=" + std::to_string(page + 1) +
                                 ">; rel=\"next\"");
      return first;
    }
    int total = static_cast<int>(all.size());
    int last = std::max(1, (total + per_page - 1) / per_page);
    Json out = Json::array();
    for (int i = (page - 1) * per_page; i < std::min(total, page * per_page); ++i)
      out.push_back(all[static_cast<std::size_t>(i)]);
    auto link = [&](int p) {
      std::string q;
      for (const auto& [k, v] : req.params)
        if (k != "page") q += (q.empty() ? "" : "&") + k + "=" + url_encode(v);
      q += (q.empty() ? "" : "&") + std::string("page=") + std::to_string(p);
      // GitHub's Link URLs name the repository by id and keep the client's parameters.
      return "<" + origin(req) + "/repositories/" + std::to_string(fake_repository_id(repo)) +
             rest + "?" + q + ">";
    };
    std::string header;
    auto add = [&](int p, const char* rel) {
      header += (header.empty() ? "" : ", ") + link(p) + "; rel=\"" + rel + "\"";
    };
    if (page > 1) add(page - 1, "prev");
    if (page < last) add(page + 1, "next");
    if (page < last) add(last, "last");
    if (page > 1) add(1, "first");
    if (!opt.link_next_to.empty() && rest == "/issues")
      header = "<" + opt.link_next_to + "/repos/" + repo +
               "/issues?page=" + std::to_string(page + 1) + ">; rel=\"next\"";
    if ((opt.self_link == "listing" && rest == "/issues") ||
        (opt.self_link == "comments" && ends_with(rest, "/comments")))
      header = "<" + origin(req) + req.target + ">; rel=\"next\"";
    if (!header.empty()) res.set_header("Link", header);
    return out;
  }

  static std::string query_of(const httplib::Request& req) {
    std::string q;
    for (const auto& [k, v] : req.params) q += (q.empty() ? "" : "&") + k + "=" + v;
    return q;
  }

  void log(const httplib::Request& req, int status) {
    std::lock_guard<std::mutex> lock(mu);
    requests.push_back({req.path, query_of(req), status, req.has_header("If-None-Match"),
                        req.get_header_value("Authorization")});
  }

  void set_rate_headers(httplib::Response& res, std::int64_t reset, int remaining,
                        bool with_reset = true) const {
    int limit = opt.rate_limit > 0 ? opt.rate_limit : 5000;
    res.set_header("X-RateLimit-Limit", std::to_string(limit));
    res.set_header("X-RateLimit-Remaining", std::to_string(remaining));
    res.set_header("X-RateLimit-Used", std::to_string(limit - remaining));
    if (with_reset) res.set_header("X-RateLimit-Reset", std::to_string(reset));
    res.set_header("X-RateLimit-Resource", "core");
  }

  // Hostile answers of the listing; true when one was sent.
  bool hostile(const httplib::Request& req, httplib::Response& res) {
    if (!opt.redirect_to.empty()) {
      res.status = 302;
      res.set_header("Location", opt.redirect_to + req.target);
      log(req, 302);
      return true;
    }
    if (opt.escape_error) {
      res.status = 400;
      res.set_content(
          Json{{"message", "Bad request \x1b]0;owned title\x07\x1b[2J\x1b[31mred"}}.dump(),
          "application/json");
      log(req, 400);
      return true;
    }
    if (opt.huge_body_mb > 0) {
      std::uint64_t total = static_cast<std::uint64_t>(opt.huge_body_mb) << 20;
      res.status = 200;
      res.set_chunked_content_provider(
          "application/octet-stream",
          [total, sent = std::uint64_t{0}](std::size_t, httplib::DataSink& sink) mutable {
            static const std::string chunk = "[" + std::string((1 << 16) - 1, ' ');
            if (sent >= total) {  // bounded: ends after `total` bytes
              sink.done();
              return true;
            }
            sent += chunk.size();
            return sink.write(chunk.data(), chunk.size());
          });
      log(req, 200);
      return true;
    }
    if (opt.empty_objects_mb > 0) {  // millions of {} under the size cap
      bool gql = ends_with(req.path, "/graphql");
      auto body = std::make_shared<std::string>();
      {
        std::lock_guard<std::mutex> lock(mu);
        if (empty_body.empty()) {
          std::size_t n = (static_cast<std::size_t>(opt.empty_objects_mb) << 20) / 3;
          empty_body.reserve(n * 3 + 2);
          empty_body += "[";
          for (std::size_t i = 0; i < n; ++i) empty_body += i ? ",{}" : "{}";
          empty_body += "]";
        }
        *body = gql ? R"({"data":{"repository":{"nameWithOwner":"x/y","issues":{"totalCount":1,)"
                      R"("pageInfo":{"hasNextPage":false,"endCursor":null},"nodes":)" +
                          empty_body + "}}}}"
                    : empty_body;
      }
      res.status = 200;
      res.set_content_provider(
          body->size(), "application/json; charset=utf-8",
          [body](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
            return sink.write(body->data() + offset, std::min(length, body->size() - offset));
          });
      log(req, 200);
      return true;
    }
    if (opt.gzip_bomb_mb > 0) {
      std::string body;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (bomb.empty()) bomb = gzip_padding(opt.gzip_bomb_mb);
        body = bomb;
      }
      res.status = 200;
      res.set_header("Content-Encoding", "gzip");
      res.set_content(body, "application/octet-stream");  // not recompressed by httplib
      log(req, 200);
      return true;
    }
    return false;
  }

  // GET /repos/O/R and /repositories/<id>: the repository object.
  void repository(const httplib::Request& req, httplib::Response& res, const std::string& repo) {
    std::string api = origin(req) + "/repos/" + repo;
    std::string owner = repo.substr(0, repo.find('/'));
    Json j = {{"id", fake_repository_id(repo)},
              {"node_id", "R_" + std::to_string(fake_repository_id(repo))},
              {"name", repo.substr(repo.find('/') + 1)},
              {"full_name", repo},
              {"private", false},
              {"owner", user_json(origin(req), 7)},
              {"html_url", "https://github.com/" + repo},
              {"url", api},
              {"issues_url", api + "/issues{/number}"},
              {"has_issues", true},
              {"open_issues_count", opt.issues / 5},
              {"default_branch", "main"}};
    j["owner"]["login"] = owner;
    std::string body = j.dump();
    std::string etag = weak_etag(body);
    res.set_header("ETag", etag);
    set_rate_headers(res, std::time(nullptr) + 60, 4999);
    if (req.get_header_value("If-None-Match") == etag) {
      res.status = 304;
      log(req, 304);
      return;
    }
    res.status = 200;
    res.set_content(body, "application/json; charset=utf-8");
    log(req, 200);
  }

  // The old name of a renamed repository: 301 to /repositories/<id> with GitHub's body.
  bool moved(const httplib::Request& req, httplib::Response& res, const std::string& repo,
             const std::string& rest) {
    if (opt.rename_from.empty() || !iequals(repo, opt.rename_from)) return false;
    std::string q = req.target.find('?') == std::string::npos
                        ? std::string()
                        : req.target.substr(req.target.find('?'));
    std::string to = origin(req) + "/repositories/" +
                     std::to_string(fake_repository_id(opt.rename_to)) + rest + q;
    res.status = 301;
    res.set_header("Location", to);
    res.set_content(Json{{"message", "Moved Permanently"},
                         {"url", to},
                         {"documentation_url", "https://docs.github.com/v3/#http-redirects"}}
                        .dump(),
                    "application/json; charset=utf-8");
    log(req, 301);
    return true;
  }

  void handle(const httplib::Request& req, httplib::Response& res, const std::string& repo,
              int number, const std::string& what) {
    if (opt.latency_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(opt.latency_ms));
    std::string rest =
        what == "issues" ? "/issues" : "/issues/" + std::to_string(number) + "/" + what;
    {
      std::lock_guard<std::mutex> lock(mu);
      repos_by_id[fake_repository_id(repo)] = repo;
    }
    if (moved(req, res, repo, rest)) return;
    if (what == "issues" && hostile(req, res)) return;
    std::string key = req.path + "?" + query_of(req);

    // Faults: only on a URL's first two requests, so bounded retries always get through.
    int fault = -1;
    {
      std::lock_guard<std::mutex> lock(mu);
      int attempt = hits[key]++;
      if (opt.fault_rate > 0 && attempt < 2) {
        std::uint64_t x = mix(opt.seed ^ fnv(key) ^ mix(static_cast<std::uint64_t>(attempt)));
        if (static_cast<double>(x % 1000000) / 1e6 < opt.fault_rate)
          fault = static_cast<int>((x >> 32) % 5);
      }
    }

    // The data (identical whatever the faults).
    Json all;
    if (what == "issues") {
      std::string err;
      std::unique_lock<std::mutex> lock(mu);
      std::vector<int> numbers = list(req, &err);
      if (!err.empty()) {
        lock.unlock();
        res.status = 422;
        res.set_content(Json{{"message", "Validation Failed: " + err}}.dump(), "application/json");
        log(req, 422);
        return;
      }
      all = Json::array();
      for (int n : numbers) all.push_back(issue(origin(req), repo, n));
    } else {
      if (number < 1 || number > opt.issues) {
        res.status = 404;
        res.set_content(R"({"message":"Not Found"})", "application/json");
        log(req, 404);
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      all =
          what == "comments" ? comments(origin(req), number) : timeline(origin(req), repo, number);
    }
    std::string body = splice_deep(paginate(req, res, all, repo, rest).dump());
    std::string etag = weak_etag(body);

    // Rate limit: 304s are free, as on GitHub.
    bool not_modified = req.get_header_value("If-None-Match") == etag;
    std::int64_t now = std::time(nullptr);
    int window_s = std::max(1, opt.rate_window_s);
    std::int64_t reset = (now / window_s + 1) * window_s;
    int remaining;
    bool limited = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (now / window_s != window) {
        window = now / window_s;
        used = 0;
      }
      int limit = opt.rate_limit > 0 ? opt.rate_limit : 5000;
      if (opt.rate_limit > 0 && used >= limit && !not_modified) limited = true;
      if (!limited && !not_modified && fault < 0 && opt.rate_limit > 0) ++used;
      remaining = std::max(0, limit - (opt.rate_limit > 0 ? used : 0));
    }
    set_rate_headers(res, reset, remaining, !(limited && opt.bare_rate_limit));
    if (limited) {
      res.status = 403;
      res.set_content(R"({"message":"API rate limit exceeded for 127.0.0.1."})",
                      "application/json");
      log(req, 403);
      return;
    }

    switch (fault) {
      case 0:
      case 1:
        res.status = fault == 0 ? 500 : 502;
        res.set_content(R"({"message":"Server Error"})", "application/json");
        log(req, res.status);
        return;
      case 2: {  // cut the connection half-way through the body
        auto shared = std::make_shared<std::string>(body);
        res.set_content_provider(shared->size(), "application/json",
                                 [shared](std::size_t, std::size_t, httplib::DataSink& sink) {
                                   sink.write(shared->data(), shared->size() / 2);
                                   return false;
                                 });
        log(req, 0);
        return;
      }
      case 3:  // a complete HTTP response whose JSON is cut short
        res.status = 200;
        res.set_content(body.substr(0, body.size() / 2), "application/json");
        log(req, 200);
        return;
      case 4:
        res.status = 403;
        if (!opt.bare_rate_limit) res.set_header("Retry-After", std::to_string(opt.retry_after_s));
        res.set_content(
            R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})",
            "application/json");
        log(req, 403);
        return;
      default:
        break;
    }

    res.set_header("ETag", etag);
    if (not_modified) {
      if (!opt.link_on_304) res.headers.erase("Link");
      res.status = 304;
      log(req, 304);
      return;
    }
    res.status = 200;
    res.set_content(body, "application/json; charset=utf-8");
    log(req, 200);
  }

  // ---- POST /graphql ----

  static std::string b64(const std::string& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
      unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                   (static_cast<unsigned char>(in[i + 1]) << 8) |
                   static_cast<unsigned char>(in[i + 2]);
      for (int s = 18; s >= 0; s -= 6) out += k[(v >> s) & 63];
    }
    if (i < in.size()) {
      unsigned v = static_cast<unsigned char>(in[i]) << 16;
      if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
      out += k[(v >> 18) & 63];
      out += k[(v >> 12) & 63];
      out += i + 1 < in.size() ? k[(v >> 6) & 63] : '=';
      out += '=';
    }
    return out;
  }
  static std::string unb64(const std::string& in) {
    static const std::string k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned v = 0;
    int bits = 0;
    for (char c : in) {
      std::size_t p = k.find(c);
      if (c == '=' || p == std::string::npos) break;
      v = (v << 6) | static_cast<unsigned>(p);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += static_cast<char>((v >> bits) & 0xFF);
      }
    }
    return out;
  }

  // "LabeledEvent" -> "LABELED_EVENT" (the itemTypes enum of a timeline item's type).
  static std::string item_type(const std::string& t) {
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (i > 0 && std::isupper(static_cast<unsigned char>(t[i]))) out += '_';
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(t[i])));
    }
    return out;
  }

  static Json gql_user(const Json& rest_user) {
    // GraphQL's author/actor of a deleted account is null (REST's is "ghost").
    if (!rest_user.is_object() || rest_user.value("login", "") == "ghost") return nullptr;
    return {{"__typename", rest_user.value("type", "User") == "Bot" ? "Bot" : "User"},
            {"login", rest_user["login"]}};
  }

  // An issue as GitHub's GraphQL API has it, from the REST generator's objects (the same data);
  // nested connections under "@labels", "@comments", "@timeline".
  Json gql_issue(const std::string& origin, const std::string& repo, int n) const {
    Json r = issue(origin, repo, n);
    Json labels = Json::array();
    for (const Json& l : r["labels"])
      labels.push_back({{"__typename", "Label"}, {"name", l["name"]}, {"color", l["color"]}});
    Json cs = Json::array();
    for (const Json& c : comments(origin, n))
      cs.push_back({{"__typename", "IssueComment"},
                    {"id", "IC_kwDO" + std::to_string(c["id"].get<std::int64_t>())},
                    {"databaseId", c["id"]},
                    {"fullDatabaseId", std::to_string(c["id"].get<std::int64_t>())},
                    {"author", gql_user(c["user"])},
                    {"authorAssociation", c["author_association"]},
                    {"createdAt", c["created_at"]},
                    {"updatedAt", c["updated_at"]},
                    {"body", c["body"]}});
    Json tl = Json::array();
    int k = 0;
    for (const Json& e : timeline(origin, repo, n)) {
      std::string ev = e.value("event", "");
      static const std::map<std::string, std::string> types = {
          {"labeled", "LabeledEvent"},       {"subscribed", "SubscribedEvent"},
          {"mentioned", "MentionedEvent"},   {"assigned", "AssignedEvent"},
          {"referenced", "ReferencedEvent"}, {"cross-referenced", "CrossReferencedEvent"},
          {"connected", "ConnectedEvent"},   {"closed", "ClosedEvent"}};
      auto t = types.find(ev);
      if (t == types.end()) continue;  // committed, reviewed, ...: pull-request-only items
      Json g = {{"__typename", t->second},
                {"id", "TE_" + std::to_string(n) + "_" + std::to_string(k++)},
                {"actor", gql_user(e["actor"])},
                {"createdAt", e["created_at"]}};
      if (ev == "labeled") g["label"] = {{"__typename", "Label"}, {"name", e["label"]["name"]}};
      if (ev == "assigned") g["assignee"] = gql_user(e["assignee"]);
      auto commit = [](const Json& id) {
        return id.is_string() ? Json{{"__typename", "Commit"}, {"oid", id}} : Json(nullptr);
      };
      if (ev == "referenced") g["commit"] = commit(e["commit_id"]);
      if (ev == "closed") g["closer"] = commit(e["commit_id"]);
      if (ev == "cross-referenced") {
        const Json& si = e["source"]["issue"];
        bool is_pr = si.contains("pull_request");
        std::string state = si["state"] == "closed" ? (is_pr ? "MERGED" : "CLOSED") : "OPEN";
        g["source"] = {
            {"__typename", is_pr ? "PullRequest" : "Issue"},
            {"number", si["number"]},
            {"state", state},
            {"url", si["html_url"]},
            {"repository",
             {{"__typename", "Repository"}, {"nameWithOwner", si["repository"]["full_name"]}}}};
      }
      tl.push_back(g);
    }
    if (n == opt.deep_issue)  // a renamed title whose previousTitle is --deep-issue's value
      tl.push_back({{"__typename", "RenamedTitleEvent"},
                    {"id", "RTE_" + std::to_string(n)},
                    {"actor", gql_user(r["user"])},
                    {"createdAt", r["updated_at"]},
                    {"previousTitle", kDeepPlaceholder},
                    {"currentTitle", r["title"]}});
    std::string state = r["state"] == "closed" ? "CLOSED" : "OPEN";
    return {{"__typename", "Issue"},
            {"id", r["node_id"]},
            {"databaseId", r["id"]},
            {"fullDatabaseId", std::to_string(r["id"].get<std::int64_t>())},
            {"number", n},
            {"title", r["title"]},
            {"body", r["body"]},
            {"state", state},
            {"createdAt", r["created_at"]},
            {"updatedAt", r["updated_at"]},
            {"closedAt", r["closed_at"]},
            {"url", r["html_url"]},
            {"authorAssociation", r["author_association"]},
            {"author", gql_user(r["user"])},
            {"@labels", labels},
            {"@comments", cs},
            {"@timeline", tl}};
  }

  // A connection over `all` (nested ones: the cursor is the position, base64 as GitHub's are).
  static Json slice(const Json& all, const Json& args) {
    std::size_t from = 0;
    if (args.contains("after") && args["after"].is_string()) {
      std::string c = unb64(args["after"].get<std::string>());
      if (c.rfind("cursor:v2:", 0) != 0)
        throw GqlError("`" + args["after"].get<std::string>() +
                       "` does not appear to be a valid cursor.");
      from = static_cast<std::size_t>(std::stoll(c.substr(10)));
    }
    std::size_t first = args.value("first", 100);
    Json nodes = Json::array();
    for (std::size_t i = from; i < all.size() && nodes.size() < first; ++i) nodes.push_back(all[i]);
    std::size_t end = from + nodes.size();
    return {
        {"__typename", "Connection"},
        {"totalCount", all.size()},
        {"nodes", nodes},
        {"pageInfo",
         {{"__typename", "PageInfo"},
          {"hasNextPage", end < all.size()},
          {"hasPreviousPage", from > 0},
          {"startCursor",
           nodes.empty() ? Json() : Json(b64("cursor:v2:" + std::to_string(from + 1)))},
          {"endCursor", nodes.empty() ? Json() : Json(b64("cursor:v2:" + std::to_string(end)))}}}};
  }

  // repository.issues: state/labels (any of them, as GitHub's filterBy)/since filters, sorted by
  // (updatedAt, number), keyset cursors, pull requests never included.
  Json gql_issues(const std::string& origin, const std::string& repo, const Json& args) const {
    const Json& f = args.contains("filterBy") && args["filterBy"].is_object() ? args["filterBy"]
                                                                              : Json::object();
    std::int64_t since = -1;
    if (f.contains("since") && f["since"].is_string())
      since = parse_iso8601(f["since"].get<std::string>()).value_or(-1);
    std::set<std::string> states;
    if (f.contains("states") && f["states"].is_array())
      for (const Json& s : f["states"]) states.insert(s.get<std::string>());
    std::vector<std::string> want;
    if (f.contains("labels") && f["labels"].is_array())
      for (const Json& l : f["labels"]) want.push_back(l.get<std::string>());
    std::vector<std::pair<std::int64_t, int>> keys;
    for (int n = 1; n <= opt.issues; ++n) {
      if (pr(n)) continue;
      if (!states.empty() && !states.count(closed(n) ? "CLOSED" : "OPEN")) continue;
      if (since >= 0 && updated(n) < since) continue;
      auto labs = labels(n);
      if (!want.empty() && std::none_of(want.begin(), want.end(), [&](const std::string& w) {
            return std::find(labs.begin(), labs.end(), w) != labs.end();
          }))
        continue;
      keys.push_back({updated(n), n});
    }
    std::sort(keys.begin(), keys.end());
    std::pair<std::int64_t, int> after{-1, 0};
    if (opt.endless_pages) {  // the first page again under a fresh cursor, forever
      Json nodes = Json::array();
      std::size_t first = args.value("first", 100);
      for (std::size_t i = 0; i < keys.size() && nodes.size() < first; ++i)
        nodes.push_back(gql_issue(origin, repo, keys[i].second));
      std::string cursor = b64("cursor:v2:" + std::to_string(++fresh) + ":0");
      return {
          {"__typename", "IssueConnection"},
          {"totalCount", keys.size()},
          {"nodes", nodes},
          {"pageInfo", {{"__typename", "PageInfo"}, {"hasNextPage", true}, {"endCursor", cursor}}}};
    }
    if (args.contains("after") && args["after"].is_string()) {
      std::string c = unb64(args["after"].get<std::string>());
      std::size_t colon = c.rfind(':');
      if (c.rfind("cursor:v2:", 0) != 0 || colon < 10)
        throw GqlError("`" + args["after"].get<std::string>() +
                       "` does not appear to be a valid cursor.");
      after = {std::stoll(c.substr(10, colon - 10)), std::stoi(c.substr(colon + 1))};
    }
    std::size_t first = args.value("first", 100);
    Json nodes = Json::array();
    std::size_t i =
        static_cast<std::size_t>(std::upper_bound(keys.begin(), keys.end(), after) - keys.begin());
    std::string end;
    for (; i < keys.size() && nodes.size() < first; ++i) {
      nodes.push_back(gql_issue(origin, repo, keys[i].second));
      end =
          b64("cursor:v2:" + std::to_string(keys[i].first) + ":" + std::to_string(keys[i].second));
    }
    return {{"__typename", "IssueConnection"},
            {"totalCount", keys.size()},
            {"nodes", nodes},
            {"pageInfo",
             {{"__typename", "PageInfo"},
              {"hasNextPage", i < keys.size()},
              {"endCursor", end.empty() ? Json() : Json(end)}}}};
  }

  // nginx's error page, as GitHub's proxy sends it for a 5xx of its own.
  static std::string html_page(const std::string& title) {
    return "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n<center><h1>" + title +
           "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
  }

  // GitHub's answer to a query that ran out of time (HTTP 502).
  static Json gql_timeout() {
    return {{"data", nullptr},
            {"errors",
             Json::array({{{"message",
                            "Something went wrong while executing your query. This may be the "
                            "result of a timeout, or it could be a GitHub bug. Please include "
                            "`0000:FAKE:1:2:3` when reporting this issue."}}})}};
  }

  void gql_answer(const httplib::Request& req, httplib::Response& res, int status,
                  const Json& body) {
    res.status = status;
    res.set_content(splice_deep(body.dump()), "application/json; charset=utf-8");
    log(req, status);
  }

  void graphql(const httplib::Request& req, httplib::Response& res) {
    if (opt.latency_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(opt.latency_ms));
    std::string auth = req.get_header_value("Authorization");
    std::string token = auth.rfind("Bearer ", 0) == 0  ? auth.substr(7)
                        : auth.rfind("token ", 0) == 0 ? auth.substr(6)
                                                       : std::string();
    if (token.empty())
      return gql_answer(req, res, 401,
                        {{"message", "This endpoint requires you to be authenticated."},
                         {"documentation_url",
                          "https://docs.github.com/graphql/guides/"
                          "forming-calls-with-graphql#authenticating-with-graphql"}});
    if (opt.graphql_shape == "no-endpoint-404")  // an old GitHub Enterprise, a REST-only proxy
      return gql_answer(
          req, res, 404,
          {{"message", "Not Found"}, {"documentation_url", "https://docs.github.com/rest"}});
    if (opt.graphql_shape == "no-endpoint-501") {
      res.status = 501;
      res.set_content(html_page("501 Not Implemented"), "text/html");
      log(req, 501);
      return;
    }
    if (hostile(req, res)) return;  // the listing's hostile answers, on /graphql too
    Json in = Json::parse(req.body, nullptr, false);
    if (!in.is_object() || !in.contains("query") || !in["query"].is_string())
      return gql_answer(req, res, 400, {{"message", "Problems parsing JSON"}});
    Json vars = in.value("variables", Json::object());
    if (vars.is_null()) vars = Json::object();

    // Faults, as on the REST routes: keyed by the request body, on its first two requests.
    int fault = -1;
    {
      std::lock_guard<std::mutex> lock(mu);
      std::string key = "/graphql?" + std::to_string(fnv(req.body));
      int attempt = hits[key]++;
      if (opt.fault_rate > 0 && attempt < 2) {
        std::uint64_t x = mix(opt.seed ^ fnv(key) ^ mix(static_cast<std::uint64_t>(attempt)));
        if (static_cast<double>(x % 1000000) / 1e6 < opt.fault_rate)
          fault = static_cast<int>((x >> 32) % 6);  // 5: GitHub's timeout answer
      }
    }
    GqlDocument doc;
    GqlCost cost;
    try {
      doc = parse_graphql(in["query"].get<std::string>(), vars);
      cost = graphql_cost(doc);
    } catch (const GqlError& e) {
      return gql_answer(req, res, 200, {{"errors", Json::array({{{"message", e.what()}}})}});
    }

    // Points: the cost of every query that runs, per window.
    std::int64_t now = std::time(nullptr);
    int window_s = std::max(1, opt.rate_window_s);
    std::int64_t reset = (now / window_s + 1) * window_s;
    int limit = opt.rate_limit > 0 ? opt.rate_limit : 5000;
    int remaining;
    bool limited = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (now / window_s != gql_window) {
        gql_window = now / window_s;
        gql_used = 0;
      }
      if (opt.rate_limit > 0 && gql_used + cost.cost() > limit) limited = true;
      if (!limited && fault < 0) gql_used += static_cast<int>(cost.cost());
      remaining = std::max(0, limit - (opt.rate_limit > 0 ? gql_used : 0));
    }
    set_rate_headers(res, reset, remaining);
    res.set_header("X-RateLimit-Resource", "graphql");
    int post;
    {
      std::lock_guard<std::mutex> lock(mu);
      post = ++posts;
    }
    const std::string& shape = opt.graphql_shape;
    if ((shape == "rate-limit" || shape == "rate-limited") && (post == 2 || post == 3)) {
      // renovatebot/renovate#21861 (RATE_LIMITED) and yanyongyu/githubkit#271 (RATE_LIMIT with
      // code graphql_rate_limit): HTTP 200, the budget spent until the reset.
      set_rate_headers(res, std::time(nullptr) + 1, 0);
      res.set_header("X-RateLimit-Resource", "graphql");
      Json e = shape == "rate-limit"
                   ? Json{{"type", "RATE_LIMIT"},
                          {"code", "graphql_rate_limit"},
                          {"message", "API rate limit already exceeded for user ID 1."}}
                   : Json{{"type", "RATE_LIMITED"},
                          {"message", "API rate limit exceeded for user ID 1."}};
      return gql_answer(req, res, 200, {{"errors", Json::array({e})}});
    }
    if (shape == "secondary" && (post == 2 || post == 3)) {
      // A secondary limit, without Retry-After: first as a GraphQL error with HTTP 200, then as
      // the 403 the REST API sends.
      std::string m =
          "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
          "again. If you reach out to GitHub Support for help, please include the request ID "
          "0000:FAKE:" +
          std::to_string(post) + ".";
      if (post == 2)
        return gql_answer(req, res, 200, {{"errors", Json::array({{{"message", m}}})}});
      return gql_answer(
          req, res, 403,
          {{"message", m},
           {"documentation_url",
            "https://docs.github.com/graphql/overview/"
            "rate-limits-and-node-limits-for-the-graphql-api#secondary-rate-limits"}});
    }
    if (limited)
      return gql_answer(
          req, res, 200,
          {{"errors", Json::array({{{"type", "RATE_LIMITED"},
                                    {"message", "API rate limit exceeded for user ID 1."}}})}});
    switch (fault) {
      case 0:
      case 1:
        return gql_answer(req, res, fault == 0 ? 500 : 502, {{"message", "Server Error"}});
      case 2: {
        auto body =
            std::make_shared<std::string>(Json{{"data", nullptr}}.dump() + std::string(200, ' '));
        res.set_content_provider(body->size(), "application/json",
                                 [body](std::size_t, std::size_t, httplib::DataSink& sink) {
                                   sink.write(body->data(), body->size() / 2);
                                   return false;
                                 });
        log(req, 0);
        return;
      }
      case 3:
        res.status = 200;
        res.set_content(R"({"data":{"rateLimit":{"cost":)", "application/json");
        log(req, 200);
        return;
      case 4:
        res.status = 403;
        if (!opt.bare_rate_limit) res.set_header("Retry-After", std::to_string(opt.retry_after_s));
        res.set_content(
            R"({"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})",
            "application/json");
        log(req, 403);
        return;
      case 5:
        return gql_answer(req, res, 502, gql_timeout());
      default:
        break;
    }

    std::string origin_ = origin(req);
    Json errors = Json::array();
    std::vector<Json> path;  // of the field being resolved, for errors
    GqlResolver resolve = [&](const Json& obj, const Selection& s) -> Json {
      std::string type = obj.value("__typename", "");
      if (type == "Query" && s.name == "rateLimit")
        return {{"__typename", "RateLimit"},
                {"cost", cost.cost()},
                {"limit", limit},
                {"remaining", remaining},
                {"used", limit - remaining},
                {"nodeCount", cost.nodes},
                {"resetAt", format_iso8601(reset)}};
      if (type == "Query" && s.name == "repository") {
        std::string repo = s.args.value("owner", "") + "/" + s.args.value("name", "");
        if (!opt.missing_repo.empty() && iequals(repo, opt.missing_repo)) {
          errors.push_back(
              {{"type", "NOT_FOUND"},
               {"path", Json::array({s.alias})},
               {"locations", Json::array({{{"line", 1}, {"column", 1}}})},
               {"message", "Could not resolve to a Repository with the name '" + repo + "'."}});
          return nullptr;
        }
        if (!opt.rename_from.empty() && iequals(repo, opt.rename_from)) repo = opt.rename_to;
        return {{"__typename", "Repository"}, {"nameWithOwner", repo}, {"@repo", repo}};
      }
      if (type == "Repository" && s.name == "issues")
        return gql_issues(origin_, obj["@repo"], s.args);
      if (type == "Repository" && s.name == "issue") {
        int n = s.args.value("number", 0);
        if (n < 1 || n > opt.issues || pr(n)) {
          errors.push_back({{"type", "NOT_FOUND"},
                            {"path", Json::array({"repository", s.alias})},
                            {"message", "Could not resolve to an Issue with the number of " +
                                            std::to_string(n) + "."}});
          return nullptr;
        }
        return gql_issue(origin_, obj["@repo"], n);
      }
      if (type == "Issue" && (s.name == "labels" || s.name == "comments")) {
        return slice(obj[s.name == "labels" ? "@labels" : "@comments"], s.args);
      }
      if (type == "Issue" && s.name == "timelineItems") {
        if (obj["number"] == opt.graphql_partial_issue) {
          errors.push_back(
              {{"path", Json::array({"repository", "issues", "nodes", "timelineItems"})},
               {"message", "Something went wrong while resolving this issue's timeline."}});
          return nullptr;
        }
        Json items = Json::array();
        std::set<std::string> wanted;
        if (s.args.contains("itemTypes") && s.args["itemTypes"].is_array())
          for (const Json& t : s.args["itemTypes"]) wanted.insert(t.get<std::string>());
        for (const Json& e : obj["@timeline"])
          if (wanted.empty() || wanted.count(item_type(e["__typename"]))) items.push_back(e);
        return slice(items, s.args);
      }
      if (s.name == "databaseId" && obj.contains("databaseId") &&
          obj["databaseId"].is_number_integer() &&
          obj["databaseId"].get<std::int64_t>() > 2147483647) {
        // GraphQL's Int is 32 bits: a conforming server answers a field error and null.
        errors.push_back({{"path", Json::array({"repository", s.alias})},
                          {"message", "Int cannot represent non 32-bit signed integer value: " +
                                          obj["databaseId"].dump()}});
        return nullptr;
      }
      if (obj.contains(s.name)) return obj[s.name];
      throw GqlError("Field '" + s.name + "' doesn't exist on type '" + type + "'");
    };
    int big_page = 0;  // issues(first: N) of this request, N above 25 (for the size shapes)
    for (const Selection& top : doc.selections)
      for (const Selection& r : top.sub)
        if (top.name == "repository" && r.name == "issues" && r.args.value("first", 0) > 25)
          big_page = r.args.value("first", 0);
    if (big_page && shape == "html-timeout") {  // turbot/steampipe-plugin-github#518
      int status = post % 2 ? 502 : 504;
      res.status = status;
      res.set_content(html_page(status == 502 ? "502 Bad Gateway" : "504 Gateway Time-out"),
                      "text/html");
      log(req, status);
      return;
    }
    if (big_page && shape == "node-limit")  // no data: refused before it ran
      return gql_answer(
          req, res, 200,
          {{"errors", Json::array({{{"type", "MAX_NODE_LIMIT_EXCEEDED"},
                                    {"message", "This query requests up to " +
                                                    std::to_string(cost.nodes * 100) +
                                                    " possible nodes which exceeds the maximum "
                                                    "limit of 500,000."}}})}});
    if (opt.graphql_timeout_above > 0) {
      for (const Selection& top : doc.selections)
        for (const Selection& r : top.sub)
          if (top.name == "repository" && r.name == "issues" &&
              r.args.value("first", 0) > opt.graphql_timeout_above)
            return gql_answer(req, res, 502, gql_timeout());
    }
    Json data;
    try {
      data = graphql_execute(doc, Json{{"__typename", "Query"}}, doc.selections, resolve);
    } catch (const GqlError& e) {
      return gql_answer(req, res, 200, {{"errors", Json::array({{{"message", e.what()}}})}});
    }
    if (big_page && shape == "resource-limits") {
      // Partial data: every other issue node null, one RESOURCE_LIMITS_EXCEEDED error each.
      for (auto& [key, repo] : data.items()) {
        if (!repo.is_object()) continue;
        for (auto& [field, conn] : repo.items()) {
          if (!conn.is_object() || !conn.contains("nodes") || !conn["nodes"].is_array()) continue;
          for (std::size_t i = 1; i < conn["nodes"].size(); i += 2) {
            conn["nodes"][i] = nullptr;
            errors.push_back({{"type", "RESOURCE_LIMITS_EXCEEDED"},
                              {"path", Json::array({key, field, "nodes", i})},
                              {"locations", Json::array({{{"line", 7}, {"column", 7}}})},
                              {"message", "Resource limits for this query exceeded."}});
          }
        }
      }
    }
    Json out = {{"data", data}};
    if (!errors.empty()) out["errors"] = errors;
    gql_answer(req, res, 200, out);
  }

  void change(const std::vector<int>& numbers) {
    std::lock_guard<std::mutex> lock(mu);
    for (int n : numbers) {
      if (n < 1 || n > opt.issues) continue;
      ++revision[n];
      edited_at[n] = kChanged + 60 * ++edits;
    }
  }
};

FakeGitHub::FakeGitHub(FakeGitHubOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.opt = options;
  // More server threads than the crawler's default concurrency, so latency is parallel.
  m.server.new_task_queue = [] { return new httplib::ThreadPool(16); };
  m.server.set_tcp_nodelay(true);  // else Nagle + delayed ACKs add 40 ms per response
  m.server.set_keep_alive_max_count(100000);
  m.server.set_keep_alive_timeout(30);
  // /repos/O/R/... and /repositories/<id>/... (the form of GitHub's Link URLs and redirects).
  auto name_of = [&m](const httplib::Request& q, bool by_id) -> std::string {
    if (!by_id) return q.matches[1].str() + "/" + q.matches[2].str();
    std::lock_guard<std::mutex> lock(m.mu);
    std::int64_t id = 0;
    try {
      id = std::stoll(q.matches[1].str());
    } catch (...) {
    }
    if (!m.opt.rename_to.empty() && id == fake_repository_id(m.opt.rename_to))
      return m.opt.rename_to;
    auto it = m.repos_by_id.find(id);
    return it == m.repos_by_id.end() ? std::string() : it->second;
  };
  auto not_found = [&m](const httplib::Request& q, httplib::Response& r) {
    r.status = 404;
    r.set_content(R"({"message":"Not Found"})", "application/json");
    m.log(q, 404);
  };
  for (bool by_id : {false, true}) {
    std::string repo = by_id ? "/repositories/(\\d+)" : "/repos/([^/]+)/([^/]+)";
    int g = by_id ? 2 : 3;  // first group after the repository
    m.server.Get(repo,
                 [&m, name_of, not_found, by_id](const httplib::Request& q, httplib::Response& r) {
                   std::string name = name_of(q, by_id);
                   if (name.empty()) return not_found(q, r);
                   if (m.moved(q, r, name, "")) return;
                   m.repository(q, r, name);
                 });
    m.server.Get(repo + "/issues",
                 [&m, name_of, not_found, by_id](const httplib::Request& q, httplib::Response& r) {
                   std::string name = name_of(q, by_id);
                   if (name.empty()) return not_found(q, r);
                   m.handle(q, r, name, 0, "issues");
                 });
    m.server.Get(
        repo + R"(/issues/(\d+)/(comments|timeline))",
        [&m, name_of, not_found, by_id, g](const httplib::Request& q, httplib::Response& r) {
          std::string name = name_of(q, by_id);
          if (name.empty()) return not_found(q, r);
          int n = 0;
          try {
            n = std::stoi(q.matches[static_cast<std::size_t>(g)].str());
          } catch (...) {
          }
          m.handle(q, r, name, n, q.matches[static_cast<std::size_t>(g) + 1].str());
        });
  }
  m.server.Get("/_admin/log", [&m](const httplib::Request&, httplib::Response& r) {
    Json out = Json::array();
    {
      std::lock_guard<std::mutex> lock(m.mu);
      for (const auto& q : m.requests)
        out.push_back({{"path", q.path},
                       {"query", q.query},
                       {"status", q.status},
                       {"authorization", q.authorization}});
    }
    r.set_content(out.dump() + "\n", "application/json");
  });
  m.server.Post("/graphql",
                [&m](const httplib::Request& q, httplib::Response& r) { m.graphql(q, r); });
  m.server.Post("/api/graphql",  // GitHub Enterprise Server's endpoint
                [&m](const httplib::Request& q, httplib::Response& r) { m.graphql(q, r); });
  m.server.Post("/_admin/change", [&m](const httplib::Request& q, httplib::Response& r) {
    std::vector<int> numbers;
    std::stringstream ss(q.get_param_value("issues"));
    std::string n;
    while (std::getline(ss, n, ',')) try {
        numbers.push_back(std::stoi(n));
      } catch (...) {
      }
    m.change(numbers);
    r.set_content(Json{{"changed", numbers}}.dump() + "\n", "application/json");
  });
  if (options.port > 0) {
    if (!m.server.bind_to_port("127.0.0.1", options.port))
      throw std::runtime_error("cannot bind 127.0.0.1:" + std::to_string(options.port));
    m.port = options.port;
  } else {
    m.port = m.server.bind_to_any_port("127.0.0.1");
    if (m.port <= 0) throw std::runtime_error("cannot bind a port on 127.0.0.1");
  }
  m.thread = std::thread([&m] { m.server.listen_after_bind(); });
  for (int i = 0; i < 500 && !m.server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

FakeGitHub::~FakeGitHub() {
  stop();
}

void FakeGitHub::stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int FakeGitHub::port() const {
  return impl_->port;
}
std::string FakeGitHub::url() const {
  return "http://127.0.0.1:" + std::to_string(port());
}
void FakeGitHub::change_issues(const std::vector<int>& numbers) {
  impl_->change(numbers);
}

std::vector<LoggedRequest> FakeGitHub::log() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->requests;
}

void FakeGitHub::clear_log() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->requests.clear();
}

bool FakeGitHub::is_pull_request(int n) const {
  return impl_->pr(n);
}
bool FakeGitHub::expected_fix_link(int n) const {
  return impl_->fix_link(n);
}
bool FakeGitHub::is_closed(int n) const {
  return impl_->closed(n);
}
std::vector<std::string> FakeGitHub::labels(int n) const {
  return impl_->labels(n);
}
int FakeGitHub::comment_count(int n) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->base_comments(n) + impl_->rev(n);
}

}  // namespace convfail::fake
