// The issues the issue-store tests query: five issues and one pull request over two
// repositories, imported into a fresh database (core's queries and the CLI's stats share it).
#pragma once

#include <memory>

#include "core/db.h"
#include "core/importer.h"
#include "core/migrations.h"
#include "test_helpers.h"

namespace convfail::test {

// Five issues and one pull request over two repositories; the words "gridsample" and "opset"
// are placed so that ranking, grouping and filters have a known answer.
inline const char* kFixture =
    R"({"repo":"pytorch/pytorch","number":10,"title":"GridSample export fails","state":"closed","labels":["module: onnx","triaged"],"author":"a","created_at":"2022-01-10T00:00:00Z","body":"Exporting gridsample with opset 11 raises an error.","comments":[{"author":"m","author_association":"MEMBER","body":"gridsample needs opset 16"},{"author":"u","body":"thanks"}],"timeline":[{"event":"closed","commit_id":"abc123"}]}
{"repo":"pytorch/pytorch","number":11,"title":"Slow export","state":"open","labels":["module: onnx"],"author":"b","created_at":"2022-02-10T00:00:00Z","body":"Export is slow; the model also uses gridsample somewhere deep inside a long body of text that goes on and on about unrelated things like data loading and augmentation and logging.","comments":[]}
{"repo":"pytorch/pytorch","number":12,"title":"Wrong output","state":"closed","labels":["Module: ONNX","bug"],"author":"c","created_at":"2022-03-10T00:00:00Z","body":"Outputs differ.","comments":[{"author":"d","body":"A gridsample call is involved here."},{"author":"e","body":"Yes gridsample again."}]}
{"repo":"onnx/tensorflow-onnx","number":5,"title":"INTERNAL ASSERT in converter","state":"closed","labels":["bug"],"author":"f","created_at":"2021-05-01T00:00:00Z","body":"RuntimeError: INTERNAL ASSERT FAILED at x.cpp","comments":[]}
{"repo":"onnx/tensorflow-onnx","number":6,"title":"Assert internal state","state":"closed","labels":[],"author":"g","created_at":"2021-06-01T00:00:00Z","body":"an assert about the internal state","comments":[]}
{"repo":"onnx/tensorflow-onnx","number":7,"title":"Fix gridsample handler","state":"closed","labels":["bug"],"author":"h","created_at":"2021-07-01T00:00:00Z","body":"PR body","pull_request":{"url":"x"}}
)";

inline std::unique_ptr<Db> fixture_db(const TempDir& dir) {
  auto db = open_database(dir.file("q.db"));
  import_files(*db, {dir.write("f.jsonl", kFixture)});
  return db;
}

}  // namespace convfail::test
