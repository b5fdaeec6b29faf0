#include "core/issue_queries.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/text.h"

namespace convfail {
namespace {

// Columns 0..13 of every summary query; labels come group_concat'ed with the unit separator.
const char* kSummaryColumns =
    "i.id, r.full_name, i.number, i.title, i.state, i.author, i.created_at, i.updated_at, "
    "i.closed_at, i.html_url, i.is_pull_request, i.has_fix_link, "
    "(SELECT count(*) FROM comments c WHERE c.issue_id=i.id), "
    "(SELECT group_concat(name, char(31)) FROM issue_labels l WHERE l.issue_id=i.id) "
    "FROM issues i JOIN repositories r ON r.id=i.repo_id ";

IssueSummary read_summary(const Stmt& st) {
  IssueSummary s;
  s.id = st.int64(0);
  s.repo = st.text(1);
  s.number = st.int64(2);
  s.title = st.text(3);
  s.state = st.opt_text(4);
  s.author = st.opt_text(5);
  s.created_at = st.opt_text(6);
  s.updated_at = st.opt_text(7);
  s.closed_at = st.opt_text(8);
  s.html_url = st.opt_text(9);
  s.is_pull_request = st.int64(10) != 0;
  s.has_fix_link = st.int64(11) != 0;
  s.stored_comments = st.int64(12);
  std::string labels = st.text(13);
  std::size_t pos = 0;
  while (!labels.empty() && pos <= labels.size()) {
    std::size_t end = labels.find('\x1f', pos);
    if (end == std::string::npos) end = labels.size();
    s.labels.push_back(labels.substr(pos, end - pos));
    pos = end + 1;
  }
  std::sort(s.labels.begin(), s.labels.end());
  return s;
}

// Snippets come from bodies with newlines and runs of spaces: make them one readable line.
std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
  }
  return out;
}

struct FtsRow {
  std::int64_t issue_id;
  double score;
  std::int64_t row;  // rowid in the FTS table: the issue or the comment
  std::string author;
};

const std::string& kOpen = kSnippetOpen;
const std::string& kClose = kSnippetClose;

// Runs one MATCH query. Returns false when FTS5 reports "no such column" (a column filter that
// only exists in the other index); throws UserError for a query it cannot parse.
bool run_match(Db& db, const std::string& sql, const std::string& query, std::vector<FtsRow>& out) {
  Stmt st(db, sql);
  st.bind(1, query);
  while (true) {
    int rc = sqlite3_step(st.handle());
    if (rc == SQLITE_DONE) return true;
    if (rc != SQLITE_ROW) {
      std::string msg = sqlite3_errmsg(db.handle());
      if (msg.find("no such column") != std::string::npos) return false;
      throw UserError("cannot run search query " + quoted_excerpt(query, 200) + ": " + msg +
                      " (FTS5 syntax: wrap words with punctuation in double quotes, e.g. "
                      "'\"torch.onnx\"', or search without --fts)");
    }
    out.push_back({st.int64(0), st.real(1), st.int64(2), st.text(3)});
  }
}

// The highlighted text of one matching row (column `col`), "" when it has none.
std::string highlighted(Db& db, const char* table, int col, const std::string& query,
                        std::int64_t rowid) {
  std::string t(table);
  Stmt st(db, "SELECT highlight(" + t + ", " + std::to_string(col) + ", ?1, ?2) FROM " + t +
                  " WHERE " + t + " MATCH ?3 AND rowid = ?4");
  st.bind(1, kOpen).bind(2, kClose).bind(3, query).bind(4, rowid);
  return st.step() ? st.text(0) : std::string();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// Bare words only (no operator, quote, column filter, group): AND of words, where a repeated
// word adds nothing but cost (FTS5's per-row work grows with phrases x matches).
std::string without_repeated_words(const std::string& query) {
  std::vector<std::string> words, seen;
  std::string word;
  std::istringstream in(query);
  while (in >> word) {
    for (char c : word) {
      auto u = static_cast<unsigned char>(c);
      if (!(std::isalnum(u) || u == '_' || u >= 0x80)) return query;  // FTS5 syntax: keep
    }
    if (word == "AND" || word == "OR" || word == "NOT" || word == "NEAR") return query;
    std::string key = lower(word);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    words.push_back(word);
  }
  return join(words, " ");
}

}  // namespace

