// What the issue page shows beside the issue JSON (api.h's issue_json): the issue's body and
// comments as safe HTML (web/markdown_html), the GitHub link the terminal's view shows too
// (core/issue_ref's issue_page_url), one row per re-executed program (repro/verdict_store) and
// its ONNX Runtime history (reports' reader of the stored bisects).
#pragma once

#include <nlohmann/json.hpp>

#include "core/db.h"

namespace convfail::web {

// Adds to an issue's JSON (needs its "repo", "number", "html_url", "body" and "comments"):
//   body_html, comments_html[i]: the Markdown rendered, null when too long to render (the page
//     then shows the text);
//   github_url: the issue's page on GitHub;
//   repro_programs: per program (a script, each model) its number of runs, first and latest
//     run date and its latest run (verdict, step, signature, message, ...), in order of first run;
//   runtime_history: per bisected model (`convfail bisect`, repro::runtime_histories) where its
//     verdict changed across ONNX Runtime releases, with the summary text the repro report prints.
void add_issue_page_fields(Db& db, nlohmann::json& issue);

}  // namespace convfail::web
