// Where a set of labels comes from, parsed and validated in one place for every command and the
// web: an annotator NAME, `classifier` (the latest run), `classifier:RUN`, `consensus`, `hybrid`
// or `hybrid:ANNOTATOR`. Annotator names that a source keyword would shadow are refused by
// check_annotator_name, so a name means the same thing everywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace convfail::labeling {

struct LabelSource {
  enum class Kind { kAnnotator, kClassifier, kConsensus, kHybrid };
  Kind kind = Kind::kAnnotator;
  std::string annotator;            // kAnnotator: the name; kHybrid: the annotator, or empty
  std::optional<std::int64_t> run;  // kClassifier: the run, empty for the latest

  // Throws UsageError naming `text` for an empty source, `classifier:` with anything but a
  // positive run id that fits in 64 bits, `hybrid:` without a valid annotator, and an annotator
  // name check_annotator_name refuses.
  static LabelSource parse(std::string_view text);

  std::string text() const;  // the canonical spelling, parse(text()) == *this
  bool manual() const { return kind == Kind::kAnnotator; }
  bool hybrid() const { return kind == Kind::kHybrid; }
  bool classifier() const { return kind == Kind::kClassifier; }
  bool operator==(const LabelSource& o) const {
    return kind == o.kind && annotator == o.annotator && run == o.run;
  }
};

// Refuses (UsageError) an annotator name that is empty, longer than 100 bytes, holds a control
// character or ':' (the separator of `hybrid:NAME`), or is a source keyword (`classifier`,
// `consensus`, `hybrid`, in any case). `what` names the place ("--annotator", "login").
void check_annotator_name(std::string_view name, std::string_view what = "annotator");

}  // namespace convfail::labeling
