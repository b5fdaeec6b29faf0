#include "labeling/label_source.h"

#include <array>

#include "core/error.h"
#include "core/text.h"

namespace convfail::labeling {

void check_annotator_name(std::string_view name, std::string_view what) {
  const std::string where(what);
  if (name.empty()) throw UsageError(where + ": an annotator name is required");
  if (name.size() > 100) throw UsageError(where + ": an annotator name has at most 100 bytes");
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f)
      throw UsageError(where + ": an annotator name holds no control characters");
  if (name.find(':') != std::string_view::npos)
    throw UsageError(where + ": " + quoted_excerpt(name) +
                     " holds ':', which separates a source from its argument (hybrid:NAME)");
  static constexpr std::array<std::string_view, 3> kKeywords = {"classifier", "consensus",
                                                                "hybrid"};
  for (std::string_view k : kKeywords)
    if (iequals(name, k))
      throw UsageError(where + ": \"" + std::string(k) +
                       "\" is a label source, not an annotator name; choose another name");
}

LabelSource LabelSource::parse(std::string_view text) {
  LabelSource s;
  if (text.empty())
    throw UsageError(
        "label source: empty (give an annotator, classifier, "
        "classifier:RUN, consensus, hybrid or hybrid:ANNOTATOR)");
  if (text == "classifier") {
    s.kind = Kind::kClassifier;
  } else if (starts_with(text, "classifier:")) {
    s.kind = Kind::kClassifier;
    std::optional<std::int64_t> run = parse_int64(text.substr(11));
    if (!run || *run < 1)
      throw UsageError("label source " + quoted_excerpt(text) +
                       ": classifier:RUN needs a positive run id");
    s.run = run;
  } else if (text == "consensus") {
    s.kind = Kind::kConsensus;
  } else if (text == "hybrid") {
    s.kind = Kind::kHybrid;
  } else if (starts_with(text, "hybrid:")) {
    s.kind = Kind::kHybrid;
    s.annotator = std::string(text.substr(7));
    check_annotator_name(s.annotator, "label source " + quoted_excerpt(text));
  } else {
    s.annotator = std::string(text);
    check_annotator_name(s.annotator, "label source " + quoted_excerpt(text));
  }
  return s;
}

std::string LabelSource::text() const {
  switch (kind) {
    case Kind::kClassifier:
      return run ? "classifier:" + std::to_string(*run) : "classifier";
    case Kind::kConsensus:
      return "consensus";
    case Kind::kHybrid:
      return annotator.empty() ? "hybrid" : "hybrid:" + annotator;
    case Kind::kAnnotator:
      break;
  }
  return annotator;
}

}  // namespace convfail::labeling
