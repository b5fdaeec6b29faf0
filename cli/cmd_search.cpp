#include <iostream>
#include <memory>
#include <random>

#include "cli/commands.h"
#include "cli/issue_format.h"
#include "core/issue_queries.h"
#include "core/text.h"

namespace convfail::cli {

void add_search_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Full-text search (SQLite FTS5) over issue titles, bodies and comments, ranked by bm25\n"
      "(title matches weigh double), one result per issue with highlighted snippets.\n"
      "QUERY is text, searched as written: every word must match, and a word with punctuation\n"
      "matches as a phrase, so code needs no quoting: torch.onnx.export, \"can't export\",\n"
      "opset_version=11, Conv2D(, aten::zero (words repeated in any case count once).\n"
      "--fts reads QUERY as FTS5 syntax instead: \"quoted phrases\", OR, NOT, prefix*,\n"
      "column:filters, e.g. --fts '\"INTERNAL ASSERT\" OR GridSample*'. A query starting with\n"
      "'-' (e.g. the column filter -title:onnx, matching outside titles) goes after `--`:\n"
      "  convfail search --fts -- -title:onnx\n"
      "Queries are at most 1,000 characters.");
  struct Args {
    std::vector<std::string> words;
    std::int64_t limit = 20;
    bool fts = false;
    bool literal = false;
    bool include_prs = false;
    bool json = false;
  };
  auto args = std::make_shared<Args>();  // outlives parsing: the callback runs inside parse()
  cmd->add_option("QUERY", args->words,
                  "text to search for (several arguments are joined by spaces)")
      ->required();
  cmd->add_option("--limit", args->limit, "at most N issues (0: all)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->capture_default_str();
  auto* fts = cmd->add_flag("--fts", args->fts,
                            "read QUERY as FTS5 syntax (phrases, OR, NOT, prefix*, column:)");
  cmd->add_flag("--literal", args->literal, "search the words as written (the default)")
      ->excludes(fts);
  cmd->add_flag("--include-prs", args->include_prs, "also return pull requests");
  cmd->add_flag("--json", args->json,
                "print a JSON array of issues with score, matching_comments and snippets");
  cmd->callback([&ctx, args] {
    std::string query;
    for (const std::string& w : args->words) query += (query.empty() ? "" : " ") + w;
    SearchOptions o;
    o.limit = args->limit;
    o.fts = args->fts;
    o.include_pull_requests = args->include_prs;
    if (args->json) {
      o.highlight_open = "[";
      o.highlight_close = "]";
    }
    SnippetHighlight shown;
    if (!args->json && Context::stdout_is_tty()) {
      // Markers no issue text can contain by chance (a random tag), shown as bold once the
      // snippet around them is escaped.
      std::random_device rd;
      std::string tag = std::to_string(rd()) + std::to_string(rd());
      o.highlight_open = "\x02<" + tag + "\x03";
      o.highlight_close = "\x02>" + tag + "\x03";
      shown = {o.highlight_open, o.highlight_close, "\033[1m", "\033[0m"};
    }
    std::vector<SearchHit> hits = search_issues(ctx.read_db(), query, o);
    if (args->json) {
      Json out = Json::array();
      for (const SearchHit& h : hits) out.push_back(to_json(h));
      std::cout << json_text(out, 2) << "\n";
      return;
    }
    std::cout << format_search_hits(hits, shown);
    if (hits.empty()) std::cerr << "no issue matches " << terminal_safe(query) << "\n";
  });
}

}  // namespace convfail::cli
