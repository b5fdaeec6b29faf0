#include <doctest/doctest.h>

#include "labeling_fixture.h"
#include "web/api.h"
#include "web/http_server.h"
#include "web/routes.h"
#include "web/server.h"

using namespace convfail;
using convfail::test::LabelingFixture;

TEST_CASE("web: loopback hosts, assets, annotator names") {
  for (const char* h : {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"})
    CHECK(web::is_loopback_host(h));
  for (const char* h : {"0.0.0.0", "192.168.1.2", "::", "", "example.org", "1127.0.0.1",
                        "127.attacker.example", "127.0.0.1.evil.example", "127.1", "0x7f.0.0.1",
                        "0177.0.0.1", "2130706433", "localhost.evil.example"})
    CHECK_FALSE(web::is_loopback_host(h));
  std::vector<std::string> allowed = {"lab.example"};
  for (const char* h : {"127.0.0.1", "127.0.0.1:8080", "localhost:1", "[::1]", "[::1]:8080",
                        "lab.example", "LAB.example:99"})
    CHECK_MESSAGE(web::host_allowed(h, allowed), h);
  for (const char* h : {"127.attacker.example", "127.0.0.1.evil.example:80", "::1", "[::1",
                        "[::1]x", "127.0.0.1:", "127.0.0.1:80:80", "127.0.0.1:1234567",
                        "127.0.0.1:8o", "x.lab.example", "lab.example.evil", ":80", ""})
    CHECK_FALSE_MESSAGE(web::host_allowed(h, allowed), h);
  CHECK(web::find_asset("index.html") != nullptr);
  CHECK(web::find_asset("app.js") != nullptr);
  CHECK(web::find_asset("../server.cpp") == nullptr);
  CHECK(web::find_asset("") == nullptr);
  CHECK(web::generate_token().size() == 32);
  CHECK(web::generate_token() != web::generate_token());

  // One rule with the terminal (labeling::check_annotator_name): "Ann Lee" labels on both.
  CHECK(web::checked_annotator("R1") == "R1");
  CHECK(web::checked_annotator("ann.smith@lab") == "ann.smith@lab");
  CHECK(web::checked_annotator("Ann Lee") == "Ann Lee");
  CHECK(web::checked_annotator("Zoë; x,y") == "Zoë; x,y");
  CHECK(web::checked_annotator(std::string(100, 'a')).size() == 100);
  for (const char* bad :
       {"", "a\tb", "x\ny", "classifier", "Consensus", "hybrid:R1", "a:b", "\xff\xfe"})
    CHECK_THROWS_AS(web::checked_annotator(bad), web::HttpError);
  CHECK_THROWS_AS(web::checked_annotator(std::string(101, 'a')), web::HttpError);
  // The login cookie carries the name encoded; the server decodes it.
  CHECK(web::percent_decoded("Ann%20Lee") == "Ann Lee");
  CHECK(web::percent_decoded("Zo%C3%AB%3B") == "Zoë;");
  CHECK(web::percent_decoded("a%00b").size() == 3);  // a NUL stays, for the name check to refuse
}

TEST_CASE("web: evidence highlights are UTF-16 ranges of the shown text") {
  LabelingFixture f(1);
  // "é" is 2 bytes in UTF-8 but 1 UTF-16 unit; "𝑥" is 4 bytes and 2 units.
  f.db->exec(
      "UPDATE issues SET body = 'é𝑥 then RuntimeError here', title = 'RuntimeError in title' "
      "WHERE id = " +
      std::to_string(f.issues[0]));
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  auto evidence = [&](const char* field, int start, int end, const char* text) {
    Stmt st(*f.db,
            "INSERT INTO classifier_evidence(run_id, issue_id, dimension, label, rule_id, field, "
            "span_start, span_end, matched_text, weight) VALUES (1, ?, 'symptom', 'crash', 'r', "
            "?, ?, ?, ?, 1)");
    st.bind(1, f.issues[0]).bind(2, field).bind(3, start).bind(4, end).bind(5, text);
    st.run();
  };
  evidence("body", 12, 24, "RuntimeError");  // bytes 12..24 (after "é𝑥 then ")
  evidence("title", 0, 12, "RuntimeError");
  evidence("traceback", 0, 4, "here");  // another field: found by its text
  evidence("title", 0, 1, "R");         // a one-character prior marks nothing
  Json j = web::issue_json(*f.db, f.tax, "acme/conv", "1", "", true);
  CHECK(j["highlights"]["body"].dump() == R"([[9,21,"symptom: r"],[22,26,"symptom: r"]])");
  CHECK(j["highlights"]["title"].dump() == R"([[0,12,"symptom: r"]])");
  CHECK(j["classifier"]["evidence"].size() == 4);
  CHECK_THROWS_AS(web::issue_json(*f.db, f.tax, "acme/conv", "9", "", true), web::HttpError);
  CHECK_THROWS_AS(web::issue_json(*f.db, f.tax, "acme/../x", "1", "", true), web::HttpError);
}

TEST_CASE("web: a label post is checked before anything is written") {
  LabelingFixture f(1);
  auto post = [&](const Json& body) { return web::post_label(*f.db, f.tax, "ann", body); };
  Json base = {{"repo", "acme/conv"}, {"number", 1}};
  auto with = [&](Json extra) {
    Json b = base;
    b.update(extra);
    return b;
  };
  CHECK_THROWS_AS(post(with({{"dimension", "symptom"}, {"value", "boom"}})), web::HttpError);
  CHECK_THROWS_AS(post(with({{"cause", "typo"}, {"subtype", "node"}})), web::HttpError);
  CHECK_THROWS_AS(post(with({{"kind", "undo"}, {"row_id", 1}})), web::HttpError);
  CHECK_THROWS_AS(post(with({{"kind", "skip"}, {"dimension", "mood"}})), web::HttpError);
  CHECK_THROWS_AS(post(Json{{"repo", "acme/conv"}}), web::HttpError);
  CHECK(f.rows().empty());
  Json r = post(with({{"symptom", "Crash"}, {"cause", "type_problem"}, {"subtype", "node"}}));
  CHECK(r["written"] == 3);
  CHECK(r["row_ids"].size() == 3);
  Json u = post(with({{"kind", "undo"}, {"row_id", r["row_ids"][2]}}));
  CHECK(u["written"] == 1);
  CHECK(f.rows().size() == 4);
  CHECK(f.rows()[3].find("|subtype|-|undo|") != std::string::npos);
}

TEST_CASE("web: the issue's classifier section carries the run's execution evidence") {
  LabelingFixture f(1);
  f.db->exec("INSERT INTO classifier_runs(id, rules_hash) VALUES (1, 'h')");
  Json j = web::issue_json(*f.db, f.tax, "acme/conv", "1", "", true);
  CHECK(j["classifier"]["execution"].empty());
  Stmt st(*f.db,
          "INSERT INTO classifier_execution_evidence(run_id, issue_id, dimension, label, kind, "
          "weight, repro_run_id, run_kind, verdict, step, signature, summary) VALUES (1, ?, "
          "'symptom', 'wrong_model', 'model_fails', 2.5, 7, 'model', 'crash_reproduced', "
          "'session', 'boom', 'confirmed by re-execution: crash in ONNX Runtime, signature boom "
          "(model run 7)')");
  st.bind(1, f.issues[0]);
  st.run();
  j = web::issue_json(*f.db, f.tax, "acme/conv", "1", "", true);
  REQUIRE(j["classifier"]["execution"].size() == 1);
  const Json& e = j["classifier"]["execution"][0];
  CHECK(e["dimension"] == "symptom");
  CHECK(e["label"] == "wrong_model");
  CHECK(e["weight"] == 2.5);
  CHECK(e["repro_run_id"] == 7);
  CHECK(e["step"] == "session");
  CHECK(e["summary"] ==
        "confirmed by re-execution: crash in ONNX Runtime, signature boom (model run 7)");
}

TEST_CASE("web: the issue JSON is blind by default (the viewer's labels only)") {
  LabelingFixture f(1);
  Json a = {{"repo", "acme/conv"}, {"number", 1}, {"symptom", "crash"}, {"cause", "typo"}};
  Json b = {{"repo", "acme/conv"}, {"number", 1}, {"symptom", "hang"}};
  web::post_label(*f.db, f.tax, "ann", a);
  web::post_label(*f.db, f.tax, "bob", b);
  Json blind = web::issue_json(*f.db, f.tax, "acme/conv", "1", "bob", true);
  CHECK(blind["blind"] == true);
  CHECK(blind["current"].dump() == R"({"bob":{"symptom":{"kind":"label","value":"hang"}}})");
  REQUIRE(blind["history"].size() == 1);
  CHECK(blind["history"][0]["annotator"] == "bob");
  CHECK(blind.dump().find("\"ann\"") == std::string::npos);
  CHECK(web::issue_json(*f.db, f.tax, "acme/conv", "1", "", true)["history"].empty());
  Json all = web::issue_json(*f.db, f.tax, "acme/conv", "1", "bob", false);
  CHECK(all["current"].size() == 2);
  CHECK(all["history"].size() == 3);
}

TEST_CASE("web: an item's questions are labeling's, by the stored cause or the first rater's") {
  LabelingFixture f(1);
  auto questions = [&](const std::string& viewer, const web::Params& p) {
    return web::questions_json(*f.db, f.tax, "acme/conv", "1", viewer, p);
  };
  auto dims = [](const Json& j) {
    std::vector<std::string> out;
    for (const Json& q : j["questions"]) out.push_back(q["dimension"]);
    return out;
  };
  using Strings = std::vector<std::string>;
  // No cause stored: no subtype question; every question with the taxonomy's choices.
  Json j = questions("ann", {});
  CHECK(j["mode"] == "annotate");
  CHECK(j["cause"].is_null());
  CHECK(dims(j) == Strings{"symptom", "cause", "stage"});
  CHECK(j["questions"][1]["choices"].size() == f.tax.label_ids("cause").size());
  CHECK(j["questions"][0]["choices"][0]["title"] == f.tax.dimension("symptom").labels[0].title);
  // The viewer's own stored cause decides: with subtypes, the subtype follows it.
  web::post_label(*f.db, f.tax, "ann",
                  {{"repo", "acme/conv"}, {"number", 1}, {"cause", "type_problem"}});
  web::post_label(*f.db, f.tax, "bob", {{"repo", "acme/conv"}, {"number", 1}, {"cause", "typo"}});
  j = questions("ann", {});
  CHECK(j["cause"] == "type_problem");
  CHECK(dims(j) == Strings{"symptom", "cause", "subtype", "stage"});
  Strings subs;
  for (const Json& c : j["questions"][2]["choices"]) subs.push_back(c["id"]);
  CHECK(subs == f.tax.subtype_ids("type_problem"));
  CHECK(dims(questions("bob", {})) == Strings{"symptom", "cause", "stage"});  // typo: none
  CHECK(dims(questions("ann", {{"dimensions", "stage,symptom"}})) == Strings{"stage", "symptom"});
  // Adjudicating: the first rater's cause unless the form's cause is given.
  web::Params adj = {
      {"mode", "adjudicate"}, {"annotators", "ann,bob"}, {"dimensions", "cause,subtype"}};
  j = questions("carol", adj);
  CHECK(j["cause"] == "type_problem");
  CHECK(dims(j) == Strings{"cause", "subtype"});
  adj.emplace("cause", "typo");
  CHECK(dims(questions("carol", adj)) == Strings{"cause"});
  adj = {{"mode", "adjudicate"}, {"annotators", "bob,ann"}, {"dimensions", "cause,subtype"}};
  CHECK(dims(questions("carol", adj)) == Strings{"cause"});
  // Refused: an unknown dimension, cause or mode, one rater, an issue not stored.
  for (const web::Params& bad :
       std::vector<web::Params>{{{"dimensions", "colour"}},
                                {{"cause", "no_such_cause"}},
                                {{"mode", "review"}},
                                {{"mode", "adjudicate"}, {"annotators", "ann"}}})
    CHECK_THROWS_AS(questions("ann", bad), web::HttpError);
  CHECK_THROWS_AS(web::questions_json(*f.db, f.tax, "acme/conv", "9", "ann", {}), web::HttpError);
}

TEST_CASE("web: the route table answers its routes, 405 with Allow, and 404") {
  std::vector<std::string> ran;
  auto h = [&](const char* name) {
    return [&ran, name](const web::HttpRequest&, web::HttpReply&) { ran.push_back(name); };
  };
  const std::vector<web::Route> routes = {
      {"GET", "/api/labels", h("history")},
      {"POST", "/api/labels", h("post")},
      {"POST", "/api/login", h("login")},
      {"GET", "/api/issues/{owner}/{repo}/{number}", h("issue")},
  };
  auto run = [&](const char* method, const char* path) {
    web::RouteMatch m = web::match_route(routes, method, path);
    if (m.route) {
      web::HttpRequest req;
      web::HttpReply res;
      m.route->handler(req, res);
    }
    return m;
  };
  CHECK(run("GET", "/api/labels").route == &routes[0]);
  CHECK(run("HEAD", "/api/labels").route == &routes[0]);  // HEAD is answered as GET
  CHECK(run("POST", "/api/labels").route == &routes[1]);
  web::RouteMatch issue = run("GET", "/api/issues/acme/conv/1");
  CHECK(issue.route == &routes[3]);
  // The path's parameters come from the table, by name (no handler counts characters).
  CHECK(issue.params ==
        std::map<std::string, std::string>{{"owner", "acme"}, {"repo", "conv"}, {"number", "1"}});
  CHECK(ran == std::vector<std::string>{"history", "history", "post", "issue"});
  for (const char* path : {"/api/issues/acme/conv", "/api/issues/acme/conv/1/x",
                           "/api/issues/acme//1", "/api/issues/acme/conv/"})
    CHECK_MESSAGE(run("GET", path).status == 404, path);

  web::RouteMatch m = run("DELETE", "/api/labels");
  CHECK(m.route == nullptr);
  CHECK(m.status == 405);
  CHECK(m.allow == "GET, HEAD, POST");
  m = run("GET", "/api/login");
  CHECK(m.status == 405);
  CHECK(m.allow == "POST");
  m = run("POST", "/api/issues/acme/conv/1");
  CHECK(m.status == 405);
  CHECK(m.allow == "GET, HEAD");
  for (const char* path : {"/api/nothing", "/api/labels/", "/api/issues", "/", ""}) {
    m = run("GET", path);
    CHECK_MESSAGE(m.status == 404, path);
    CHECK(m.route == nullptr);
    CHECK(m.allow.empty());
  }
  CHECK(ran.size() == 4);  // refused requests ran nothing
}
