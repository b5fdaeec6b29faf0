#include "web/issue_page.h"

#include <map>

#include "core/issue_ref.h"
#include "reports/render.h"
#include "reports/report_data.h"
#include "repro/bisect_history.h"
#include "repro/verdict_store.h"
#include "web/markdown_html.h"

namespace convfail::web {

using nlohmann::json;

namespace {

json rendered(const json& text) {
  if (!text.is_string()) return nullptr;
  auto html = markdown_to_safe_html(text.get<std::string>());
  return html ? json(*html) : json();
}

json opt(const std::optional<std::string>& s) {
  return s ? json(*s) : json();
}

}  // namespace

void add_issue_page_fields(Db& db, json& issue) {
  issue["body_html"] = rendered(issue.value("body", json()));
  json comments = json::array();
  for (const json& c : issue.value("comments", json::array()))
    comments.push_back(rendered(c.value("body", json())));
  issue["comments_html"] = comments;
  IssueRef ref{issue.value("repo", std::string()), issue.value("number", std::int64_t{0})};
  const json& url = issue.value("html_url", json());
  issue["github_url"] = issue_page_url(ref, url.is_string() ? url.get<std::string>() : "");

  std::vector<json> programs;
  std::map<std::string, std::size_t> index;
  for (const repro::StoredReproRun& r : repro::issue_repro_runs(db, require_issue(db, ref))) {
    auto [it, added] = index.emplace(r.program, programs.size());
    if (added)
      programs.push_back({{"program", r.program},
                          {"name", r.program_name},
                          {"kind", r.script ? "script" : "model"},
                          {"runs", 0},
                          {"first_at", r.started_at}});
    json& p = programs[it->second];
    p["runs"] = p["runs"].get<long>() + 1;
    p["latest_at"] = r.started_at;
    p["latest"] = {{"id", r.id},
                   {"verdict", r.verdict},
                   {"step", opt(r.step)},
                   {"signature", opt(r.signature)},
                   {"reason", opt(r.reason)},
                   {"output_name", opt(r.output_name)},
                   {"message", opt(r.message)},
                   {"traceback", opt(r.traceback)},
                   {"max_abs_error", r.max_abs_error ? json(*r.max_abs_error) : json()}};
  }
  issue["repro_programs"] = programs;

  json runtime = json::array();
  std::int64_t id = require_issue(db, ref);
  for (const reports::RuntimeHistory& h : repro::runtime_histories(db))
    if (h.issue_id == id) runtime.push_back(reports::runtime_history_json(h));
  issue["runtime_history"] = runtime;
}

}  // namespace convfail::web
