#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/result_output.h"

using convfail::cli::OutputFormat;
using convfail::cli::ResultOutput;
using nlohmann::json;

namespace {

std::string print(OutputFormat format) {
  std::ostringstream out;
  ResultOutput o(format, out);
  o.result("a  crash_reproduced", json{{"issue", "a/b#1"}, {"verdict", "crash_reproduced"}});
  o.result("b  not_reproduced", json{{"issue", "a/b#2"}, {"verdict", "not_reproduced"}});
  o.finish({{"total", 2}});
  return out.str();
}

}  // namespace

TEST_CASE("result output: --json is one document with results and totals") {
  json doc = json::parse(print(OutputFormat::kJson));  // throws on a second document
  REQUIRE(doc["results"].size() == 2);
  CHECK(doc["results"][1]["issue"] == "a/b#2");
  CHECK(doc["totals"]["total"] == 2);
}

TEST_CASE("result output: --jsonl streams one result per line, then the totals") {
  std::istringstream in(print(OutputFormat::kJsonl));
  std::string line;
  std::vector<json> lines;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0]["verdict"] == "crash_reproduced");
  CHECK(lines[2] == json{{"totals", {{"total", 2}}}});
}

TEST_CASE("result output: text prints the lines only") {
  CHECK(print(OutputFormat::kText) == "a  crash_reproduced\nb  not_reproduced\n");
}
