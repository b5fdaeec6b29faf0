#include "crawler/graphql_crawl.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "core/error.h"
#include "core/issue_store.h"
#include "core/text.h"
#include "crawler/crawl_ledger.h"
#include "crawler/crawl_state.h"
#include "crawler/github_api.h"
#include "crawler/graphql_query.h"
#include "crawler/walk.h"

namespace convfail::crawler {
namespace {

const char* const kCheckpointPrefix = "graphql:";
const char* const kGhostLogin = "ghost";  // REST's login for a deleted account

// A nested member or null.
const Json& at(const Json& j, std::initializer_list<const char*> path) {
  static const Json null;
  const Json* p = &j;
  for (const char* k : path) {
    if (!p->is_object()) return null;
    auto it = p->find(k);
    if (it == p->end()) return null;
    p = &*it;
  }
  return *p;
}

// A user as REST has it: GraphQL's null for a deleted account is REST's "ghost".
Json login_of(const Json& actor) {
  if (actor.is_null()) return Json{{"login", kGhostLogin}};
  const Json& l = at(actor, {"login"});
  return l.is_string() ? Json{{"login", l}} : Json(nullptr);
}

// A database id: fullDatabaseId (a BigInt, sent as a string: ids passed 2^31 in 2024), else
// databaseId (a 32-bit Int), else null.
Json database_id(const Json& node) {
  const Json& full = at(node, {"fullDatabaseId"});
  if (full.is_string()) {
    const std::string& t = full.get_ref<const std::string&>();
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && end == t.data() + t.size() && !t.empty()) return v;
    return nullptr;
  }
  if (full.is_number_integer()) return full;
  const Json& id = at(node, {"databaseId"});
  return id.is_number_integer() ? id : Json(nullptr);
}

Json str_or_null(const Json& v) {
  return v.is_string() ? v : Json(nullptr);
}

std::string lower_or_empty(const Json& v) {
  return v.is_string() ? lower(v.get<std::string>()) : std::string();
}

// GraphQL's "errors": one line naming the first error (type, message, path).
std::string describe_errors(const Json& errors) {
  if (!errors.is_array() || errors.empty()) return "an unreadable \"errors\" member";
  const Json& e = errors[0];
  std::string out;
  if (auto t = opt_string(e, "type")) out += *t + ": ";
  out += opt_string(e, "message").value_or("(no message)").substr(0, 300);
  const Json& path = at(e, {"path"});
  if (path.is_array() && !path.empty()) {
    std::string p;
    for (const Json& x : path)
      p += (p.empty() ? "" : ".") + (x.is_string() ? x.get<std::string>() : x.dump());
    out += " (at " + p + ")";
  }
  if (errors.size() > 1) out += " and " + std::to_string(errors.size() - 1) + " more error(s)";
  return out;
}

// GitHub's errors for a request that asked for too much: RESOURCE_LIMITS_EXCEEDED (beside
// partial data whose nodes are null) and MAX_NODE_LIMIT_EXCEEDED (no data).
bool is_size_limit_error(const Json& errors) {
  if (!errors.is_array() || errors.empty()) return false;
  for (const Json& e : errors) {
    std::string t = opt_string(e, "type").value_or("");
    if (t != "RESOURCE_LIMITS_EXCEEDED" && t != "MAX_NODE_LIMIT_EXCEEDED") return false;
  }
  return true;
}

const std::map<std::string, std::string>& event_names() {
  static const std::map<std::string, std::string> m = {
      {"AssignedEvent", "assigned"},
      {"UnassignedEvent", "unassigned"},
      {"ClosedEvent", "closed"},
      {"ReopenedEvent", "reopened"},
      {"ConnectedEvent", "connected"},
      {"DisconnectedEvent", "disconnected"},
      {"CrossReferencedEvent", "cross-referenced"},
      {"LabeledEvent", "labeled"},
      {"UnlabeledEvent", "unlabeled"},
      {"MentionedEvent", "mentioned"},
      {"ReferencedEvent", "referenced"},
      {"RenamedTitleEvent", "renamed"},
      {"SubscribedEvent", "subscribed"},
      {"UnsubscribedEvent", "unsubscribed"},
      {"MarkedAsDuplicateEvent", "marked_as_duplicate"},
      {"IssueComment", "commented"}};
  return m;
}

}  // namespace

