// A fresh folder under the temporary directory, removed with everything in it (never following a
// link: a child may have left links to host files) when the object goes away. A sandboxed child's
// writable folder is one; so is a folder convfail keeps files in that it took out of a child
// (child_files), or writes a child's read-only inputs to.
// What cannot be removed (remove_child_tree says what and why) is named in one line on stderr.
#pragma once

#include <string>

namespace convfail::exec {

class ScratchDir {
 public:
  // "convfail-<prefix>-<random>" under the temporary directory, mode 0755.
  explicit ScratchDir(const std::string& prefix = "script");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace convfail::exec
