// Rule sets written inline in classifier tests, parsed against the source tree's taxonomy.
#pragma once

#include <string>

#include "classifier/rules.h"
#include "test_helpers.h"

namespace convfail::test {

// The rules of one JSON rules file given as text; `hash` stands in for the files' hash.
inline classifier::RuleSet rules_from(const std::string& text, const std::string& hash = "test") {
  classifier::RuleSet set;
  classifier::parse_rules_text(text, "t.json", taxonomy(), set);
  set.hash = hash;
  return set;
}

}  // namespace convfail::test
