// What `reproduce --all` selects after a scan, and why it leaves each other issue out.
#include <doctest/doctest.h>

#include "core/importer.h"
#include "core/migrations.h"
#include "repro/artifact_scan.h"
#include "repro/reproduce_all.h"
#include "repro/scripts/script_repro.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;

TEST_CASE("reproduce --all: the issues that run and why the others do not") {
  test::TempDir dir;
  auto db = open_database(dir.file("a.db"));
  const std::string fence = "\\n```python\\n";
  std::string jsonl;
  auto issue = [&](int n, const std::string& body) {
    jsonl += "{\"repo\":\"acme/conv\",\"number\":" + std::to_string(n) +
             ",\"title\":\"t\",\"author\":\"a\",\"body\":\"" + body + "\"}\n";
  };
  issue(1, "model: https://example.org/m1.onnx");
  issue(2, "model: https://example.org/m2.onnx");
  issue(3, "weights https://drive.google.com/file/d/abc/view");
  issue(4, "no code here");
  issue(5, "tf:" + fence + "import tf2onnx\\ntf2onnx.convert.from_keras(m)\\n```\\n");
  issue(6, "torch:" + fence +
               "import torch\\ntorch.onnx.export(torch.nn.Linear(1, 1), torch.zeros(1, 1), "
               "'m.onnx')\\n```\\n");
  issue(7, "model: https://example.org/m7.onnx");
  import_files(*db, {dir.write("i.jsonl", jsonl)});
  scan_issues(*db, std::nullopt);
  // Issue 2's model is fetched, issue 7's download failed; issue 1's is not fetched yet.
  db->exec(
      "UPDATE artifacts SET fetch_status = 'ok', local_path = '/nowhere' WHERE url LIKE '%m2%'");
  db->exec("UPDATE artifacts SET fetch_status = 'error:HTTP 404' WHERE url LIKE '%m7%'");
  auto id = [&](int n) {
    return db->scalar("SELECT id FROM issues WHERE number = " + std::to_string(n));
  };

  AllSelection all = select_all(*db, true, true);
  REQUIRE(all.model_issues.size() == 1);
  CHECK(all.model_issues[0].second == "acme/conv#2");
  REQUIRE(all.script_issues.size() == 1);
  CHECK(all.script_issues[0].second == "acme/conv#6");
  CHECK(all.skipped.size() == 5);
  CHECK(all.skipped.at(id(1)) == kModelNotFetched);
  CHECK(all.skipped.at(id(3)) == kFileHostOnly);
  CHECK(all.skipped.at(id(4)) == kNothingFound);
  CHECK(all.skipped.at(id(5)) == kNotTorchScript);
  CHECK(all.skipped.at(id(7)) == kModelFetchFailed);

  // One kind only: the other kind is named as left out, not silently dropped.
  AllSelection models = select_all(*db, true, false);
  CHECK(models.script_issues.empty());
  CHECK(models.skipped.at(id(6)) == kScriptNotSelected);
  AllSelection scripts = select_all(*db, false, true);
  CHECK(scripts.model_issues.empty());
  CHECK(scripts.skipped.at(id(2)) == kModelNotSelected);
}