Json issue_from_graphql(const Json& n) {
  Json labels = Json::array();
  const Json& ln = at(n, {"labels", "nodes"});
  if (ln.is_array())
    for (const Json& l : ln)
      if (at(l, {"name"}).is_string()) labels.push_back({{"name", l["name"]}});
  Json j = {{"number", at(n, {"number"})},
            {"id", database_id(n)},
            {"node_id", str_or_null(at(n, {"id"}))},
            {"title", at(n, {"title"})},
            {"body", at(n, {"body"})},
            {"state", at(n, {"state"}).is_string() ? Json(lower_or_empty(n["state"])) : Json()},
            {"user", login_of(at(n, {"author"}))},
            {"author_association", str_or_null(at(n, {"authorAssociation"}))},
            {"created_at", at(n, {"createdAt"})},
            {"updated_at", at(n, {"updatedAt"})},
            {"closed_at", at(n, {"closedAt"})},
            {"html_url", str_or_null(at(n, {"url"}))},
            {"labels", labels},
            {"via", "graphql"}};
  const Json& count = at(n, {"comments", "totalCount"});
  if (count.is_number_integer()) j["comments"] = count;
  return j;
}

Json comment_from_graphql(const Json& n) {
  return {{"id", database_id(n)},
          {"user", login_of(at(n, {"author"}))},
          {"author_association", str_or_null(at(n, {"authorAssociation"}))},
          {"created_at", at(n, {"createdAt"})},
          {"updated_at", at(n, {"updatedAt"})},
          {"body", at(n, {"body"})},
          {"via", "graphql"}};
}

std::optional<Json> event_from_graphql(const Json& n) {
  std::string type = opt_string(n, "__typename").value_or("");
  auto name = event_names().find(type);
  if (name == event_names().end()) return std::nullopt;
  Json e = {{"event", name->second},
            {"actor", login_of(at(n, {type == "IssueComment" ? "author" : "actor"}))},
            {"created_at", at(n, {"createdAt"})},
            {"via", "graphql"}};
  if (type == "IssueComment") e["id"] = database_id(n);
  if (type == "ClosedEvent") {
    const Json& oid = at(n, {"closer", "oid"});
    const Json& merge = at(n, {"closer", "mergeCommit", "oid"});
    e["commit_id"] = oid.is_string() ? oid : merge.is_string() ? merge : Json(nullptr);
  }
  if (type == "ReferencedEvent") e["commit_id"] = str_or_null(at(n, {"commit", "oid"}));
  if (type == "LabeledEvent" || type == "UnlabeledEvent")
    e["label"] = {{"name", at(n, {"label", "name"})}};
  if (type == "AssignedEvent") e["assignee"] = login_of(at(n, {"assignee"}));
  if (type == "RenamedTitleEvent")
    e["rename"] = {{"from", at(n, {"previousTitle"})}, {"to", at(n, {"currentTitle"})}};
  if (type == "CrossReferencedEvent") {
    const Json& s = at(n, {"source"});
    std::string st = opt_string(s, "__typename").value_or("");
    if (st == "Issue" || st == "PullRequest") {
      // A pull request's state is aliased (its type, PullRequestState, differs from IssueState).
      std::string state = lower_or_empty(at(s, {st == "Issue" ? "state" : "pullState"}));
      if (state == "merged") state = "closed";  // REST's state of a merged pull request
      Json issue = {{"number", at(s, {"number"})},
                    {"state", state.empty() ? Json() : Json(state)},
                    {"html_url", str_or_null(at(s, {"url"}))},
                    {"repository", {{"full_name", at(s, {"repository", "nameWithOwner"})}}}};
      if (st == "PullRequest") issue["pull_request"] = {{"html_url", str_or_null(at(s, {"url"}))}};
      e["source"] = {{"type", "issue"}, {"issue", issue}};
    }
  }
  return e;
}

