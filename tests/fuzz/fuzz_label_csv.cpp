// `labels import` on any CSV text: import_label_csv_text into a fresh migrated database holding
// issues acme/conv#1..3, with the taxonomy of data/. Invariants: a refused file writes no label;
// an accepted one writes as many manual_labels rows as it says, each a value of the taxonomy.
#include "core/error.h"
#include "core/issue_store.h"
#include "core/taxonomy.h"
#include "fuzz_check.h"
#include "fuzz_db.h"
#include "labeling/label_io.h"

using namespace convfail;

namespace {

const Taxonomy& taxonomy() {
  static const Taxonomy t = Taxonomy::load(std::string(CONVFAIL_SOURCE_DIR) + "/data");
  return t;
}

std::unique_ptr<Db> db_with_issues() {
  auto db = fuzz::fresh_db();
  IssueStore store(*db);
  for (int n = 1; n <= 3; ++n) {
    std::int64_t id = 0;
    store.upsert_issue("acme/conv", Json{{"number", n}, {"title", "Synthetic issue"}}, &id);
  }
  return db;
}

// A stored label value: a label of its dimension, or for "subtype" a subtype of some cause.
bool in_taxonomy(const std::string& dimension, const std::string& value) {
  const Taxonomy& t = taxonomy();
  if (t.has_dimension(dimension)) return t.has_label(dimension, value);
  if (dimension != "subtype") return false;
  for (const std::string& cause : t.label_ids("cause"))
    if (t.has_subtype(cause, value)) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  auto db = db_with_issues();
  labeling::LabelImportOptions options;
  // The first byte's low bit chooses the annotator option (rows must then not name another).
  if (size > 0 && (data[0] & 1)) options.annotator = "fuzz";
  labeling::LabelImportResult r;
  try {
    r = labeling::import_label_csv_text(*db, taxonomy(), text, "fuzz.csv", options);
  } catch (const UserError&) {
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM manual_labels") == 0);
    return 0;
  } catch (const UsageError&) {  // no annotator column and no --annotator: exit 2
    FUZZ_CHECK(db->scalar("SELECT count(*) FROM manual_labels") == 0);
    return 0;
  }
  FUZZ_CHECK(db->scalar("SELECT count(*) FROM manual_labels") == r.written);
  FUZZ_CHECK(r.written + r.unchanged <= 4 * r.rows);
  Stmt st(*db, "SELECT dimension, value FROM manual_labels WHERE value IS NOT NULL");
  while (st.step()) FUZZ_CHECK(in_taxonomy(st.text(0), st.text(1)));
  return 0;
}
