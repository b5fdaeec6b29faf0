// Shared set-up for the labeling tests: a migrated database in a temp dir with a few synthetic
// issues (no third-party text), the taxonomy, and a dump of manual_labels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/issue_store.h"
#include "core/migrations.h"
#include "core/taxonomy.h"
#include "test_helpers.h"

namespace convfail::test {

struct LabelingFixture {
  TempDir dir;
  std::unique_ptr<Db> db = open_database(dir.file("t.db"));
  Taxonomy tax = Taxonomy::load(data_dir());
  std::vector<std::int64_t> issues;  // ids of acme/conv#1..N

  explicit LabelingFixture(int n = 5) {
    IssueStore store(*db);
    for (int i = 1; i <= n; ++i) {
      std::int64_t id = 0;
      store.upsert_issue(
          "acme/conv",
          Json{{"number", i},
               {"title", "Synthetic issue " + std::to_string(i)},
               {"body", "export fails with RuntimeError number " + std::to_string(i)},
               {"state", "closed"}},
          &id);
      issues.push_back(id);
    }
  }

  // Every manual_labels row as one text line, oldest first.
  std::vector<std::string> rows() {
    Stmt st(*db,
            "SELECT id || '|' || issue_id || '|' || annotator || '|' || dimension || '|' || "
            "coalesce(value, '-') || '|' || kind || '|' || coalesce(note, '') || '|' || "
            "coalesce(source, '') || '|' || created_at FROM manual_labels ORDER BY id");
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.text(0));
    return out;
  }
};

}  // namespace convfail::test
