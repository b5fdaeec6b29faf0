// Mutation testing of the harness: corrupt models that pass, and check that reproduce catches
// the corruption (wrong_output_reproduced or crash_reproduced). Operators: swap the first two
// inputs of a non-commutative op, change an `axis` or `alpha` attribute, drop a node (its first
// output then takes its first input's value).
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "repro/reproduce.h"

namespace convfail::repro {

struct Mutant {
  std::string op;           // swap_inputs | change_axis | change_alpha | drop_node
  std::string description;  // "Sub node 0: inputs 0 and 1 swapped"
  onnx::ModelProto model;
};

// Every applicable mutant of `model`, at most one per operator (the first node it applies to).
std::vector<Mutant> make_mutants(const onnx::ModelProto& model);

struct MutationOutcome {
  std::string case_name;
  std::string op;
  std::string description;
  RunVerdict verdict;
  bool killed() const {
    return verdict.verdict == kCrashReproduced || verdict.verdict == kWrongOutputReproduced;
  }
};

struct MutationSummary {
  int cases_passing = 0;  // unmutated cases that passed (the mutation candidates)
  int mutants = 0, killed = 0, crash = 0, wrong_output = 0, survived = 0, not_runnable = 0;
  std::vector<MutationOutcome> outcomes;
  double kill_rate() const {
    return mutants - not_runnable > 0 ? double(killed) / (mutants - not_runnable) : 0;
  }
};

// Runs the suite's cases (test_data_set_0 only), mutates those that pass and re-runs each
// mutant against the original reference outputs. `limit` bounds the number of cases (0 = all).
MutationSummary run_mutation_test(exec::OrtRunner& runner, const std::string& suite_dir,
                                  const ReproOptions& options, int limit, const std::string& filter,
                                  bool progress);

}  // namespace convfail::repro
