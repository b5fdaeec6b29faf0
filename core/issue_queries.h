// Read-side queries over the issue store: listing with filters, one issue with its thread, and
// full-text search (FTS5, bm25-ranked, grouped per issue, with highlighted snippets).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/db.h"
#include "core/issue_ref.h"
#include "core/json_util.h"

namespace convfail {

// One row of a listing: what `list` prints and what search hits carry.
struct IssueSummary {
  std::int64_t id = 0;
  std::string repo;
  std::int64_t number = 0;
  std::string title;
  std::optional<std::string> state;
  std::optional<std::string> author;
  std::vector<std::string> labels;  // sorted by name
  std::optional<std::string> created_at;
  std::optional<std::string> updated_at;
  std::optional<std::string> closed_at;
  std::optional<std::string> html_url;
  bool is_pull_request = false;
  bool has_fix_link = false;
  std::int64_t stored_comments = 0;
};

struct IssueFilter {
  std::vector<std::string> repos;    // any of these "owner/name" (case-insensitive); empty: all
  std::optional<std::string> state;  // open | closed
  std::vector<std::string> labels;   // every label must be present (case-insensitive)
  bool fixed_only = false;           // has_fix_link = 1
  bool include_pull_requests = false;
  // Only these issues (ids found by another module's reader: a label set, a verdict); set and
  // empty: none.
  std::optional<std::vector<std::int64_t>> ids;
  std::int64_t limit = 0;   // 0: no limit
  std::int64_t offset = 0;  // skip this many first (with a limit: one page)
};

// Issues matching the filter, newest first (created_at, then number).
std::vector<IssueSummary> list_issues(Db& db, const IssueFilter& filter);
// How many issues match the filter (limit and offset aside): the total of a paged listing.
std::int64_t count_issues(Db& db, const IssueFilter& filter);

// The stored repositories (OWNER/NAME), sorted.
std::vector<std::string> stored_repositories(Db& db);

struct CommentView {
  std::optional<std::string> author;
  std::optional<std::string> author_association;
  std::optional<std::string> created_at;
  std::optional<std::string> body;
};

struct TimelineEventView {
  std::optional<std::string> event;
  std::optional<std::string> actor;
  std::optional<std::string> created_at;
  std::optional<std::string> commit_id;
  std::optional<std::string> source_repo;
  std::optional<std::int64_t> source_number;
};

struct IssueDetail {
  IssueSummary summary;
  std::optional<std::string> body;
  std::optional<std::string> author_association;
  std::optional<std::int64_t> reported_comments;  // GitHub's count; stored ones may be fewer
  bool body_truncated = false;                    // imported with --truncate-long-fields and cut
  std::vector<CommentView> comments;
  std::vector<TimelineEventView> timeline;
};

// The issue with its comments and timeline; nullopt when it is not stored.
std::optional<IssueDetail> get_issue(Db& db, const IssueRef& ref);

struct SearchOptions {
  std::int64_t limit = 20;  // issues; 0: no limit
  std::int64_t offset = 0;  // skip this many first hits (with limit: one page)
  // Only issues this filter lists (its repos, state, labels, ids; its limit and offset aside).
  std::optional<IssueFilter> where;
  bool include_pull_requests = false;
  // The query is FTS5 syntax (phrases, OR, NOT, prefix*, column:filters). By default it is not:
  // each whitespace-separated word is searched as it is (fts_literal), so code such as
  // torch.onnx.export, opset_version=11 or aten::zero needs no quoting.
  bool fts = false;
  std::string highlight_open = "[";
  std::string highlight_close = "]";
  int snippet_tokens = 16;
};

struct SearchSnippet {
  std::string where;  // "title/body" or "comment by LOGIN"
  std::string text;   // one line, matches wrapped in the highlight markers
};

struct SearchHit {
  IssueSummary issue;
  double score = 0;  // bm25: lower is better (title/body score + best comment score)
  std::int64_t matching_comments = 0;
  std::vector<SearchSnippet> snippets;  // title/body first, then up to two comments
};

// Longest query search_issues accepts (UsageError beyond).
inline constexpr std::size_t kMaxSearchQueryLength = 1000;

// Runs an FTS5 query over titles, bodies and comments. Throws UserError for a query FTS5
// cannot parse (the message says how to quote). Ranks all matches by bm25 first, then builds
// snippets only for the hits returned, from FTS5 highlight() and make_snippet (linear in the
// text: FTS5's own snippet() grows with the square of the matches). Repeated bare words are
// dropped from the query (they change nothing but cost). `total`, when given, is set to the
// number of hits on every page (after `where`).
std::vector<SearchHit> search_issues(Db& db, const std::string& query,
                                     const SearchOptions& options = {},
                                     std::int64_t* total = nullptr);

// The markers search_issues asks FTS5 highlight() to put around matches (control characters
// that text rarely holds; at worst a stray one misplaces a highlight).
inline const std::string kSnippetOpen = "\x01\x1f", kSnippetClose = "\x02\x1f";

// A one-line snippet of `tokens` words from `text` as FTS5 highlight() returned it with
// kSnippetOpen/kSnippetClose: the window with the most matches, matches wrapped in
// `open`/`close`, "..." where text was left out. Linear in the length of `text`.
std::string make_snippet(const std::string& text, int tokens, const std::string& open,
                         const std::string& close);

// The words of `text` as an FTS5 query that matches them literally (as Datasette does): a word of
// letters, digits, '_' or non-ASCII stays bare, any other word (torch.onnx, can't, Conv2D(, and
// the operators AND OR NOT NEAR) becomes an FTS5 string ("" for a quote), "a quoted phrase"
// stays one phrase; words repeated in any case are dropped, and so are words with nothing FTS5
// indexes (a lone "(").
std::string fts_literal(const std::string& text);

// Machine-readable forms (`--json`).
Json to_json(const IssueSummary& s);
Json to_json(const IssueDetail& d);
Json to_json(const SearchHit& h);

// Counts over the issue store: per repository, per state, per label (what `stats` shows).
struct RepoStats {
  std::string repo;
  std::string converter;    // from the taxonomy (the repo's own name when it has none)
  std::int64_t issues = 0;  // pull requests not counted
  std::int64_t pull_requests = 0;
  std::int64_t open = 0;
  std::int64_t closed = 0;
  std::int64_t with_fix_link = 0;
  std::int64_t comments = 0;  // stored comments of its issues and pull requests
};

struct IssueStats {
  std::int64_t repositories = 0;
  std::int64_t issues = 0;  // pull requests not counted
  std::int64_t pull_requests = 0;
  std::int64_t with_fix_link = 0;
  std::int64_t comments = 0;
  std::int64_t timeline_events = 0;
  std::vector<std::pair<std::string, std::int64_t>> states;  // issue state -> count
  std::vector<std::pair<std::string, std::int64_t>> labels;  // top labels of issues, by count
  std::int64_t distinct_labels = 0;
  std::vector<RepoStats> per_repo;
};

// `converter_of` names a repository's converter (may be empty: the repo name is kept).
IssueStats compute_stats(Db& db, int top_labels,
                         const std::function<std::string(const std::string&)>& converter_of = {});

}  // namespace convfail
