// Runs a folder of ONNX backend test cases (the ONNX "node" test layout: CASE/model.onnx and
// CASE/test_data_set_N/{input,output}_M.pb) and sorts each into pass / fail / not_runnable.
#pragma once

#include <string>
#include <vector>

#include "repro/reproduce.h"

namespace convfail::repro {

// Case folders (those holding model.onnx) under `dir`, sorted by name. Throws UserError when
// `dir` is not a folder.
std::vector<std::string> list_suite_cases(const std::string& dir);

// Runs model.onnx of `case_dir` on every test_data_set_*; the first set that does not come out
// not_reproduced decides the verdict (without data sets: generated inputs).
RunVerdict reproduce_test_case(exec::OrtRunner& runner, const std::string& case_dir,
                               ReproOptions options);

// pass (not_reproduced) | fail (crash/wrong output) | not_runnable.
std::string suite_outcome(const RunVerdict& v);

struct SuiteTotals {
  int total = 0, pass = 0, fail = 0, not_runnable = 0;
  void add(const std::string& outcome);
};

}  // namespace convfail::repro