std::string make_snippet(const std::string& text, int tokens, const std::string& open,
                         const std::string& close) {
  // Tokens as FTS5's unicode61 tokenizer sees them, roughly: runs of ASCII letters and digits
  // and of non-ASCII bytes. A token is a match when it lies between kOpen and kClose (which FTS5
  // puts at token boundaries). One pass.
  struct Token {
    std::size_t begin, end;
    bool hit;
  };
  auto token_byte = [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || u >= 0x80;
  };
  std::vector<Token> toks;
  bool inside = false;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, kOpen.size(), kOpen) == 0) {
      inside = true;
      i += kOpen.size();
    } else if (text.compare(i, kClose.size(), kClose) == 0) {
      inside = false;
      i += kClose.size();
    } else if (token_byte(text[i])) {
      std::size_t b = i;
      while (i < text.size() && token_byte(text[i])) ++i;
      toks.push_back({b, i, inside});
    } else {
      ++i;
    }
  }
  if (toks.empty()) return "";
  // The window of `tokens` tokens with the most matches (a sliding count).
  std::size_t n = toks.size(), w = std::min<std::size_t>(n, tokens > 0 ? tokens : 16);
  std::size_t hits = 0, best = 0, first = 0;
  for (std::size_t k = 0; k < n; ++k) {
    hits += toks[k].hit;
    if (k >= w) hits -= toks[k - w].hit;
    if (k + 1 >= w && hits > best) best = hits, first = k + 1 - w;
  }
  if (best > 0) {  // centre the matches of the window
    std::size_t f = first, l = first + w - 1;
    while (!toks[f].hit) ++f;
    while (!toks[l].hit) --l;
    std::size_t slack = w - (l - f + 1);
    first = std::min(f > slack / 2 ? f - slack / 2 : 0, n - w);
  }
  const Token& a = toks[first];
  const Token& z = toks[first + w - 1];
  std::string out = first > 0 ? "..." : "";
  if (a.hit) out += open;  // its kOpen lies before the window
  for (std::size_t i = a.begin; i < z.end;) {
    if (text.compare(i, kOpen.size(), kOpen) == 0) {
      out += open;
      i += kOpen.size();
    } else if (text.compare(i, kClose.size(), kClose) == 0) {
      out += close;
      i += kClose.size();
    } else {
      out += text[i++];
    }
  }
  if (z.hit) out += close;  // its kClose lies after the window
  if (first + w < n) out += "...";
  return out;
}

