#include <doctest/doctest.h>

#include "core/error.h"
#include "core/text.h"
#include "labeling/label_source.h"
#include "labeling/manual_labels.h"
#include "labeling_fixture.h"
#include "labelsets/source_labels.h"

using namespace convfail;
using namespace convfail::labeling;
using convfail::test::LabelingFixture;

TEST_CASE("label source: every spelling parses to one kind and prints back the same") {
  using K = LabelSource::Kind;
  struct Case {
    const char* text;
    K kind;
    const char* annotator;
    std::optional<std::int64_t> run;
  } cases[] = {{"alice", K::kAnnotator, "alice", {}},
               {"hybrids", K::kAnnotator, "hybrids", {}},  // a person, not the hybrid source
               {"classifier", K::kClassifier, "", {}},
               {"classifier:5", K::kClassifier, "", 5},
               {"classifier:9223372036854775807", K::kClassifier, "", INT64_MAX},
               {"consensus", K::kConsensus, "", {}},
               {"hybrid", K::kHybrid, "", {}},
               {"hybrid:bob", K::kHybrid, "bob", {}}};
  for (const auto& c : cases) {
    CAPTURE(c.text);
    LabelSource s = LabelSource::parse(c.text);
    CHECK(s.kind == c.kind);
    CHECK(s.annotator == c.annotator);
    CHECK(s.run == c.run);
    CHECK(s.text() == c.text);
    CHECK(LabelSource::parse(s.text()) == s);
  }
  CHECK(LabelSource::parse("hybrids").manual());
  CHECK_FALSE(LabelSource::parse("hybrids").hybrid());
}

TEST_CASE("label source: malformed sources are usage errors naming the source") {
  for (const char* bad :
       {"", "classifier:", "classifier:abc", "classifier:5x", "classifier:0", "classifier:-3",
        "classifier:+3", "classifier: 5", "classifier:99999999999999999999",
        "hybrid:", "hybrid:consensus", "hybrid:a:b", "Consensus", "HYBRID", "a\x1b[2Jb"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(LabelSource::parse(bad), UsageError);
  }
  try {
    LabelSource::parse("classifier:5x");
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("classifier:5x") != std::string::npos);
    CHECK(std::string(e.what()).find("positive run id") != std::string::npos);
  }
}

TEST_CASE("label source: reserved names cannot label, so a name means one thing everywhere") {
  LabelingFixture f;
  for (const char* reserved : {"consensus", "classifier", "hybrid", "Hybrid", "hybrid:x", "a:b"}) {
    CAPTURE(reserved);
    CHECK_THROWS_AS(
        record_labels(*f.db, f.tax, f.issues[0], reserved, {"crash", {}, {}, {}, {}}, "cli"),
        UsageError);
  }
  record_labels(*f.db, f.tax, f.issues[0], "hybrids", {"crash", {}, {}, {}, {}}, "cli");
  auto labels = labelsets::load_label_set(*f.db, "hybrids");
  REQUIRE(labels.size() == 1);
  CHECK(labels[0].values.at("symptom") == "crash");
  CHECK_THROWS_AS(labelsets::load_label_set(*f.db, "classifier:abc"), UsageError);
}

TEST_CASE("text: parse_int64 takes the whole text or nothing") {
  CHECK(parse_int64("42") == 42);
  CHECK(parse_int64("-7") == -7);
  CHECK(parse_int64("9223372036854775807") == INT64_MAX);
  for (const char* bad : {"", "+1", "1x", " 1", "1 ", "9223372036854775808", "0x10", "-"})
    CHECK_FALSE(parse_int64(bad).has_value());
}
