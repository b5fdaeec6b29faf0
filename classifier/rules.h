// Classifier rules, loaded from data/rules/*.json (comments allowed). Each rule names a
// dimension, a label (and a cause subtype), RE2 patterns, the fields it reads, a weight, and
// optional `unless` patterns; a file may also hold the engine's thresholds ("settings").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "classifier/segment.h"
#include "core/taxonomy.h"

namespace convfail::classifier {

struct Rule {
  std::string id;
  std::string file;       // file name it came from
  std::string dimension;  // symptom | cause | stage
  std::string label;
  std::string subtype;                // cause subtype, or ""
  std::vector<std::string> patterns;  // RE2 syntax, matched case-insensitively unless told
  std::vector<std::string> unless;    // the rule does not fire when one of these matches
  std::vector<FieldKind> fields;
  std::vector<std::string> converters;  // only for issues of these converters (empty: all)
  double weight = 1.0;
  bool case_sensitive = false;
};

struct DimensionSettings {
  double min_confidence = 0.0;  // abstain below this confidence
  double margin = 0.0;          // abstain when best - second best score is below this
};

struct EngineSettings {
  double smoothing = 1.0;  // confidence = best / (sum of positive scores + smoothing)
  std::map<std::string, DimensionSettings> dimensions;
};

struct RuleSet {
  std::vector<Rule> rules;
  EngineSettings settings;
  std::string hash;  // FNV-1a 64 over file names and contents, hex
  std::string dir;
};

// Loads every *.json in dir (sorted by name). Throws UserError "file:rule-id: reason" for a file
// that does not parse, a rule naming an unknown dimension, label, subtype or field, a pattern
// RE2 rejects, or a duplicate rule id.
RuleSet load_rules(const std::string& dir, const Taxonomy& taxonomy);

// Parses one file's text (used by load_rules and tests); appends to `out`.
void parse_rules_text(const std::string& text, const std::string& file, const Taxonomy& taxonomy,
                      RuleSet& out);

// FNV-1a 64 (hex) over the parts, each followed by a separator: the hash of the rule files and of
// a trained model's training set.
std::string fnv1a_hex(const std::vector<std::string>& parts);

// The pattern as compiled: "(?i)" prefixed unless the rule is case-sensitive.
std::string compiled_pattern(const Rule& rule, const std::string& pattern);

}  // namespace convfail::classifier