namespace {

// The GraphQL walk: pages of issues with their labels, comments and timeline items in one
// request each, follow-up requests for longer connections. A position is an encoded checkpoint
// (since=, after=).
class GraphQLWalk : public Walk {
 public:
  GraphQLWalk(Db& db, const CrawlOptions& o, const std::function<void(const std::string&)>& notice,
              const CrawlProgress& progress)
      : Walk(db, o, notice, progress, "graphql", false), endpoint_(graphql_endpoint(o.api_url)) {
    page_size_ = std::max(1, std::min(100, o.graphql_page_size));
  }

 private:
  std::string owner() const { return repo_name_.substr(0, repo_name_.find('/')); }
  std::string name() const { return repo_name_.substr(repo_name_.find('/') + 1); }

  std::optional<std::string> since() const { return walk_since(o_, state_.max_updated_at); }

  // One GraphQL request; returns "repository" after the checks. `what` names the request in
  // errors. When `may_shrink`, an answer that says the request was too big (GitHub's timeout,
  // RESOURCE_LIMITS_EXCEEDED or MAX_NODE_LIMIT_EXCEEDED, whatever partial data came with it)
  // returns nullopt: the caller asks for less. Faults are retried by the API client's policy.
  std::optional<Json> query(const char* document, const Json& variables, const std::string& what,
                            bool may_shrink) {
    Json body = {{"query", document}, {"variables", variables}};
    Fetched f = api_.post(endpoint_, body.dump(), may_shrink, what);
    if (f.timed_out) {
      shrink_reason_ = "timed out";
      return std::nullopt;
    }
    if (!f.data.is_object())
      throw UserError("POST " + endpoint_ + " (" + what + "): expected a JSON object, got " +
                      std::string(f.data.type_name()));
    const Json& errors = at(f.data, {"errors"});
    if (!errors.is_null()) {
      bool partial = at(f.data, {"data"}).is_object();
      if (is_size_limit_error(errors)) {
        if (may_shrink) {  // never store its null nodes: ask for less
          shrink_reason_ = "answered " + opt_string(errors[0], "type").value_or("a limit error");
          return std::nullopt;
        }
        throw UserError("POST " + endpoint_ + " (" + what + "): GraphQL " +
                        describe_errors(errors) + " on the smallest request; nothing was stored");
      }
      throw UserError("POST " + endpoint_ + " (" + what + "): GraphQL " + describe_errors(errors) +
                      (partial ? "; the partial data was refused" : "") +
                      "; nothing of it was stored");
    }
    const Json& data = at(f.data, {"data"});
    if (!data.is_object())
      throw UserError("POST " + endpoint_ + " (" + what + "): no \"data\" object in the answer");
    const Json& rl = at(data, {"rateLimit"});
    if (auto cost = opt_int(rl, "cost")) summary_.points_used += *cost;
    if (auto left = opt_int(rl, "remaining")) {
      summary_.points_remaining = left;
      if (auto reset = opt_string(rl, "resetAt"))
        if (auto t = parse_iso8601(*reset)) api_.note_budget(*left, *t);
    }
    const Json& repo = at(data, {"repository"});
    if (!repo.is_object())
      throw UserError("POST " + endpoint_ + " (" + what + "): repository " + repo_name_ +
                      " not found (no \"repository\" in the answer)");
    return repo;
  }

  // Follows a connection of one issue from `after` to its end; nodes appended to `out`.
  void follow(std::int64_t number, const char* document, const char* field, std::string after,
              Json* out) {
    std::set<std::string> seen{after};
    for (int page = 1;; ++page) {
      if (page > o_.max_pages)
        throw UserError(repo_name_ + "#" + std::to_string(number) + ": more than " +
                        std::to_string(o_.max_pages) + " pages of " + field + " (--max-pages)");
      Json vars = {{"owner", owner()}, {"name", name()}, {"number", number}, {"after", after}};
      std::string what = std::string(field) + " of #" + std::to_string(number) + " after " + after;
      Json repo = *query(document, vars, what, false);
      const Json& conn = at(repo, {"issue", field});
      if (!conn.is_object() || !at(conn, {"nodes"}).is_array())
        throw UserError("POST " + endpoint_ + " (" + what + "): no " + field + " connection");
      for (const Json& n : conn["nodes"]) out->push_back(n);
      if (at(conn, {"pageInfo", "hasNextPage"}) != true) return;
      auto next = opt_string(at(conn, {"pageInfo"}), "endCursor");
      if (!next || !seen.insert(*next).second)
        throw UserError("POST " + endpoint_ + " (" + what + "): endCursor " +
                        next.value_or("(none)") + " repeats or is missing (pagination cycle)");
      after = *next;
    }
  }

