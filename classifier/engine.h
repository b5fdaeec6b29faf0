// The rules engine: one RE2::Set per field kind scans each field once; each rule's first hit is
// confirmed with the rule's own RE2 to get its span; fired rules add their weight to their label;
// each dimension takes its best label when it clears the margin and confidence threshold, else
// abstains.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "classifier/issue_text.h"
#include "classifier/rules.h"
#include "classifier/segment.h"
#include "core/taxonomy.h"

namespace re2 {
class RE2;
class RE2Set;
}  // namespace re2

namespace convfail::classifier {

struct Evidence {
  std::string rule_id;
  std::string dimension;
  std::string label;
  std::string subtype;
  FieldKind field;
  int field_index = 0;
  std::size_t span_start = 0;  // byte offsets into the field's text; a prior (a rule that fires
  std::size_t span_end = 0;    // on any text) has an empty span at 0 and no matched text
  std::string matched_text;
  double weight = 0;
};

struct Decision {
  std::string dimension;
  std::optional<std::string> label;  // nullopt: abstained (stage: holds the abstain label)
  std::optional<std::string> subtype;
  double confidence = 0;
  bool abstained = false;
  std::map<std::string, double> scores;  // label -> summed weight of fired rules
};

struct Classification {
  std::vector<Decision> decisions;  // taxonomy order of dimensions
  std::vector<Evidence> evidence;   // first match of every fired rule, in the first field it hit
  const Decision* decision(const std::string& dimension) const;
};

// A vote beside the fired rules (execution evidence): adds `weight` to `label`'s score the way a
// fired rule of that weight does.
struct Vote {
  std::string dimension;
  std::string label;
  std::string subtype;
  double weight = 0;
};

class Engine {
 public:
  Engine(RuleSet rules, Taxonomy taxonomy);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Classification classify(const IssueText& issue) const;
  Classification classify(const IssueText& issue, const Segments& segments) const;

  // The decisions (taxonomy order) from fired rules' evidence and extra votes: per dimension the
  // labels' summed weights, the best label unless the confidence or the lead over the second is
  // under the settings (then abstained). classify() decides this way from all of its evidence;
  // a subset (rules left out) or extra votes give what the engine would have decided then.
  std::vector<Decision> decide(const std::vector<Evidence>& evidence,
                               const std::vector<Vote>& extra = {}) const;

  const RuleSet& rules() const { return rules_; }
  const Taxonomy& taxonomy() const { return taxonomy_; }

 private:
  struct Entry {
    std::size_t rule;
    bool is_unless;
    std::unique_ptr<re2::RE2> re;
  };
  struct FieldMatcher {
    std::unique_ptr<re2::RE2Set> set;
    std::vector<Entry> entries;   // index = the Set's pattern index
    std::vector<Entry> nonblank;  // "\\S" patterns: hit whenever the field has non-space text
  };
  RuleSet rules_;
  Taxonomy taxonomy_;
  std::vector<FieldMatcher> matchers_;  // by FieldKind
  std::map<std::string, std::size_t> rule_index_;
};

}  // namespace convfail::classifier
