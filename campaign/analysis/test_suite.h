// A converter's or ONNX's own test models as a comparison set: every .onnx file under a folder,
// read as operator graphs.
#pragma once

#include <string>
#include <vector>

#include "campaign/analysis/op_graph.h"

namespace convfail::campaign {

// Where Debian's libonnx-testdata puts the ONNX backend node tests (`reproduce --suite` runs the
// same folder); `--suite onnx-node` names it.
inline constexpr const char* kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node";

struct TestSuite {
  std::string name;  // what the user gave (onnx-node or the folder)
  std::string dir;
  std::vector<std::string> files;  // relative to dir, sorted
  std::vector<OpGraph> graphs;     // same order as files
  long unreadable = 0;             // .onnx files that did not parse (left out)
};

// "onnx-node" -> kOnnxNodeTests; anything else is a folder. Every *.onnx below it (sorted, at
// most `max_models`). UserError when the folder does not exist or holds no readable model.
TestSuite load_test_suite(const std::string& name_or_dir, std::size_t max_models = 100000);

}  // namespace convfail::campaign
