#include "repro/mutate.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>

#include "repro/suite.h"

namespace convfail::repro {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kNonCommutative = {
    "Sub",         "Div",  "Pow",    "MatMul", "Mod",      "Greater", "Less", "GreaterOrEqual",
    "LessOrEqual", "Gemm", "Concat", "PRelu",  "BitShift", "Conv"};
// Ops whose output equals their input by design: dropping them cannot change a result.
const std::set<std::string> kPassThrough = {"Identity", "Dropout", "Optional",
                                            "OptionalGetElement"};

bool swap_inputs(onnx::ModelProto& m, std::string* what) {
  auto* g = m.mutable_graph();
  for (int i = 0; i < g->node_size(); ++i) {
    auto* n = g->mutable_node(i);
    if (!kNonCommutative.count(n->op_type()) || n->input_size() < 2) continue;
    if (n->input(0).empty() || n->input(1).empty() || n->input(0) == n->input(1)) continue;
    std::string a = n->input(0);
    n->set_input(0, n->input(1));
    n->set_input(1, a);
    *what = n->op_type() + " node " + std::to_string(i) + ": inputs 0 and 1 swapped";
    return true;
  }
  return false;
}

bool change_attribute(onnx::ModelProto& m, const std::string& name, std::string* what) {
  auto* g = m.mutable_graph();
  for (int i = 0; i < g->node_size(); ++i) {
    auto* n = g->mutable_node(i);
    for (auto& a : *n->mutable_attribute()) {
      if (a.name() != name) continue;
      if (a.type() == onnx::AttributeProto::INT) {
        std::int64_t old = a.i();
        a.set_i(old == 0 ? 1 : old - 1);  // another axis (or an invalid one on rank-1 data)
        *what = n->op_type() + " node " + std::to_string(i) + ": " + name + " " +
                std::to_string(old) + " -> " + std::to_string(a.i());
        return true;
      }
      if (a.type() == onnx::AttributeProto::FLOAT) {
        float old = a.f();
        a.set_f(old * 2 + 0.5f);
        *what = n->op_type() + " node " + std::to_string(i) + ": " + name + " " +
                std::to_string(old) + " -> " + std::to_string(a.f());
        return true;
      }
    }
  }
  return false;
}

// Replaces a single-output node by Identity(first input): the node is bypassed. The last such
// node is taken (the final computation, not shape bookkeeping); variadic ops with one input are
// identities by definition and skipped.
bool drop_node(onnx::ModelProto& m, std::string* what) {
  static const std::set<std::string> kVariadic = {"Max", "Min", "Mean", "Sum"};
  auto* g = m.mutable_graph();
  for (int i = g->node_size() - 1; i >= 0; --i) {
    auto* n = g->mutable_node(i);
    if (kPassThrough.count(n->op_type()) || n->input_size() < 1 || n->input(0).empty()) continue;
    if (kVariadic.count(n->op_type()) && n->input_size() == 1) continue;
    if (n->output_size() != 1 || !n->domain().empty()) continue;
    onnx::NodeProto bypass;
    bypass.set_op_type("Identity");
    bypass.set_name(n->name());
    bypass.add_input(n->input(0));
    bypass.add_output(n->output(0));
    *what = n->op_type() + " node " + std::to_string(i) + " dropped (output takes input 0)";
    *n = bypass;
    return true;
  }
  return false;
}

}  // namespace

std::vector<Mutant> make_mutants(const onnx::ModelProto& model) {
  std::vector<Mutant> out;
  auto attempt = [&](const std::string& op, auto&& fn) {
    Mutant mu{op, "", model};
    if (fn(mu.model, &mu.description)) out.push_back(std::move(mu));
  };
  attempt("swap_inputs", swap_inputs);
  attempt("change_axis",
          [](onnx::ModelProto& m, std::string* w) { return change_attribute(m, "axis", w); });
  attempt("change_alpha",
          [](onnx::ModelProto& m, std::string* w) { return change_attribute(m, "alpha", w); });
  attempt("drop_node", drop_node);
  return out;
}

MutationSummary run_mutation_test(exec::OrtRunner& runner, const std::string& suite_dir,
                                  const ReproOptions& options, int limit, const std::string& filter,
                                  bool progress) {
  MutationSummary s;
  std::random_device rd;
  fs::path tmp = fs::temp_directory_path() / ("convfail-mutate-" + std::to_string(rd()));
  fs::create_directories(tmp);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};
  int n = 0;
  for (const auto& c : list_suite_cases(suite_dir)) {
    std::string name = fs::path(c).filename().string();
    if (!filter.empty() && name.find(filter) == std::string::npos) continue;
    if (limit && n >= limit) break;
    ++n;
    fs::path data = fs::path(c) / "test_data_set_0";
    if (!fs::is_directory(data)) continue;
    if (progress) std::cerr << "\r[" << n << "] " << name << "\x1b[K" << std::flush;
    ReproOptions o = options;
    o.inputs_dir = data.string();
    std::string model_path = (fs::path(c) / "model.onnx").string();
    if (reproduce_model(runner, model_path, o).verdict != kNotReproduced) continue;
    ++s.cases_passing;
    onnx::ModelProto model;
    std::ifstream in(model_path, std::ios::binary);
    if (!model.ParseFromIstream(&in)) continue;
    for (auto& mu : make_mutants(model)) {
      fs::path file = tmp / (name + "." + mu.op + ".onnx");
      {
        std::ofstream f(file, std::ios::binary);
        mu.model.SerializeToOstream(&f);
      }
      MutationOutcome out{name, mu.op, mu.description, reproduce_model(runner, file.string(), o)};
      ++s.mutants;
      if (out.verdict.verdict == kCrashReproduced)
        ++s.crash, ++s.killed;
      else if (out.verdict.verdict == kWrongOutputReproduced)
        ++s.wrong_output, ++s.killed;
      else if (out.verdict.verdict == kNotRunnable)
        ++s.not_runnable;
      else
        ++s.survived;
      fs::remove(file);
      if (out.verdict.duration_ms > 2000)
        std::cerr << "mutate: slow mutant " << name << " " << mu.op << " "
                  << out.verdict.duration_ms << " ms (" << out.verdict.verdict << " "
                  << out.verdict.signature << ")\n";
      s.outcomes.push_back(std::move(out));
    }
  }
  if (progress) std::cerr << "\r\x1b[K";
  return s;
}

}  // namespace convfail::repro