  // All nodes of an issue's nested connection: the first page's, then follow-up pages.
  Json all_nodes(std::int64_t number, const Json& node, const char* field, const char* document) {
    Json out = Json::array();
    const Json& conn = at(node, {field});
    const Json& nodes = at(conn, {"nodes"});
    if (nodes.is_array())
      for (const Json& n : nodes) out.push_back(n);
    if (at(conn, {"pageInfo", "hasNextPage"}) == true) {
      auto cursor = opt_string(at(conn, {"pageInfo"}), "endCursor");
      if (!cursor)
        throw UserError(repo_name_ + "#" + std::to_string(number) + ": " + field +
                        " has a next page but no endCursor");
      follow(number, document, field, *cursor, &out);
    }
    return out;
  }

  struct Checkpoint {
    std::optional<std::string> since, after;
  };
  static std::string encode(const Checkpoint& c) {
    Json j = {{"since", c.since ? Json(*c.since) : Json()},
              {"after", c.after ? Json(*c.after) : Json()}};
    return kCheckpointPrefix + j.dump();
  }
  static std::optional<Checkpoint> decode(const std::optional<std::string>& s) {
    if (!s || !starts_with(*s, kCheckpointPrefix)) return std::nullopt;
    Json j = Json::parse(s->substr(std::string(kCheckpointPrefix).size()), nullptr, false);
    if (!j.is_object()) return std::nullopt;
    return Checkpoint{opt_string(j, "since"), opt_string(j, "after")};
  }

  // A walk starts at the checkpoint of an interrupted one, else at since= with no cursor.
  // Cursors do not shift when an issue is updated during the walk: `repeat` changes nothing.
  std::string start(int, const std::optional<std::string>& resume, bool) override {
    if (decode(resume)) return *resume;
    return encode(Checkpoint{since(), {}});
  }

  std::string where(const std::string& at) const override {
    std::optional<Checkpoint> cp = decode(at);
    return "POST " + endpoint_ + " (issues of " + repo_name_ +
           (cp && cp->after ? " after " + *cp->after : "") + ")";
  }

  // The repository object of the page at `cp`: asks for page_size_ issues, halving it while
  // GitHub answers that the request was too big, and growing it back after good pages.
  Json fetch_page(const Checkpoint& cp) {
    Json repo;
    for (;;) {
      int first = page_size_;
      if (o_.max_issues > 0)
        first = static_cast<int>(
            std::min<std::int64_t>(first, std::max<std::int64_t>(1, o_.max_issues - stored_)));
      Json states =
          o_.state == "all" ? Json() : Json::array({o_.state == "open" ? "OPEN" : "CLOSED"});
      Json vars = {{"owner", owner()},
                   {"name", name()},
                   {"first", first},
                   {"after", cp.after ? Json(*cp.after) : Json()},
                   {"since", cp.since ? Json(*cp.since) : Json()},
                   {"labels", o_.labels.empty() ? Json() : Json(o_.labels)},
                   {"states", states},
                   {"comments", o_.comments ? 100 : 1},
                   {"withTimeline", o_.timeline}};
      std::string what = "issues of " + repo_name_ + (cp.after ? " after " + *cp.after : "");
      std::optional<Json> r = query(kIssuesQuery, vars, what, first > 1);
      if (r) {
        repo = std::move(*r);
        break;
      }
      page_size_ = std::max(1, first / 2);
      good_pages_ = 0;
      if (just_grew_) grow_after_ = std::min(48, grow_after_ * 2);  // it was not passing
      just_grew_ = false;
      if (notice_)
        notice_("GitHub's GraphQL API " + shrink_reason_ + " on " + std::to_string(first) +
                " issues per request; asking for " + std::to_string(page_size_));
    }
    // Grow back after a few good pages at a reduced size (the timeout may have been passing).
    just_grew_ = false;
    int full = std::max(1, std::min(100, o_.graphql_page_size));
    if (page_size_ < full && ++good_pages_ >= grow_after_) {
      page_size_ = std::min(full, page_size_ * 2);
      good_pages_ = 0;
      just_grew_ = true;
      if (notice_)
        notice_("GitHub's GraphQL API answered " + std::to_string(grow_after_) +
                " pages in a row; asking for " + std::to_string(page_size_) +
                " issues per request again");
    }
    return repo;
  }

