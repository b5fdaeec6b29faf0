// A small hand-built label set for the report tests: 7 issues of two converters, labels by the
// annotator "ann" (one relabel), a second annotator "bob" on three issues, and repro runs.
#pragma once

#include <memory>
#include <string>

#include "core/db.h"
#include "core/importer.h"
#include "core/migrations.h"
#include "test_helpers.h"

namespace convfail::test {

inline void add_label(Db& db, const std::string& repo, int number, const std::string& annotator,
                      const std::string& dim, const std::string& value) {
  Stmt st(db,
          "INSERT INTO manual_labels(issue_id, annotator, dimension, value, source) "
          "SELECT i.id, ?, ?, ?, 'test' FROM issues i JOIN repositories r ON r.id = i.repo_id "
          "WHERE r.full_name = ? AND i.number = ?");
  st.bind(1, annotator).bind(2, dim).bind(3, value).bind(4, repo).bind(5, number);
  st.run();
  if (db.changes() != 1)
    throw std::runtime_error("no issue " + repo + "#" + std::to_string(number));
}

// Labels as "symptom cause subtype stage" ("-" for none).
inline void add_labels(Db& db, const std::string& repo, int number, const std::string& annotator,
                       const std::string& symptom, const std::string& cause,
                       const std::string& subtype, const std::string& stage) {
  add_label(db, repo, number, annotator, "symptom", symptom);
  add_label(db, repo, number, annotator, "cause", cause);
  if (subtype != "-") add_label(db, repo, number, annotator, "subtype", subtype);
  add_label(db, repo, number, annotator, "stage", stage);
}

inline void add_repro_run(Db& db, const std::string& repo, int number, const std::string& verdict) {
  Stmt st(db,
          "INSERT INTO repro_runs(issue_id, verdict) SELECT i.id, ? FROM issues i "
          "JOIN repositories r ON r.id = i.repo_id WHERE r.full_name = ? AND i.number = ?");
  st.bind(1, verdict).bind(2, repo).bind(3, number);
  st.run();
}

inline const char* kPT = "pytorch/pytorch";
inline const char* kTF = "onnx/tensorflow-onnx";

// Fresh database with the issues and ann's labels; bob and repro runs only when asked.
inline std::unique_ptr<Db> report_fixture(const TempDir& dir, bool with_bob = false,
                                          bool with_repro = false) {
  auto db = open_database(dir.file("r.db"));
  std::string jsonl;
  auto issue = [&](const char* repo, int n, const char* created) {
    jsonl += std::string("{\"repo\":\"") + repo + "\",\"number\":" + std::to_string(n) +
             ",\"title\":\"synthetic " + std::to_string(n) + "\"" +
             (created ? std::string(",\"created_at\":\"") + created + "\"" : std::string()) + "}\n";
  };
  issue(kPT, 1, "2020-01-15");
  issue(kPT, 2, "2020-05-02");
  issue(kPT, 3, "2021-08-30");
  issue(kPT, 4, nullptr);
  issue(kTF, 1, "2019-12-31");
  issue(kTF, 2, "2020-02-01");
  issue(kTF, 3, "2020-02-03");
  issue(kTF, 9, "2020-03-01");  // never labeled
  import_files(*db, {dir.write("issues.jsonl", jsonl)});
  add_labels(*db, kPT, 1, "ann", "crash", "incompatibility", "external", "node_conversion");
  add_labels(*db, kPT, 2, "ann", "wrong_model", "type_problem", "node", "optimization");
  add_labels(*db, kPT, 3, "ann", "crash", "shape_problem", "-", "node_conversion");
  add_label(*db, kPT, 3, "ann", "symptom", "wrong_model");  // relabel: the latest row counts
  add_labels(*db, kPT, 4, "ann", "hang", "others", "-", "not_distinguishable");
  add_labels(*db, kTF, 1, "ann", "crash", "incompatibility", "internal", "load_model");
  add_labels(*db, kTF, 2, "ann", "build_failure", "typo", "-", "export");
  add_labels(*db, kTF, 3, "ann", "wrong_model", "algorithmic_error", "-", "node_conversion");
  if (with_bob) {
    add_label(*db, kPT, 1, "bob", "symptom", "crash");
    add_label(*db, kPT, 2, "bob", "symptom", "wrong_model");
    add_label(*db, kTF, 1, "bob", "symptom", "wrong_model");
    add_label(*db, kTF, 1, "bob", "stage", "load_model");
  }
  if (with_repro) {
    add_repro_run(*db, kPT, 1, "crash_reproduced");
    add_repro_run(*db, kPT, 2, "not_runnable");
    add_repro_run(*db, kPT, 2, "wrong_output_reproduced");  // latest run wins
    add_repro_run(*db, kTF, 3, "crash_reproduced");         // a wrong model that crashed
    add_repro_run(*db, kTF, 1, "not_reproduced");
  }
  return db;
}

}  // namespace convfail::test
