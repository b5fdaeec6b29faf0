#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "crawler/crawler.h"
#include "crawler/graphql_query.h"
#include "crawler/progress.h"
#include "crawler/token.h"

namespace convfail::cli {
namespace {

nlohmann::json summary_json(const crawler::CrawlSummary& s) {
  nlohmann::json j = {{"repo", s.repo},
                      {"api", s.api_kind},
                      {"complete", s.complete},
                      {"pages", s.pages},
                      {"issues_seen", s.issues_seen},
                      {"new_issues", s.new_issues},
                      {"updated_issues", s.updated_issues},
                      {"unchanged_issues", s.unchanged_issues},
                      {"pull_requests_skipped", s.pull_requests_skipped},
                      {"excluded", s.excluded},
                      {"comment_sets_changed", s.comment_sets_changed},
                      {"timelines_changed", s.timelines_changed},
                      {"requests", s.api.requests},
                      {"not_modified", s.api.not_modified},
                      {"retries", s.api.retries},
                      {"rate_limit_waits", s.api.rate_limit_waits},
                      {"rate_limit_wait_s", s.api.rate_limit_wait_s}};
  if (s.api_kind == "graphql") {
    j["points_used"] = s.points_used;
    j["points_remaining"] = s.points_remaining ? nlohmann::json(*s.points_remaining) : nullptr;
  }
  return j;
}

// The options of `crawl`.
struct CrawlArgs {
  std::string repo;
  std::string preset;
  crawler::CrawlOptions o;
  std::string since;
  bool no_comments = false, no_timeline = false, json = false;
  std::string token_file;
  int max_response_mb = 100;
  bool graphql_queries = false;
};

const char* const kCrawlHelp =
    "Sync issues of OWNER/REPO from the GitHub REST API into the database: incremental\n"
    "(since= the last crawl, conditional requests answered 304 cost nothing), rate-limit\n"
    "aware, and resumable (each page is stored with its checkpoint; a killed crawl continues\n"
    "where it stopped). Pull requests are skipped. The token comes from $GITHUB_TOKEN or\n"
    "--token-file and is never stored or printed; without one the anonymous limit applies.\n"
    "It is sent only to the --api-url origin: Link URLs, issue URLs and redirects elsewhere\n"
    "stop the crawl with an error. A renamed repository (301) is stored under its new name.\n"
    "--api graphql fetches 100 issues with their labels, comments and timeline items per\n"
    "request from the GraphQL endpoint (API origin + /graphql; /api/v3 roots use /api/graphql)\n"
    "for about a hundredth of the REST rate-limit budget, into the same rows; GitHub's GraphQL\n"
    "API needs a token, so `auto` (the default) uses GraphQL with a token and REST without.";

// `crawl`: one repository or a preset's, printing each summary (or JSON of all).
void run_crawl(Context& ctx, const CrawlArgs& a) {
  if (a.graphql_queries) {
    nlohmann::json docs = nlohmann::json::object();
    for (const auto& [name, text] : crawler::graphql_documents()) docs[name] = text;
    std::cout << docs.dump(2) << "\n";
    return;
  }
  if (a.repo.empty() == a.preset.empty())
    throw UsageError("crawl: give either REPO (OWNER/NAME) or --preset NAME");
  crawler::CrawlOptions base = a.o;
  if (!a.since.empty()) base.since = a.since;
  base.comments = !a.no_comments;
  base.timeline = !a.no_timeline;
  base.api.max_response_bytes = static_cast<std::uint64_t>(a.max_response_mb) << 20;
  base.api.token = crawler::load_github_token(
      a.token_file.empty() ? std::nullopt : std::optional<std::string>(a.token_file));
  std::vector<crawler::CrawlOptions> crawls;
  if (!a.preset.empty()) {
    crawls = crawler::preset_crawls(a.preset, base);
  } else {
    base.repo = a.repo;
    crawls = {base};
  }
  crawler::CrawlProgressLine line(std::cerr, Context::stderr_is_tty());
  nlohmann::json repos = nlohmann::json::array();
  nlohmann::json total = {{"requests", 0},           {"not_modified", 0},   {"new_issues", 0},
                          {"points_used", 0},        {"updated_issues", 0}, {"retries", 0},
                          {"rate_limit_wait_s", 0.0}};
  for (const crawler::CrawlOptions& o : crawls) {
    crawler::CrawlSummary s = crawler::crawl(
        ctx.create_db(), o, [&line](const std::string& m) { line.notice(m); },
        [&line](const crawler::CrawlSummary& p) { line.update(p); });
    line.finish();
    repos.push_back(summary_json(s));
    total["requests"] = total["requests"].get<std::int64_t>() + s.api.requests;
    total["not_modified"] = total["not_modified"].get<std::int64_t>() + s.api.not_modified;
    total["new_issues"] = total["new_issues"].get<std::int64_t>() + s.new_issues;
    total["updated_issues"] = total["updated_issues"].get<std::int64_t>() + s.updated_issues;
    total["retries"] = total["retries"].get<std::int64_t>() + s.api.retries;
    total["points_used"] = total["points_used"].get<std::int64_t>() + s.points_used;
    total["api"] = s.api_kind;
    total["rate_limit_wait_s"] = total["rate_limit_wait_s"].get<double>() + s.api.rate_limit_wait_s;
    if (!a.json) std::cout << crawler::describe_summary(s) << "\n";
  }
  if (a.json) {
    total["repos"] = repos;
    std::cout << total.dump(2) << "\n";
  }
}

}  // namespace

void add_crawl_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kCrawlHelp);
  auto args = std::make_shared<CrawlArgs>();
  auto* repo = cmd->add_option("REPO", args->repo, "repository OWNER/NAME (or use --preset)");
  auto* preset = cmd->add_option(
      "--preset", args->preset,
      "crawl a named set instead of REPO: jajal2024 = pytorch/pytorch closed issues "
      "labeled 'module: onnx', and onnx/tensorflow-onnx closed issues without the "
      "labels 'question' or 'pending on user response'");
  preset->excludes(repo);
  cmd->add_option("--label", args->o.labels,
                  "only issues carrying this label (repeatable: all must be present)");
  cmd->add_option("--exclude-label", args->o.exclude_labels,
                  "skip issues carrying this label (repeatable; filtered client-side)");
  cmd->add_option("--state", args->o.state, "issue state to crawl")
      ->check(CLI::IsMember({"open", "closed", "all"}))
      ->capture_default_str();
  cmd->add_option("--since", args->since,
                  "only issues updated at or after this ISO 8601 time (first run; later runs "
                  "continue from the last crawl)");
  cmd->add_flag("--no-comments", args->no_comments, "do not fetch comments");
  cmd->add_flag("--no-timeline", args->no_timeline,
                "do not fetch timelines (has_fix_link then stays unset)");
  cmd->add_option("--api", args->o.api_kind,
                  "API to crawl through: rest, graphql (needs a token) or auto (graphql with a "
                  "token, rest without)")
      ->check(CLI::IsMember({"rest", "graphql", "auto"}))
      ->capture_default_str();
  cmd->add_option("--graphql-page-size", args->o.graphql_page_size,
                  "issues per GraphQL request (1-100); halved when GitHub answers that the "
                  "query timed out")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_flag("--graphql-queries", args->graphql_queries,
                "print the GraphQL documents convfail sends, as JSON, and exit")
      ->group("");
  cmd->add_option("--api-url", args->o.api_url,
                  "GitHub REST API root (e.g. a fake server); GraphQL is at ROOT/graphql, or "
                  "https://HOST/api/graphql for a https://HOST/api/v3 root")
      ->capture_default_str();
  cmd->add_option("--token-file", args->token_file,
                  "file holding the GitHub token (default: $GITHUB_TOKEN; none: anonymous)");
  cmd->add_option("--concurrency", args->o.api.concurrency,
                  "parallel requests for comments and timelines (1-64; default: 1 against "
                  "api.github.com, which asks for serial requests, 4 for other --api-url "
                  "servers); the first secondary rate limit makes the rest of the run serial")
      ->default_str("auto")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--max-pages", args->o.max_pages,
                  "pages per walk of a listing or of an issue's comments or timeline; more is an "
                  "error (a server whose pages never end)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--max-response-mb", args->max_response_mb,
                  "largest response body in MB, counted after decompression while it streams; "
                  "a larger one is an error for that URL")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--max-issues", args->o.max_issues,
                  "stop after storing this many new or changed issues (0: no limit); the next run "
                  "continues")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  cmd->add_option("--rate-floor", args->o.api.rate_floor,
                  "wait for the rate-limit reset when this many requests (GraphQL: points) are "
                  "left")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--backoff-base", args->o.api.backoff_base_s,
                  "seconds before the first retry of a failed request; doubles each attempt, "
                  "with jitter")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--max-retries", args->o.api.max_retries,
                  "attempts per request after a fault (5xx, reset, timeout, bad body) before "
                  "the crawl stops; the next run resumes")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd->add_option("--overlap", args->o.overlap_s,
                  "seconds subtracted from the last crawl's newest updated_at for since=")
      ->capture_default_str()
      ->check(CLI::Range(0, 366 * 86400));
  cmd->add_flag("--json", args->json, "print the summary as one JSON object on stdout");
  cmd->callback([&ctx, args] { run_crawl(ctx, *args); });
}

}  // namespace convfail::cli
