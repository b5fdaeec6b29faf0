// Helpers shared by unit tests: temporary directories and databases.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "core/taxonomy.h"

namespace convfail::test {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("convfail-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
  // Writes a protobuf message (an ONNX model, a tensor) to NAME, whose folder exists; its path.
  template <class Message>
  std::string save(const std::string& name, const Message& m) const {
    std::ofstream out(file(name), std::ios::binary);
    m.SerializeToOstream(&out);
    return file(name);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string shared_dir() {
  return CONVFAIL_SHARED_DIR;
}
inline std::string source_dir() {
  return CONVFAIL_SOURCE_DIR;
}
inline std::string data_dir() {
  return std::string(CONVFAIL_SOURCE_DIR) + "/data";
}

// The taxonomy of the source tree's data/, loaded once.
inline const Taxonomy& taxonomy() {
  static Taxonomy t = Taxonomy::load(data_dir());
  return t;
}

}  // namespace convfail::test
