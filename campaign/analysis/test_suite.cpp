#include "campaign/analysis/test_suite.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"

namespace convfail::campaign {

TestSuite load_test_suite(const std::string& name_or_dir, std::size_t max_models) {
  namespace fs = std::filesystem;
  TestSuite suite;
  suite.name = name_or_dir;
  suite.dir = name_or_dir == "onnx-node" ? kOnnxNodeTests : name_or_dir;
  std::error_code ec;
  if (!fs::is_directory(suite.dir, ec))
    throw UserError("--suite " + name_or_dir + ": " + suite.dir + " is not a folder" +
                    (name_or_dir == "onnx-node" ? " (apt install libonnx-testdata)" : ""));
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(suite.dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw UserError("--suite " + name_or_dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw UserError("--suite " + name_or_dir + ": " + ec.message());
    if (it->is_regular_file(ec) && it->path().extension() == ".onnx")
      files.push_back(fs::relative(it->path(), suite.dir, ec).generic_string());
  }
  std::sort(files.begin(), files.end());
  if (files.size() > max_models) files.resize(max_models);
  for (const auto& f : files) {
    try {
      suite.graphs.push_back(op_graph_from_onnx_file((fs::path(suite.dir) / f).string()));
      suite.files.push_back(f);
    } catch (const UserError&) {
      ++suite.unreadable;
    }
  }
  if (suite.graphs.empty())
    throw UserError("--suite " + name_or_dir + ": no readable .onnx model under " + suite.dir);
  return suite;
}

}  // namespace convfail::campaign
