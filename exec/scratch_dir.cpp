#include "exec/scratch_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "core/text.h"
#include "exec/child_files.h"

namespace fs = std::filesystem;

namespace convfail::exec {

ScratchDir::ScratchDir(const std::string& prefix) {
  std::random_device rd;
  for (int attempt = 0; attempt < 16; ++attempt) {
    fs::path p = fs::temp_directory_path() /
                 ("convfail-" + prefix + "-" + std::to_string(rd()) + "-" + std::to_string(rd()));
    // mkdir, not create_directories: a name someone else made first is never taken over.
    if (mkdir(p.c_str(), 0755) == 0) {
      chmod(p.c_str(), 0755);  // whatever the umask: a sandboxed child (uid 65534) reads it
      path_ = p.string();
      return;
    }
    if (errno != EEXIST)
      throw std::runtime_error("cannot create a scratch folder " + p.string() + ": " +
                               std::strerror(errno));
  }
  throw std::runtime_error("cannot create a scratch folder under " +
                           fs::temp_directory_path().string());
}

ScratchDir::~ScratchDir() {
  RemovedTree r = remove_child_tree(path_);
  // What a child left that cannot go (a file made immutable, the time bound) is said, once.
  if (!r.complete)
    std::fprintf(stderr, "convfail: could not remove all of %s: %s\n", terminal_safe(path_).c_str(),
                 terminal_safe(r.problem).c_str());
}

}  // namespace convfail::exec