namespace {

Json opt_json(const std::optional<std::string>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace

namespace {

// " FROM issues i JOIN repositories r ... WHERE ..." of a filter, and the binding of its values.
std::string filter_sql(const IssueFilter& filter) {
  std::string sql = " FROM issues i JOIN repositories r ON r.id=i.repo_id WHERE 1=1";
  if (!filter.repos.empty()) {
    sql += " AND r.full_name IN (?";
    for (std::size_t k = 1; k < filter.repos.size(); ++k) sql += ",?";
    sql += ")";
  }
  if (filter.state) sql += " AND i.state = ? COLLATE NOCASE";
  for (std::size_t k = 0; k < filter.labels.size(); ++k) {
    sql +=
        " AND EXISTS (SELECT 1 FROM issue_labels l WHERE l.issue_id=i.id AND l.name = ? COLLATE "
        "NOCASE)";
  }
  if (filter.fixed_only) sql += " AND i.has_fix_link = 1";
  if (!filter.include_pull_requests) sql += " AND i.is_pull_request = 0";
  if (filter.ids) sql += " AND i.id IN (SELECT value FROM json_each(?))";
  return sql;
}

int bind_filter(Stmt& st, const IssueFilter& filter) {
  int k = 1;
  for (const std::string& repo : filter.repos) st.bind(k++, repo);
  if (filter.state) st.bind(k++, *filter.state);
  for (const std::string& label : filter.labels) st.bind(k++, label);
  if (filter.ids) st.bind(k++, Json(*filter.ids).dump());
  return k;
}

}  // namespace

std::vector<IssueSummary> list_issues(Db& db, const IssueFilter& filter) {
  // The filter and order pick the ids; the summary columns (two subqueries per row) are then
  // computed for the rows of the page only, not for every row the sort sees.
  const char* order = " ORDER BY i.created_at DESC, r.full_name, i.number DESC";
  std::string sql = "SELECT i.id" + filter_sql(filter) + order;
  if (filter.limit > 0 || filter.offset > 0) sql += " LIMIT ? OFFSET ?";
  sql = std::string("SELECT ") + kSummaryColumns + "WHERE i.id IN (" + sql + ")" + order;
  Stmt st(db, sql);
  int k = bind_filter(st, filter);
  if (filter.limit > 0 || filter.offset > 0) {
    st.bind(k++, filter.limit > 0 ? filter.limit : std::int64_t{-1});
    st.bind(k++, filter.offset);
  }
  std::vector<IssueSummary> out;
  while (st.step()) out.push_back(read_summary(st));
  return out;
}

std::vector<std::string> stored_repositories(Db& db) {
  std::vector<std::string> out;
  Stmt st(db, "SELECT full_name FROM repositories ORDER BY full_name");
  while (st.step()) out.push_back(st.text(0));
  return out;
}

std::int64_t count_issues(Db& db, const IssueFilter& filter) {
  Stmt st(db, "SELECT count(*)" + filter_sql(filter));
  bind_filter(st, filter);
  st.step();
  return st.int64(0);
}

std::optional<IssueDetail> get_issue(Db& db, const IssueRef& ref) {
  Stmt base(db,
            std::string("SELECT ") + kSummaryColumns + "WHERE r.full_name = ? AND i.number = ?");
  base.bind(1, ref.repo).bind(2, ref.number);
  if (!base.step()) return std::nullopt;
  IssueDetail d;
  d.summary = read_summary(base);
  Stmt extra(db,
             "SELECT body, author_association, comment_count, body_truncated FROM issues "
             "WHERE id = ?");
  extra.bind(1, d.summary.id);
  if (extra.step()) {
    d.body = extra.opt_text(0);
    d.author_association = extra.opt_text(1);
    d.reported_comments = extra.opt_int64(2);
    d.body_truncated = extra.int64(3) != 0;
  }
  Stmt comments(db,
                "SELECT author, author_association, created_at, body FROM comments "
                "WHERE issue_id = ? ORDER BY position");
  comments.bind(1, d.summary.id);
  while (comments.step()) {
    d.comments.push_back(
        {comments.opt_text(0), comments.opt_text(1), comments.opt_text(2), comments.opt_text(3)});
  }
  Stmt events(db,
              "SELECT event, actor, created_at, commit_id, source_repo, source_number "
              "FROM timeline_events WHERE issue_id = ? ORDER BY position");
  events.bind(1, d.summary.id);
  while (events.step()) {
    d.timeline.push_back({events.opt_text(0), events.opt_text(1), events.opt_text(2),
                          events.opt_text(3), events.opt_text(4), events.opt_int64(5)});
  }
  return d;
}

std::string fts_literal(const std::string& text) {
  // Words split at whitespace; "a quoted phrase" (a word starting with a quote that closes later)
  // is one word.
  std::vector<std::pair<std::string, bool>> words;  // (text, was a quoted phrase)
  std::size_t i = 0;
  auto space = [&](std::size_t k) { return std::isspace(static_cast<unsigned char>(text[k])); };
  while (i < text.size()) {
    if (space(i)) {
      ++i;
      continue;
    }
    std::size_t close = text[i] == '"' ? text.find('"', i + 1) : std::string::npos;
    if (close != std::string::npos) {
      words.emplace_back(text.substr(i + 1, close - i - 1), true);
      i = close + 1;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !space(end)) ++end;
    words.emplace_back(text.substr(i, end - i), false);
    i = end;
  }
  std::string out;
  std::vector<std::string> seen;
  for (const auto& [word, phrase] : words) {
    bool bare = !phrase, indexed = false;
    for (char ch : word) {
      auto u = static_cast<unsigned char>(ch);
      bool token = std::isalnum(u) || u >= 0x80;
      indexed = indexed || token;
      bare = bare && (token || ch == '_');
    }
    if (!indexed) continue;
    if (word == "AND" || word == "OR" || word == "NOT" || word == "NEAR") bare = false;
    std::string key = lower(word);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    std::string quoted = bare ? word : "\"";
    if (!bare) {
      for (char ch : word) {
        if (ch == '"') quoted += '"';  // FTS5 escapes a quote by doubling it
        quoted += ch;
      }
      quoted += '"';
    }
    if (!out.empty()) out += ' ';
    out += quoted;
  }
  return out;
}

namespace {

// The query as FTS5 gets it: a literal phrase search unless `fts`; UsageError for one too long or
// with nothing to search for.
std::string checked_search_query(const std::string& raw_query, bool fts) {
  std::size_t characters = 0;  // UTF-8: every byte that does not continue a character
  for (char c : raw_query) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (characters > kMaxSearchQueryLength) {
    throw UsageError("the search query is " + std::to_string(characters) +
                     " characters long; the limit is " + std::to_string(kMaxSearchQueryLength));
  }
  std::string query = fts ? without_repeated_words(raw_query) : fts_literal(raw_query);
  if (query.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UsageError(raw_query.find_first_not_of(" \t\r\n") == std::string::npos
                         ? "empty search query"
                         : "the search query " + quoted_excerpt(raw_query, 200) +
                               " has no letter or digit to search for");
  return query;
}

// The matches of one issue: its title/body score and its best comments.
struct MatchGroup {
  double issue_score = 0;
  bool issue_matched = false;
  double best_comment = 0;
  std::int64_t comments = 0;
  std::vector<std::pair<std::int64_t, std::string>> best_comments;  // (comment id, author)
};

// Group per issue: score = title/body score + best comment score (both negative, lower is
// better), so an issue matching in its text and its thread ranks above one matching in either.
std::map<std::int64_t, MatchGroup> group_matches(const std::vector<FtsRow>& issue_rows,
                                                 const std::vector<FtsRow>& comment_rows) {
  std::map<std::int64_t, MatchGroup> groups;
  for (const FtsRow& r : issue_rows) {
    MatchGroup& g = groups[r.issue_id];
    g.issue_score = r.score;
    g.issue_matched = true;
  }
  for (const FtsRow& r : comment_rows) {  // already best first
    MatchGroup& g = groups[r.issue_id];
    if (g.comments == 0) g.best_comment = r.score;
    ++g.comments;
    if (g.best_comments.size() < 2) g.best_comments.emplace_back(r.row, r.author);
  }
  return groups;
}

// The issues a hit may be (filter, pull requests): one query for all, when a filter or the
// total asks for it (nullopt otherwise: each hit is checked as it is built). Sets *total.
std::optional<std::set<std::int64_t>> allowed_hits(
    Db& db, const SearchOptions& options, const std::vector<std::pair<double, std::int64_t>>& order,
    std::int64_t* total) {
  if (!options.where && !total) return std::nullopt;
  IssueFilter f = options.where.value_or(IssueFilter{});
  f.include_pull_requests = options.include_pull_requests;
  Stmt ids(db, "SELECT i.id" + filter_sql(f));
  bind_filter(ids, f);
  std::set<std::int64_t> allowed;
  while (ids.step()) allowed.insert(ids.int64(0));
  std::int64_t n = 0;
  for (const auto& entry : order) n += allowed.count(entry.second);
  if (total) *total = n;
  return allowed;
}

}  // namespace

std::vector<SearchHit> search_issues(Db& db, const std::string& raw_query,
                                     const SearchOptions& options, std::int64_t* total) {
  const std::string query = checked_search_query(raw_query, options.fts);

  // Ranking first, without snippets; snippets only for the hits printed (see make_snippet).
  // Title matches weigh twice as much as body matches.
  std::vector<FtsRow> issue_rows, comment_rows;
  bool issues_ok = run_match(db,
                             "SELECT rowid, bm25(issues_fts, 2.0, 1.0), rowid, '' FROM issues_fts "
                             "WHERE issues_fts MATCH ?1",
                             query, issue_rows);
  bool comments_ok = run_match(
      db,
      "SELECT c.issue_id, bm25(comments_fts), c.id, coalesce(c.author, '?') FROM comments_fts "
      "JOIN comments c ON c.id = comments_fts.rowid WHERE comments_fts MATCH ?1 "
      "ORDER BY bm25(comments_fts)",
      query, comment_rows);

  if (!issues_ok && !comments_ok) {
    throw UserError("cannot run search query " + quoted_excerpt(query, 200) +
                    ": no such column (searchable columns: title, body)");
  }

  std::map<std::int64_t, MatchGroup> groups = group_matches(issue_rows, comment_rows);
  std::vector<std::pair<double, std::int64_t>> order;
  order.reserve(groups.size());
  for (auto& [id, g] : groups) order.emplace_back(g.issue_score + g.best_comment, id);
  std::sort(order.begin(), order.end());
  const std::optional<std::set<std::int64_t>> allowed = allowed_hits(db, options, order, total);

  std::vector<SearchHit> hits;
  std::int64_t skipped = 0;
  Stmt one(db, std::string("SELECT ") + kSummaryColumns + "WHERE i.id = ?");
  auto snippet = [&](const std::string& text) {
    return one_line(make_snippet(text, options.snippet_tokens, options.highlight_open,
                                 options.highlight_close));
  };
  for (auto& [score, id] : order) {
    if (options.limit > 0 && static_cast<std::int64_t>(hits.size()) >= options.limit) break;
    if (allowed && !allowed->count(id)) continue;
    one.bind(1, id);
    bool found = one.step();
    IssueSummary s;
    if (found) s = read_summary(one);
    one.reset();
    if (!found || (s.is_pull_request && !options.include_pull_requests)) continue;
    if (skipped < options.offset) {
      ++skipped;
      continue;
    }
    MatchGroup& g = groups[id];
    SearchHit h;
    h.issue = std::move(s);
    h.score = score;
    h.matching_comments = g.comments;
    if (g.issue_matched) {
      // The column with more matches, the title on a tie (as FTS5's snippet(-1) picks).
      std::string title = highlighted(db, "issues_fts", 0, query, id);
      std::string body = highlighted(db, "issues_fts", 1, query, id);
      bool use_body = count_of(body, kOpen) > count_of(title, kOpen);
      h.snippets.push_back({"title/body", snippet(use_body ? body : title)});
    }
    for (auto& [comment_id, author] : g.best_comments) {
      h.snippets.push_back(
          {"comment by " + author, snippet(highlighted(db, "comments_fts", 0, query, comment_id))});
    }
    hits.push_back(std::move(h));
  }
  return hits;
}

Json to_json(const IssueSummary& s) {
  return Json{{"repo", s.repo},
              {"number", s.number},
              {"title", s.title},
              {"state", opt_json(s.state)},
              {"author", opt_json(s.author)},
              {"labels", s.labels},
              {"created_at", opt_json(s.created_at)},
              {"updated_at", opt_json(s.updated_at)},
              {"closed_at", opt_json(s.closed_at)},
              {"html_url", opt_json(s.html_url)},
              {"is_pull_request", s.is_pull_request},
              {"has_fix_link", s.has_fix_link},
              {"stored_comments", s.stored_comments}};
}

Json to_json(const IssueDetail& d) {
  Json j = to_json(d.summary);
  j["body"] = opt_json(d.body);
  j["author_association"] = opt_json(d.author_association);
  j["reported_comments"] = d.reported_comments ? Json(*d.reported_comments) : Json(nullptr);
  j["body_truncated"] = d.body_truncated;
  Json comments = Json::array();
  for (const CommentView& c : d.comments) {
    comments.push_back({{"author", opt_json(c.author)},
                        {"author_association", opt_json(c.author_association)},
                        {"created_at", opt_json(c.created_at)},
                        {"body", opt_json(c.body)}});
  }
  j["comments"] = std::move(comments);
  Json timeline = Json::array();
  for (const TimelineEventView& e : d.timeline) {
    timeline.push_back(
        {{"event", opt_json(e.event)},
         {"actor", opt_json(e.actor)},
         {"created_at", opt_json(e.created_at)},
         {"commit_id", opt_json(e.commit_id)},
         {"source_repo", opt_json(e.source_repo)},
         {"source_number", e.source_number ? Json(*e.source_number) : Json(nullptr)}});
  }
  j["timeline"] = std::move(timeline);
  return j;
}

Json to_json(const SearchHit& h) {
  Json j = to_json(h.issue);
  j["score"] = h.score;
  j["matching_comments"] = h.matching_comments;
  Json snippets = Json::array();
  for (const SearchSnippet& s : h.snippets)
    snippets.push_back({{"where", s.where}, {"text", s.text}});
  j["snippets"] = std::move(snippets);
  return j;
}

IssueStats compute_stats(Db& db, int top_labels,
                         const std::function<std::string(const std::string&)>& converter_of) {
  IssueStats s;
  Stmt repos(db,
             "SELECT r.full_name, "
             "  sum(i.is_pull_request = 0), sum(i.is_pull_request = 1), "
             "  sum(i.is_pull_request = 0 AND i.state = 'open'), "
             "  sum(i.is_pull_request = 0 AND i.state = 'closed'), "
             "  sum(i.is_pull_request = 0 AND i.has_fix_link = 1), "
             "  (SELECT count(*) FROM comments c JOIN issues j ON j.id = c.issue_id "
             "   WHERE j.repo_id = r.id) "
             "FROM repositories r JOIN issues i ON i.repo_id = r.id "
             "GROUP BY r.id ORDER BY sum(i.is_pull_request = 0) DESC, r.full_name");
  while (repos.step()) {
    RepoStats r;
    r.repo = repos.text(0);
    r.converter = converter_of ? converter_of(r.repo) : r.repo;
    r.issues = repos.int64(1);
    r.pull_requests = repos.int64(2);
    r.open = repos.int64(3);
    r.closed = repos.int64(4);
    r.with_fix_link = repos.int64(5);
    r.comments = repos.int64(6);
    s.issues += r.issues;
    s.pull_requests += r.pull_requests;
    s.with_fix_link += r.with_fix_link;
    s.per_repo.push_back(std::move(r));
  }
  s.repositories = static_cast<std::int64_t>(s.per_repo.size());
  s.comments = db.scalar("SELECT count(*) FROM comments");
  s.timeline_events = db.scalar("SELECT count(*) FROM timeline_events");
  Stmt states(db,
              "SELECT coalesce(state, '(none)'), count(*) FROM issues WHERE is_pull_request = 0 "
              "GROUP BY 1 ORDER BY 2 DESC, 1");
  while (states.step()) s.states.emplace_back(states.text(0), states.int64(1));
  Stmt labels(db,
              "SELECT l.name, count(*) FROM issue_labels l JOIN issues i ON i.id = l.issue_id "
              "WHERE i.is_pull_request = 0 GROUP BY l.name ORDER BY 2 DESC, 1");
  while (labels.step()) {
    ++s.distinct_labels;
    if (static_cast<int>(s.labels.size()) < top_labels)
      s.labels.emplace_back(labels.text(0), labels.int64(1));
  }
  return s;
}

}  // namespace convfail
