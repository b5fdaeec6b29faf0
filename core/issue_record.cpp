#include "core/issue_record.h"

#include <re2/re2.h>

#include "core/error.h"
#include "core/text.h"

namespace convfail {
namespace {

// A time field as stored: its instant in UTC (core/text utc_time: "+14:00" and "Z" times compare
// by when they happened), or the text as it came when it is no time.
std::optional<std::string> stored_time(const Json& obj, const char* key) {
  std::optional<std::string> t = opt_string(obj, key);
  if (t)
    if (auto utc = utc_time(*t)) return utc;
  return t;
}

// Author: REST user.login, or flattened "author".
std::optional<std::string> author_of(const Json& j) {
  if (auto login = opt_nested_string(j, "user", "login")) return login;
  return opt_string(j, "author");
}

// The raw JSON we keep for an issue: the object without embedded comment/timeline arrays
// (those are stored in their own tables). Serialised key by key rather than copying the object;
// `body`, when given, replaces the object's "body" (a truncated one).
std::string issue_raw(const Json& issue, const std::string* body = nullptr) {
  std::string out = "{";
  for (auto it = issue.begin(); it != issue.end(); ++it) {
    if (it.key() == "timeline" || (it.key() == "comments" && it->is_array())) continue;
    if (out.size() > 1) out += ',';
    out += Json(it.key()).dump();
    out += ':';
    out += body && it.key() == "body" ? Json(*body).dump() : it->dump();
  }
  return out + "}";
}

// A body over the limit (only accepted when truncating): cut it, and say so.
bool truncate_body(std::optional<std::string>& body, const FieldLimits& limits) {
  if (!body || body->size() <= limits.max_field_bytes) return false;
  *body = truncate_utf8(*body, limits.max_field_bytes);
  return true;
}

// Fields outside the schema are kept in raw_json: bound them too.
void check_raw_size(const std::string& raw, const FieldLimits& limits) {
  std::size_t limit = limits.max_field_bytes + (std::size_t{1} << 20);
  if (raw.size() > limit) {
    throw UserError("object: " + std::to_string(raw.size()) +
                    " bytes of JSON (without comments and timeline), over the limit of " +
                    std::to_string(limit) + " bytes (--max-field-mb + 1 MB)");
  }
}

// Comments already checked against the schema (validate_comments).
std::vector<CommentRecord> checked_comment_records(const Json& comments,
                                                   const FieldLimits& limits) {
  std::vector<CommentRecord> out;
  out.reserve(comments.size());
  for (const Json& c : comments) {
    CommentRecord& r = out.emplace_back();
    r.body = opt_string(c, "body");
    r.body_truncated = truncate_body(r.body, limits);
    if (r.body_truncated) {
      Json copy = c;
      copy["body"] = *r.body;
      r.raw_json = copy.dump();
    } else {
      r.raw_json = c.dump();
    }
    check_raw_size(r.raw_json, limits);
    r.github_id = opt_int(c, "id");
    r.author = author_of(c);
    r.author_association = opt_string(c, "author_association");
    r.created_at = stored_time(c, "created_at");
    r.updated_at = stored_time(c, "updated_at");
  }
  return out;
}

// Events already checked against the schema (validate_timeline).
std::vector<EventRecord> checked_event_records(const Json& events, const FieldLimits& limits) {
  std::vector<EventRecord> out;
  out.reserve(events.size());
  for (const Json& e : events) {
    EventRecord& r = out.emplace_back();
    r.raw_json = e.dump();
    check_raw_size(r.raw_json, limits);
    auto src = e.find("source");
    if (src != e.end() && src->is_object() && src->contains("issue") &&
        (*src)["issue"].is_object()) {
      const Json& si = (*src)["issue"];
      r.source_repo = opt_nested_string(si, "repository", "full_name");
      if (!r.source_repo) r.source_repo = repo_from_issue_urls(si);
      r.source_number = opt_int(si, "number");
      r.source_state = opt_string(si, "state");
      r.source_is_pull_request = static_cast<std::int64_t>(is_pull_request(si));
    }
    auto [actor, date] = timeline_actor_and_date(e);
    if (date)
      if (auto utc = utc_time(*date)) date = utc;
    r.event = opt_string(e, "event");
    r.actor = std::move(actor);
    r.created_at = std::move(date);
    r.commit_id = opt_string(e, "commit_id");
  }
  return out;
}

std::size_t heap_bytes(const std::string& s) {
  return s.capacity() + 1;
}
std::size_t heap_bytes(const std::optional<std::string>& s) {
  return s ? heap_bytes(*s) : 0;
}

}  // namespace

std::size_t IssueRecord::bytes() const {
  std::size_t n = sizeof(*this) + heap_bytes(repo) + heap_bytes(title) + heap_bytes(raw_json);
  for (const auto* s : {&body, &state, &author, &author_association, &created_at, &updated_at,
                        &closed_at, &html_url})
    n += heap_bytes(*s);
  for (const std::string& l : labels) n += sizeof(l) + heap_bytes(l);
  if (comments)
    for (const CommentRecord& c : *comments) {
      n += sizeof(c) + heap_bytes(c.raw_json);
      for (const auto* s :
           {&c.author, &c.author_association, &c.created_at, &c.updated_at, &c.body})
        n += heap_bytes(*s);
    }
  if (timeline)
    for (const EventRecord& e : *timeline) {
      n += sizeof(e) + heap_bytes(e.raw_json);
      for (const auto* s :
           {&e.event, &e.actor, &e.created_at, &e.commit_id, &e.source_repo, &e.source_state})
        n += heap_bytes(*s);
    }
  return n;
}

IssueRecord issue_record(const Json& issue, std::optional<std::string_view> raw_text,
                         const FieldLimits& limits,
                         const std::function<std::string(const Json&)>& repo_of) {
  validate_issue(issue, limits);  // embedded comments and timeline included
  IssueRecord r;
  r.number = checked_issue_number(issue["number"]);
  r.body = opt_string(issue, "body");
  r.body_truncated = truncate_body(r.body, limits);
  r.raw_json = r.body_truncated ? issue_raw(issue, &*r.body)
               : raw_text       ? std::string(*raw_text)
                                : issue_raw(issue);
  check_raw_size(r.raw_json, limits);
  auto c = issue.find("comments");
  if (c != issue.end() && c->is_array()) r.comments = checked_comment_records(*c, limits);
  auto t = issue.find("timeline");
  if (t != issue.end() && !t->is_null()) r.timeline = checked_event_records(*t, limits);
  r.repo = repo_of(issue);
  if (t != issue.end() && !t->is_null()) r.has_fix_link = timeline_has_fix_link(r.repo, *t);
  r.github_id = opt_int(issue, "id");
  r.comment_count = opt_int(issue, "comments");
  if (!r.comment_count && r.comments)
    r.comment_count = static_cast<std::int64_t>(r.comments->size());
  r.title = opt_string(issue, "title").value_or("");
  r.state = opt_string(issue, "state");
  r.author = author_of(issue);
  r.author_association = opt_string(issue, "author_association");
  r.created_at = stored_time(issue, "created_at");
  r.updated_at = stored_time(issue, "updated_at");
  r.closed_at = stored_time(issue, "closed_at");
  r.html_url = opt_string(issue, "html_url");
  r.is_pull_request = is_pull_request(issue);
  r.labels = issue_label_names(issue);
  return r;
}

std::vector<CommentRecord> comment_records(const Json& comments, const FieldLimits& limits) {
  validate_comments(comments, limits);
  return checked_comment_records(comments, limits);
}

std::vector<EventRecord> event_records(const Json& events, const FieldLimits& limits) {
  validate_timeline(events, limits);
  return checked_event_records(events, limits);
}

std::vector<std::string> issue_label_names(const Json& issue) {
  std::vector<std::string> out;
  auto it = issue.find("labels");
  if (it == issue.end() || !it->is_array()) return out;
  for (const Json& l : *it) {
    if (l.is_string()) {
      out.push_back(l.get<std::string>());
    } else if (l.is_object()) {
      if (auto n = opt_string(l, "name")) out.push_back(*n);
    }
  }
  return out;
}

std::optional<std::string> repo_from_issue_urls(const Json& issue) {
  static const RE2 api(R"(/repos/([^/]+)/([^/?#]+)/?$)");
  static const RE2 html(R"(^https?://[^/]+/([^/]+)/([^/]+)/(?:issues|pull)/\d+)");
  std::string owner, name;
  if (auto u = opt_string(issue, "repository_url")) {
    if (RE2::PartialMatch(*u, api, &owner, &name)) return owner + "/" + name;
  }
  if (auto u = opt_string(issue, "html_url")) {
    if (RE2::PartialMatch(*u, html, &owner, &name)) return owner + "/" + name;
  }
  return std::nullopt;
}

bool is_pull_request(const Json& issue) {
  if (!issue.is_object()) return false;
  auto pr = issue.find("pull_request");
  if (pr == issue.end() || pr->is_null()) return false;
  if (!pr->is_object()) return true;
  for (const Json& v : *pr)
    if (!v.is_null()) return true;
  return false;
}

std::pair<std::optional<std::string>, std::optional<std::string>> timeline_actor_and_date(
    const Json& e) {
  std::optional<std::string> actor = opt_nested_string(e, "actor", "login");
  std::optional<std::string> date = opt_string(e, "created_at");
  std::string event = opt_string(e, "event").value_or("");
  if (event == "committed") {
    for (const char* who : {"author", "committer"}) {
      for (const char* field : {"name", "email", "login"})
        if (!actor) actor = opt_nested_string(e, who, field);
      if (!date) date = opt_nested_string(e, who, "date");
    }
  } else if (event == "reviewed") {
    if (!actor) actor = opt_nested_string(e, "user", "login");
    if (!date) date = opt_string(e, "submitted_at");
  } else if (event == "line-commented") {
    auto c = e.find("comments");
    if (c != e.end() && c->is_array() && !c->empty() && (*c)[0].is_object()) {
      if (!actor) actor = opt_nested_string((*c)[0], "user", "login");
      if (!date) date = opt_string((*c)[0], "created_at");
    }
  }
  return {actor, date};
}

bool timeline_has_fix_link(const std::string& repo, const Json& events) {
  if (!events.is_array()) return false;
  auto same_repo = [&](const std::string& other) { return iequals(repo, other); };
  for (const Json& e : events) {
    if (!e.is_object()) continue;
    std::string event = opt_string(e, "event").value_or("");
    bool has_commit = opt_string(e, "commit_id").has_value();
    if ((event == "closed" || event == "referenced") && has_commit) return true;
    if (event == "connected") return true;
    if (event == "cross-referenced") {
      auto src = e.find("source");
      if (src == e.end() || !src->is_object()) continue;
      auto issue = src->find("issue");
      if (issue == src->end() || !issue->is_object()) continue;
      if (opt_string(*issue, "state").value_or("") != "closed") continue;
      std::optional<std::string> src_repo = opt_nested_string(*issue, "repository", "full_name");
      if (!src_repo) src_repo = repo_from_issue_urls(*issue);
      if (src_repo && same_repo(*src_repo)) return true;
    }
  }
  return false;
}

}  // namespace convfail
