#include "repro/suite.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"

namespace convfail::repro {

namespace fs = std::filesystem;

std::vector<std::string> list_suite_cases(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UserError("suite folder not found: " + dir);
  std::vector<std::string> cases;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) cases.push_back(e.path().string());
  std::sort(cases.begin(), cases.end());
  return cases;
}

RunVerdict reproduce_test_case(exec::OrtRunner& runner, const std::string& case_dir,
                               ReproOptions options) {
  std::vector<std::string> sets;
  for (const auto& e : fs::directory_iterator(case_dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path().string());
  std::sort(sets.begin(), sets.end());
  std::string model = (fs::path(case_dir) / "model.onnx").string();
  if (sets.empty()) return reproduce_model(runner, model, options);
  RunVerdict v;
  for (const auto& set : sets) {
    options.inputs_dir = set;
    v = reproduce_model(runner, model, options);
    if (v.verdict != kNotReproduced) break;
  }
  return v;
}

std::string suite_outcome(const RunVerdict& v) {
  if (v.verdict == kNotReproduced) return "pass";
  if (v.verdict == kNotRunnable) return kNotRunnable;
  return "fail";
}

void SuiteTotals::add(const std::string& outcome) {
  ++total;
  if (outcome == "pass")
    ++pass;
  else if (outcome == "fail")
    ++fail;
  else
    ++not_runnable;
}

}  // namespace convfail::repro
