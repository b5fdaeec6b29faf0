#include <doctest/doctest.h>

#include "web/access.h"

using namespace convfail;
using labeling::TeamRole;

namespace {
int status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const web::HttpError& e) {
    return e.status();
  }
  return 200;
}
}  // namespace

TEST_CASE("web access: a blind annotator reads only the classifier and their own labels") {
  web::Viewer alice{"alice", true, TeamRole::kAnnotator};
  auto readable = [&](const web::Viewer& v, const char* source) {
    return status_of([&] { web::require_readable_source(v, std::string(source), "source"); });
  };
  for (const char* ok : {"classifier", "classifier:3", "alice", "hybrid:alice"})
    CHECK_MESSAGE(readable(alice, ok) == 200, ok);
  for (const char* no : {"bob", "consensus", "hybrid", "hybrid:bob", "Alice"})
    CHECK_MESSAGE(readable(alice, no) == 403, no);
  CHECK(readable(alice, "classifier:x") == 400);
  CHECK(status_of([&] { web::require_readable_source(alice, std::nullopt, "source"); }) == 200);

  web::Viewer carol{"carol", true, TeamRole::kAdjudicator};
  web::Viewer loopback{"ann", false, TeamRole::kAdmin};  // no team: as before teams
  for (const web::Viewer* v : {&carol, &loopback}) {
    CHECK(readable(*v, "bob") == 200);
    CHECK(readable(*v, "consensus") == 200);
    CHECK(status_of([&] { web::require_adjudicator(*v, "adjudicate"); }) == 200);
  }
  CHECK(status_of([&] { web::require_adjudicator(alice, "adjudicate"); }) == 403);

  // Every value of a repeated parameter is checked.
  web::Params p = {{"source", "alice"}, {"source", "bob"}};
  CHECK(status_of([&] { web::require_readable_sources(alice, p, {"source", "compare"}); }) == 403);

  // Label history: a blind viewer's own rows, whatever is asked.
  web::Params h = {{"repo", "a/b"}, {"number", "1"}};
  web::Params asked = web::readable_history_params(alice, h);
  CHECK(asked.find("annotator")->second == "alice");
  h.emplace("annotator", "bob");
  CHECK(status_of([&] { web::readable_history_params(alice, h); }) == 403);
  CHECK(web::readable_history_params(carol, h).find("annotator")->second == "bob");

  // The session lists only what the viewer may read.
  nlohmann::json s = {{"sources", {"classifier", "alice", "bob", "consensus"}},
                      {"annotators", {"alice", "bob"}}};
  nlohmann::json mine = web::viewer_session_json(s, alice);
  CHECK(mine["sources"] == nlohmann::json({"classifier", "alice"}));
  CHECK(mine["annotators"] == nlohmann::json({"alice"}));
  CHECK(mine["role"] == "annotator");
  CHECK(web::viewer_session_json(s, carol)["sources"].size() == 4);
  CHECK(web::viewer_session_json(s, loopback)["role"].is_null());
}
