#include "repro/model_files.h"

#include "exec/child_files.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
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

// The model file and its data files (relative to its folder), all there, by their sizes together
// within kMaxModelBytes; UserError naming the first over the cap.
void check_model_size(const fs::path& dir, const std::string& model_name,
                      const std::vector<std::string>& data) {
  std::uint64_t total = 0;
  std::vector<std::string> files = {model_name};
  files.insert(files.end(), data.begin(), data.end());
  for (const auto& rel : files) {
    std::error_code ec;
    auto status = fs::symlink_status(dir / rel, ec);
    if (ec || !fs::is_regular_file(status)) continue;  // missing ones are the caller's to say
    std::uint64_t size = fs::file_size(dir / rel, ec);
    total += ec ? 0 : size;
    if (total > kMaxModelBytes)
      throw UserError("model " + terminal_safe((dir / model_name).string()) + ": with " +
                      terminal_safe(rel) + " its files hold more than " +
                      std::to_string(kMaxModelBytes >> 30) + " GiB, the cap on a model: refused");
  }
}

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

std::string model_sha256(const std::string& model_path, double seconds) {
  fs::path dir = fs::path(model_path).parent_path();
  std::vector<std::string> data;
  try {
    data = external_data_files(model_path);
  } catch (const UserError&) {
    data.clear();  // not a model, or data outside its folder: the file alone
  }
  check_model_size(dir, fs::path(model_path).filename().string(), data);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(seconds));
  auto hash = [&](const fs::path& file) {
    double left = seconds;
    if (seconds > 0) {
      left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) left = 1e-9;
    }
    std::string why;
    auto sha = sha256_file_bounded(file.string(), kMaxModelBytes, left, &why);
    if (!sha && why.rfind("not read within", 0) == 0) {
      char text[64];
      std::snprintf(text, sizeof text, "%g", seconds);
      throw UserError("model " + terminal_safe(model_path) + ": hashing " +
                      terminal_safe(file.filename().string()) + " took longer than the timeout (" +
                      text + " s)");
    }
    if (!sha && why.rfind("larger than", 0) == 0)  // grew since it was measured
      throw UserError("model " + terminal_safe(model_path) + ": " + terminal_safe(file.string()) +
                      " is " + why);
    return sha.value_or(sha256_hex(""));
  };
  std::string own = hash(model_path);
  std::string combined = "model " + own + "\n";
  bool any = false;
  for (const auto& rel : data) {
    if (!fs::is_regular_file(dir / rel)) continue;
    combined += rel + " " + hash(dir / rel) + "\n";
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
  check_model_size(src, fs::path(model_path).filename().string(), data);
  // Each file read the one safe way (exec/child_files: beneath the model's folder, no link
  // followed, regular files only), whoever wrote the folder.
  auto copy = [&](const std::string& from_rel, const std::string& rel) {
    std::error_code ec;
    fs::path to = fs::path(dest_dir) / rel;
    fs::create_directories(to.parent_path(), ec);
    fs::remove(to, ec);
    std::string why;
    if (!exec::copy_child_file(src.string(), from_rel, to.string(), kMaxModelBytes, &why))
      throw UserError("cannot copy " + terminal_safe(rel) + ": " + why);
    copied.push_back(rel);
  };
  copy(fs::path(model_path).filename().string(), name);
  for (const auto& rel : data) copy(rel, rel);
  return copied;
}

}  // namespace convfail::repro
