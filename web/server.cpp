#include "web/server.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/db.h"
#include "core/embedded_files.h"
#include "core/error.h"
#include "core/issue_schema.h"
#include "core/json_util.h"
#include "core/secrets.h"
#include "core/text.h"
#include "core/write_queue.h"
#include "labeling/team_members.h"
#include "web/access.h"
#include "web/api.h"
#include "web/campaign_api.h"
#include "web/http_server.h"
#include "web/issue_page.h"
#include "web/page_cache.h"
#include "web/routes.h"

namespace convfail {
extern const EmbeddedFile kWebAssets[];
extern const std::size_t kWebAssets_count;
}  // namespace convfail

namespace convfail::web {

namespace {

// The one map from a failure to an HTTP status and its message: every handler (guard) answers
// through it, label posts whose batch failed too (WriteNotStored: 503 when the database stayed
// locked past lock_wait, else 500).
struct Failure {
  int status;
  std::string message;
};
Failure failure_of(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const HttpError& x) {
    return {x.status(), x.what()};
  } catch (const WriteNotStored& x) {  // a label post's batch failed as a whole: nothing written
    Failure f = failure_of(x.cause());
    return {f.status >= 500 ? f.status : 500, "could not store the labels: " + f.message};
  } catch (const DbBusy& x) {  // locked by another process past lock_wait: nothing written
    return {503, std::string("the database is busy, try again: ") + x.what()};
  } catch (const UsageError& x) {
    return {400, x.what()};
  } catch (const UserError& x) {
    return {400, x.what()};
  } catch (const nlohmann::json::exception& x) {
    return {400, std::string("bad JSON value: ") + x.what()};
  } catch (const std::exception& x) {
    return {500, std::string("internal error: ") + x.what()};
  } catch (...) {
    return {500, "internal error"};
  }
}

// Pages may load only their own scripts, styles and data; nothing is framed but the report.
const char* const kCsp =
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";
// The report renderer's XHTML page (no script) in the page's frame: its own inline styles only.
const char* const kReportCsp =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

// The longest string an answer carries, import's field limit: text stored by earlier versions
// or other tools (a note of 200 MB) is cut here, so no answer holds an unbounded field.
constexpr std::size_t kMaxAnswerString = std::size_t{1} << 20;

bool has_long_string(const Json& j) {
  if (j.is_string()) return j.get_ref<const std::string&>().size() > kMaxAnswerString;
  if (j.is_structured())
    for (const Json& v : j)
      if (has_long_string(v)) return true;
  return false;
}

// Cuts every string longer than kMaxAnswerString at a character boundary; returns how many.
std::size_t cut_long_strings(Json& j) {
  if (j.is_string()) {
    std::string& s = j.get_ref<std::string&>();
    if (s.size() <= kMaxAnswerString) return 0;
    s = truncate_utf8(s, kMaxAnswerString);
    return 1;
  }
  std::size_t n = 0;
  if (j.is_structured())
    for (Json& v : j) n += cut_long_strings(v);
  return n;
}

void send_json(HttpReply& res, const Json& j, int status = 200) {
  res.status = status;
  if (!has_long_string(j)) {
    res.set_content(json_text(j), "application/json");
    return;
  }
  Json copy = j;
  std::size_t cut = cut_long_strings(copy);
  res.set_header("X-Convfail-Cut-Strings", std::to_string(cut));
  res.set_content(json_text(copy), "application/json");
}

void send_error(HttpReply& res, int status, const std::string& message) {
  send_json(res, {{"error", message}, {"status", status}}, status);
  // The database stayed locked (another process's long write): ask the page to retry.
  if (status == 503) res.set_header("Retry-After", "2");
}

std::string cookie(const HttpRequest& req, const std::string& name) {
  std::string all = req.header("Cookie");
  std::size_t at = 0;
  while (at < all.size()) {
    std::size_t end = all.find(';', at);
    if (end == std::string::npos) end = all.size();
    std::string part = trim(all.substr(at, end - at));
    if (starts_with(part, name + "=")) return part.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

// The token a request carries: "Authorization: Bearer T", else the cookie.
std::string given_token(const HttpRequest& req) {
  std::string auth = req.header("Authorization");
  return starts_with(auth, "Bearer ") ? auth.substr(7) : cookie(req, "convfail_token");
}

std::string content_type_of(const std::string& name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  if (host == "::1" || host == "[::1]" || lower(host) == "localhost") return true;
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

bool host_allowed(const std::string& host_header, const std::vector<std::string>& allowed) {
  std::string name = host_header, port;
  if (starts_with(name, "[")) {
    std::size_t close = name.find(']');
    if (close == std::string::npos) return false;
    port = name.substr(close + 1);
    name = name.substr(0, close + 1);
  } else if (std::size_t colon = name.find(':'); colon != std::string::npos) {
    port = name.substr(colon);
    name = name.substr(0, colon);
  }
  if (!port.empty()) {  // ":" then 1-5 digits
    if (port.size() < 2 || port.size() > 6 || port[0] != ':' ||
        port.find_first_not_of("0123456789", 1) != std::string::npos)
      return false;
  }
  if (name.empty()) return false;
  if (is_loopback_host(name)) return true;
  for (const std::string& a : allowed)
    if (iequals(a, name)) return true;
  return false;
}

std::string generate_token() {
  return random_hex(16);
}

const char* find_asset(const std::string& name) {
  for (std::size_t i = 0; i < kWebAssets_count; ++i)
    if (name == kWebAssets[i].name) return kWebAssets[i].text;
  return nullptr;
}

struct Server::Impl {
  ServerOptions options;
  Taxonomy taxonomy;
  PageCache pages;  // campaign reports and comparisons
  // Label posts go through core's write queue (group commit: one writer thread and connection,
  // one BEGIN IMMEDIATE transaction per batch, a savepoint per post, so a refused post leaves the
  // others; BEGIN IMMEDIATE orders it with other processes). None when read-only. Declared
  // before `http`: the workers are joined before the queue is closed (drained).
  std::unique_ptr<WriteQueue> writes;
  std::unique_ptr<HttpServer> http;
  // Writes go first: a read request waits while label posts are queued or being written, so
  // the one writer is not starved of the CPU by the readers under load (posts are short).
  struct ReadSlot {
    explicit ReadSlot(Impl& s) {
      if (s.writes) s.writes->wait_idle(std::chrono::milliseconds(50));
    }
  };

  Impl(ServerOptions o, Taxonomy t)
      : options(std::move(o)), taxonomy(std::move(t)), pages(options.db_path) {
    if (options.readonly) return;
    WriteQueueOptions w;
    w.lock_wait = std::chrono::milliseconds(options.lock_wait_ms);
    // A post not begun within two lock waits (the batch before it waited one out, then its own
    // would have too): 503 as well, instead of waiting on.
    w.max_wait = std::chrono::milliseconds(std::max(1000, 2 * options.lock_wait_ms));
    // Each waiting post holds a worker: with room for all of them, none is refused as "full".
    w.max_queued = std::max<std::size_t>(w.max_queued, static_cast<std::size_t>(options.threads));
    writes = std::make_unique<WriteQueue>(options.db_path, w);
  }

  // One connection per worker thread, opened on its first request and kept (opening one costs
  // more than most requests: pragmas, then parsing the schema).
  Db& open_db() {
    struct Cached {
      const Impl* owner = nullptr;
      std::unique_ptr<Db> db;
    };
    thread_local Cached cached;
    if (cached.owner != this || !cached.db) {
      cached.db.reset();
      cached.db = std::make_unique<Db>(
          options.db_path, options.readonly ? OpenMode::kReadOnly : OpenMode::kReadWrite);
      cached.db->set_busy_timeout(std::chrono::milliseconds(options.lock_wait_ms));
      cached.owner = this;
    }
    return *cached.db;
  }

  // Who asks. Without a team: the name of the header X-Convfail-Annotator, else of the login
  // cookie (unchecked; "" when none). With a team: the member whose token the request carries,
  // and nothing else can name another person (a header naming someone else is refused).
  Viewer viewer(const HttpRequest& req) {
    Viewer v;
    if (!options.team) {
      v.name = req.header("X-Convfail-Annotator");
      if (v.name.empty()) v.name = percent_decoded(cookie(req, "convfail_annotator"));
      return v;
    }
    auto member = labeling::member_by_token(open_db(), given_token(req));
    if (!member) throw HttpError(403, "your token is not (or no longer) a team member's");
    v.team = true;
    v.name = member->name;
    v.role = member->role;
    std::string claimed = req.header("X-Convfail-Annotator");
    if (!claimed.empty() && claimed != v.name)
      throw HttpError(403, "X-Convfail-Annotator: your token signs you in as " + v.name +
                               "; no header can name another person");
    return v;
  }

  // The viewer, logged in (401 else), with a valid name.
  Viewer required_viewer(const HttpRequest& req) {
    Viewer v = viewer(req);
    if (v.name.empty())
      throw HttpError(401, "log in first: choose an annotator name (POST /api/login)");
    v.name = checked_annotator(v.name);
    return v;
  }

  // Every state-changing request (labels, login, logout): POST, JSON only, from this origin
  // (browsers say so in Sec-Fetch-Site and Origin); a cross-site form or text/plain post fails.
  void check_same_origin(const HttpRequest& req) {
    std::string site = req.header("Sec-Fetch-Site");
    if (!site.empty() && site != "same-origin" && site != "none")
      throw HttpError(403, "cross-site request refused (Sec-Fetch-Site: " + site + ")");
    std::string origin = req.header("Origin");
    if (!origin.empty() && origin != "http://" + req.header("Host"))
      throw HttpError(403, "cross-origin request refused (Origin does not match Host)");
    if (!starts_with(lower(req.header("Content-Type")), "application/json"))
      throw HttpError(415, "Content-Type must be application/json");
  }

  // Writes to the database: same origin, and not --readonly.
  void check_write(const HttpRequest& req) {
    if (options.readonly) throw HttpError(403, "the server is read-only (--readonly)");
    check_same_origin(req);
  }

  Json parse_body(const HttpRequest& req) {
    // Import's and the crawler's nesting limit: the label path may dump what it was given.
    if (json_nesting_depth(req.body) > kMaxJsonDepth)
      throw HttpError(400,
                      "body: JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded()) throw HttpError(400, "malformed JSON body");
    if (!body.is_object()) throw HttpError(400, "body: expected a JSON object");
    return body;
  }

  // Runs a handler; every failure becomes a JSON error line with a 4xx (or 500) status.
  void guard(HttpReply& res, const std::function<void()>& f) {
    try {
      f();
    } catch (...) {
      Failure failure = failure_of(std::current_exception());
      send_error(res, failure.status, failure.message);
    }
  }

  void serve_asset(const std::string& name, HttpReply& res) {
    guard(res, [&] {
      if (name.find("..") != std::string::npos || name.find('/') != std::string::npos ||
          name.find('\\') != std::string::npos || name.find('\0') != std::string::npos)
        throw HttpError(400, "bad asset path");
      const char* text = find_asset(name);
      if (!text) throw HttpError(404, "no asset " + quoted_excerpt(name));
      res.set_header("Cache-Control", "no-cache");
      res.set_content(text, content_type_of(name));
    });
  }

  // Host and token checks, before any route. False: `res` holds the refusal (or redirect).
  bool admitted(const HttpRequest& req, HttpReply& res) {
    if (options.team) return team_admitted(req, res);
    if (options.token.empty()) {
      // Without a token the server is on loopback: refuse other Host names, so a web page
      // whose name an attacker re-points at 127.0.0.1 (DNS rebinding) reads nothing.
      std::string host = req.header("Host");
      if (!host.empty() && !host_allowed(host, options.allowed_hosts)) {
        send_error(res, 403,
                   "Host " + quoted_excerpt(host) +
                       " refused: open http://127.0.0.1 (or name the host with --allow-host)");
        return false;
      }
      return true;
    }
    std::string auth = req.header("Authorization");
    std::string given =
        starts_with(auth, "Bearer ") ? auth.substr(7) : cookie(req, "convfail_token");
    if (!given.empty() && same_secret(given, options.token)) return true;
    if (req.method == "GET" && req.has_param("token") &&
        same_secret(req.param("token"), options.token)) {
      // The link printed at start: remember the token in a cookie, then drop it from the URL.
      res.set_header("Set-Cookie",
                     "convfail_token=" + options.token + "; Path=/; HttpOnly; SameSite=Strict");
      res.status = 303;
      res.set_header("Location", req.path.empty() ? "/" : req.path);
      return false;
    }
    send_error(res, 403, "access token required (open the link `convfail serve` printed)");
    return false;
  }

  // With a team: a member's own token (header or cookie), or the link ?token=T, which sets the
  // cookie. Revoked and unknown tokens are refused.
  bool team_admitted(const HttpRequest& req, HttpReply& res) {
    bool ok = false;
    guard(res, [&] {
      Db& db = open_db();
      if (labeling::member_by_token(db, given_token(req))) {
        ok = true;
      } else if (req.method == "GET" && req.has_param("token") &&
                 labeling::member_by_token(db, req.param("token"))) {
        res.set_header("Set-Cookie", "convfail_token=" + req.param("token") +
                                         "; Path=/; HttpOnly; SameSite=Strict");
        res.status = 303;
        res.set_header("Location", req.path.empty() ? "/" : req.path);
      } else {
        send_error(res, 403,
                   "your own access token required (convfail team add NAME prints it; open "
                   "the page with ?token=TOKEN)");
      }
    });
    return ok;
  }

  // The handlers of the route table, one per route.
  void page(const HttpRequest&, HttpReply& res) { serve_asset("index.html", res); }

  void asset(const HttpRequest& req, HttpReply& res) {
    serve_asset(req.path_params.at("name"), res);
  }

  void session(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      Viewer v = viewer(req);
      if (!v.name.empty()) v.name = checked_annotator(v.name);
      Db& db = open_db();
      send_json(res, viewer_session_json(session_json(db, taxonomy, v.name, options.readonly), v));
    });
  }

  void login(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      check_same_origin(req);
      Json body = parse_body(req);
      auto name = opt_string(body, "annotator");
      if (!name) throw HttpError(400, "body: \"annotator\" (string) needed");
      std::string annotator = checked_annotator(trim(*name));
      if (options.team) {  // the token names the person: log in as them, or be refused
        Viewer v = viewer(req);
        if (annotator != v.name)
          throw HttpError(403, "your token signs you in as " + v.name + ", not " + annotator);
        return send_json(res, {{"annotator", annotator}});
      }
      // Encoded: a name may hold what a cookie value may not (spaces, ';', ',', UTF-8).
      res.set_header("Set-Cookie", "convfail_annotator=" + url_encode(annotator) +
                                       "; Path=/; HttpOnly; SameSite=Strict");
      send_json(res, {{"annotator", annotator}});
    });
  }

  void logout(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      check_same_origin(req);
      // With a team, logging out forgets the token's cookie.
      res.set_header("Set-Cookie", options.team
                                       ? "convfail_token=; Path=/; Max-Age=0; SameSite=Strict"
                                       : "convfail_annotator=; Path=/; Max-Age=0; SameSite=Strict");
      send_json(res, {{"annotator", nullptr}});
    });
  }

  void issues(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      require_readable_sources(viewer(req), req.params, {"source", "compare"});
      ReadSlot slot(*this);
      Db& db = open_db();
      send_json(res, issues_json(db, taxonomy, req.params));
    });
  }

  void issue(const HttpRequest& req, HttpReply& res) {
    const auto& at = req.path_params;
    guard(res, [&] {
      Viewer v = viewer(req);
      auto blind = req.params.find("blind");
      if (blind != req.params.end() && blind->second != "0" && blind->second != "1")
        throw HttpError(400, "blind: 0 or 1");
      bool blind_view = blind == req.params.end() || blind->second != "0";
      if (!blind_view) require_adjudicator(v, "blind=0 (every rater's labels)");
      ReadSlot slot(*this);
      Db& db = open_db();
      Json issue = issue_json(db, taxonomy, at.at("owner") + "/" + at.at("repo"), at.at("number"),
                              v.name, blind_view);
      add_issue_page_fields(db, issue);
      send_json(res, issue);
    });
  }

  // The questions of a queue item (labeling's order): annotating, by the viewer's own cause;
  // adjudicating (other raters' causes are read), adjudicators only.
  void questions(const HttpRequest& req, HttpReply& res) {
    const auto& at = req.path_params;
    guard(res, [&] {
      Viewer v = required_viewer(req);
      if (req.param("mode") == "adjudicate") require_adjudicator(v, "mode adjudicate");
      ReadSlot slot(*this);
      Db& db = open_db();
      send_json(res, questions_json(db, taxonomy, at.at("owner") + "/" + at.at("repo"),
                                    at.at("number"), v.name, req.params));
    });
  }

  void label_history(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      Params asked = readable_history_params(viewer(req), req.params);
      Db& db = open_db();
      send_json(res, label_history_json(db, asked));
    });
  }

  void post_labels(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      check_write(req);
      Viewer v = required_viewer(req);
      Json body = parse_body(req);
      auto kind = body.find("kind");
      if (kind != body.end() && kind->is_string() && *kind == "adjudication")
        require_adjudicator(v, "kind adjudication");
      Json written =
          writes->submit([&](Db& db) { return append_label(db, taxonomy, v.name, body); });
      send_json(res, written, 201);
    });
  }

  void queue_items(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      Viewer v = required_viewer(req);
      if (req.param("mode") == "adjudicate") require_adjudicator(v, "mode adjudicate");
      if (req.param("queue") == "disagreement")
        require_adjudicator(v, "the disagreement queue (it is ranked by other raters' labels)");
      Db& db = open_db();
      send_json(res, queue_json(db, taxonomy, options.rules_dir, v.name, req.params));
    });
  }

  void agreement(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      require_readable_sources(viewer(req), req.params, {"a", "b"});
      Db& db = open_db();
      send_json(res, agreement_json(db, req.params));
    });
  }

  // A rendered report: the HTML one under its own CSP, a download with a file name.
  static void send_report(const HttpRequest& req, HttpReply& res, const ReportText& r,
                          const std::string& file) {
    if (r.extension == "html") res.set_header("Content-Security-Policy", kReportCsp);
    if (req.param("download") == "1")
      res.set_header(
          "Content-Disposition",
          "attachment; filename=\"" + (r.name.empty() ? file : r.name) + "." + r.extension + "\"");
    res.set_content(r.text, r.content_type);
  }

  void report(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      require_readable_sources(viewer(req), req.params, {"source", "compare"});
      Db& db = open_db();
      send_report(req, res, report_text(db, taxonomy, req.params), "convfail-report");
    });
  }

  void team(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      Viewer v = viewer(req);
      Db& db = open_db();
      send_json(res, team_json(db, v));
    });
  }

  void campaigns(const HttpRequest&, HttpReply& res) {
    guard(res, [&] {
      ReadSlot slot(*this);
      Db& db = open_db();
      send_json(res, campaigns_json(db));
    });
  }

  void campaign(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      ReadSlot slot(*this);
      // The report and the comparison depend on the path and the format only: made once per
      // state of the database, however many ask at once.
      std::string key = req.path + "\n" + req.param("format");
      ReportText page = pages.get(key, [&] {
        return campaign_report_text(open_db(), req.path_params.at("id"), req.params);
      });
      send_report(req, res, page, "convfail-campaign");
    });
  }

  void campaign_compare(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      ReadSlot slot(*this);
      std::string key = req.path + "\n" + req.param("format");
      ReportText page = pages.get(key, [&] {
        return campaign_compare_text(open_db(), req.path_params.at("a"), req.path_params.at("b"),
                                     req.params);
      });
      send_report(req, res, page, "convfail-campaign");
    });
  }

  void support(const HttpRequest& req, HttpReply& res) {
    guard(res, [&] {
      ReadSlot slot(*this);
      Db& db = open_db();
      send_report(req, res, support_text(db, req.params), "convfail-support");
    });
  }

  // Every route: method, path (or path prefix), handler. A known path asked with another method
  // is answered 405 with Allow; any other path 404.
  std::vector<Route> route_table() {
    using Handler = void (Impl::*)(const HttpRequest&, HttpReply&);
    auto to = [this](Handler h) {
      return [this, h](const HttpRequest& req, HttpReply& res) { (this->*h)(req, res); };
    };
    return {
        {"GET", "/", to(&Impl::page)},
        {"GET", "/assets/{name}", to(&Impl::asset)},
        {"GET", "/api/session", to(&Impl::session)},
        {"POST", "/api/login", to(&Impl::login)},
        {"POST", "/api/logout", to(&Impl::logout)},
        {"GET", "/api/issues", to(&Impl::issues)},
        {"GET", "/api/issues/{owner}/{repo}/{number}", to(&Impl::issue)},
        {"GET", "/api/issues/{owner}/{repo}/{number}/questions", to(&Impl::questions)},
        {"GET", "/api/labels", to(&Impl::label_history)},
        {"POST", "/api/labels", to(&Impl::post_labels)},
        {"GET", "/api/queue", to(&Impl::queue_items)},
        {"GET", "/api/agreement", to(&Impl::agreement)},
        {"GET", "/api/report", to(&Impl::report)},
        {"GET", "/api/team", to(&Impl::team)},
        {"GET", "/api/campaigns", to(&Impl::campaigns)},
        {"GET", "/api/campaigns/{id}", to(&Impl::campaign)},
        {"GET", "/api/campaigns/{a}/compare/{b}", to(&Impl::campaign_compare)},
        {"GET", "/api/support", to(&Impl::support)},
    };
  }
  std::vector<Route> routes = route_table();

  // Every request: security headers, admission, then the route.
  void dispatch(const HttpRequest& req, HttpReply& res) {
    res.set_header("Content-Security-Policy", kCsp);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Frame-Options", "SAMEORIGIN");
    if (!admitted(req, res)) return;
    RouteMatch m = match_route(routes, req.method, req.path);
    if (m.route) {
      HttpRequest routed = req;
      routed.path_params = std::move(m.params);
      return m.route->handler(routed, res);
    }
    if (m.status == 405) {
      // HEAD is answered as GET (the transport drops the body).
      const std::string method = req.method == "HEAD" ? "GET" : req.method;
      send_error(res, 405, "method " + method + " not allowed on " + req.path);
      res.set_header("Allow", m.allow);
      return;
    }
    send_error(res, 404, "not found");
  }

  void setup() {
    HttpServerOptions h;
    h.host = options.host;
    h.port = options.port;
    h.threads = options.threads;
    h.max_body = options.max_body;
    h.max_connections = options.max_connections;
    h.idle_timeout_s = options.idle_timeout_s;
    h.head_timeout_s = options.head_timeout_s;
    h.heavy_paths = {"/api/campaigns/", "/api/report"};  // reports: seconds on a large store
    http = std::make_unique<HttpServer>(
        h, [this](const HttpRequest& req, HttpReply& res) { dispatch(req, res); },
        [](int status, const std::string& message, HttpReply& res) {
          send_error(res, status, message);
        });
  }
};

Server::Server(ServerOptions options, Taxonomy taxonomy)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(taxonomy))) {
  impl_->setup();
}

Server::~Server() = default;

int Server::bind() {
  port_ = impl_->http->bind();
  return port_;
}

void Server::listen() {
  impl_->http->listen();
}

void Server::stop() {
  impl_->http->stop();
}

}  // namespace convfail::web