  // One page of issues: fetch (shrinking the page on timeouts), map, store with the checkpoint.
  bool page(const std::string& position, bool* changed, std::optional<std::string>* next) override {
    const Checkpoint cp = decode(position).value_or(Checkpoint{});
    Json repo = fetch_page(cp);
    check_rename(repo);
    const Json& conn = at(repo, {"issues"});
    if (!at(conn, {"nodes"}).is_array())
      throw UserError("POST " + endpoint_ + ": no issues connection in the answer");
    if (at(conn, {"pageInfo", "hasNextPage"}) == true) {
      auto cursor = opt_string(at(conn, {"pageInfo"}), "endCursor");
      if (!cursor) throw UserError("POST " + endpoint_ + ": hasNextPage without an endCursor");
      *next = encode(Checkpoint{cp.since, *cursor});
    }
    {
      std::vector<std::int64_t> numbers;
      for (const Json& node : conn["nodes"])
        if (auto n = opt_int(node, "number")) numbers.push_back(*n);
      listing(position, numbers, *next, opt_int(conn, "totalCount"));
    }

    bool stop = false;
    std::vector<FetchedIssue> items;
    for (const Json& node : conn["nodes"]) {
      auto number = opt_int(node, "number");
      if (!node.is_object() || !number)
        throw UserError("POST " + endpoint_ + ": an issue without a number");
      Json issue = issue_from_graphql(node);
      if (at(node, {"labels", "pageInfo", "hasNextPage"}) == true) {
        Json more = all_nodes(*number, node, "labels", kIssueLabelsQuery);
        issue["labels"] = Json::array();
        for (const Json& l : more)
          if (at(l, {"name"}).is_string()) issue["labels"].push_back({{"name", l["name"]}});
      }
      std::vector<std::string> labels = issue_label_names(issue);
      auto has = [&](const std::string& l) {
        return std::find(labels.begin(), labels.end(), l) != labels.end();
      };
      // REST's labels= asks for issues carrying all of them; filter client-side too.
      if (!std::all_of(o_.labels.begin(), o_.labels.end(), has)) continue;
      std::optional<FetchedIssue> it = admit(issue, *number, &stop);
      if (stop) {
        *next = position;  // revisit this page next run
        break;
      }
      if (!it) continue;
      it->have_comments = o_.comments;
      it->have_timeline = o_.timeline;
      if (it->details) {
        if (o_.comments)
          for (const Json& c : all_nodes(*number, node, "comments", kIssueCommentsQuery))
            it->comments.push_back(comment_from_graphql(c));
        if (o_.timeline)
          for (const Json& t : all_nodes(*number, node, "timelineItems", kIssueTimelineQuery))
            if (auto e = event_from_graphql(t)) it->timeline.push_back(std::move(*e));
      }
      items.push_back(std::move(*it));
    }
    store(items, endpoint_, changed, *next, {});
    return stop;
  }

  // GraphQL answers a renamed repository under its new name: store it under that name.
  void check_rename(const Json& repo) {
    auto now = opt_string(repo, "nameWithOwner");
    if (!now || *now == repo_name_) return;
    if (iequals(*now, repo_name_)) return;  // the same repository, spelled otherwise
    renamed(*now, std::nullopt);
  }

  std::string endpoint_;
  int page_size_ = 100;
  // Page size recovery: after grow_after_ good pages in a row at a reduced size, double it;
  // when the doubled size fails at once, wait twice as long before the next try.
  int good_pages_ = 0;
  int grow_after_ = 3;
  bool just_grew_ = false;
  std::string shrink_reason_;
};

}  // namespace

CrawlSummary crawl_graphql(Db& db, const CrawlOptions& options,
                           const std::function<void(const std::string&)>& notice,
                           const CrawlProgress& progress) {
  GraphQLWalk c(db, options, notice, progress);
  return c.run();
}

}  // namespace convfail::crawler
