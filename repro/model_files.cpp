#include "repro/model_files.h"

#include "exec/child_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/text.h"
#include "repro/fetch.h"
#include "repro/reproduce.h"

namespace fs = std::filesystem;

namespace convfail::repro {

namespace {
constexpr std::uint64_t kMaxModelFileBytes = 8ull << 30;  // a model or one data file
}  // namespace

std::vector<std::string> external_data_files(const std::string& model_path) {
  const std::string what = "model " + terminal_safe(model_path);
  onnx::ModelProto model;
  {
    std::ifstream in(model_path, std::ios::binary);
    if (!in || !model.ParseFromIstream(&in)) throw UserError(what + " does not parse");
  }
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(model_path), ec).parent_path();
  auto locations = external_data_locations(model, dir.string());
  if (!locations) throw UserError(what + ": " + kExternalDataOutside);
  std::vector<std::string> out;
  for (const auto& l : *locations) {
    std::string rel = fs::path(l).lexically_normal().string();
    if (std::find(out.begin(), out.end(), rel) == out.end()) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string model_sha256(const std::string& model_path) {
  std::string own = sha256_file(model_path);
  fs::path dir = fs::path(model_path).parent_path();
  std::string combined = "model " + own + "\n";
  bool any = false;
  std::vector<std::string> data;
  try {
    data = external_data_files(model_path);
  } catch (const UserError&) {
    return own;  // not a model, or data outside its folder: the file alone
  }
  for (const auto& rel : data) {
    if (!fs::is_regular_file(dir / rel)) continue;
    combined += rel + " " + sha256_file((dir / rel).string()) + "\n";
    any = true;
  }
  return any ? sha256_hex(combined) : own;
}

std::vector<std::string> copy_model_files(const std::string& model_path,
                                          const std::string& dest_dir, const std::string& name) {
  fs::path src = fs::path(model_path).parent_path();
  std::vector<std::string> copied;
  auto data = external_data_files(model_path);
  for (const auto& rel : data)  // all there before anything is copied
    if (!fs::is_regular_file(src / rel))
      throw UserError("the model's external data file " + terminal_safe(rel) + " is missing");
  // Each file read the one safe way (exec/child_files: beneath the model's folder, no link
  // followed, regular files only), whoever wrote the folder.
  auto copy = [&](const std::string& from_rel, const std::string& rel) {
    std::error_code ec;
    fs::path to = fs::path(dest_dir) / rel;
    fs::create_directories(to.parent_path(), ec);
    fs::remove(to, ec);
    std::string why;
    if (!exec::copy_child_file(src.string(), from_rel, to.string(), kMaxModelFileBytes, &why))
      throw UserError("cannot copy " + terminal_safe(rel) + ": " + why);
    copied.push_back(rel);
  };
  copy(fs::path(model_path).filename().string(), name);
  for (const auto& rel : data) copy(rel, rel);
  return copied;
}

}  // namespace convfail::repro
