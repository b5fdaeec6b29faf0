// remove_child_tree (child_files.h): a depth-first walk kept on an explicit stack, never recursion,
// so a tree of any depth a child made is removed, within a count and a time bound.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "exec/child_files.h"

namespace convfail::exec {
namespace {

constexpr std::size_t kOpenLevels = 64;  // folders held open; deeper ones are reopened via ".."

// One folder being emptied. `dir` is null while it is closed (deeper than kOpenLevels).
struct Level {
  DIR* dir = nullptr;
  std::string name;  // its name in the folder above
  dev_t dev = 0;
  ino_t ino = 0;
};

class TreeRemoval {
 public:
  TreeRemoval(std::size_t max_entries, double max_seconds)
      : budget_(max_entries),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(max_seconds))) {}
  ~TreeRemoval() {
    for (auto& l : stack_)
      if (l.dir) closedir(l.dir);
  }
  TreeRemoval(const TreeRemoval&) = delete;
  TreeRemoval& operator=(const TreeRemoval&) = delete;

  RemovedTree run(int top_parent, const std::string& name) {
    top_parent_ = top_parent;
    if (unlinkat(top_parent, name.c_str(), 0) == 0) {
      ++out_.removed;
    } else if (errno == EISDIR) {
      if (enter(top_parent, name))
        while (!stack_.empty() && !stopped()) step();
      if (!stack_.empty()) out_.complete = false;
    } else if (errno != ENOENT) {
      fail(name, errno);
    }
    if (out_.failed > 1) out_.problem += " (and " + std::to_string(out_.failed - 1) + " more)";
    if (stopped_) {
      std::string why =
          budget_ == 0 ? "stopped after the limit of entries" : "stopped at the time limit";
      out_.problem = out_.problem.empty() ? why : why + "; " + out_.problem;
    }
    return out_;
  }

 private:
  // Whether the count or the time bound is reached.
  bool stopped() {
    if (!stopped_)
      stopped_ =
          budget_ == 0 || ((++ticks_ & 255) == 0 && std::chrono::steady_clock::now() > deadline_);
    return stopped_;
  }

  // One entry of the deepest folder, or that folder done and removed.
  void step() {
    if (!stack_.back().dir) {  // never: the deepest folder is always open
      abandon();
      return;
    }
    struct dirent* e = readdir(stack_.back().dir);
    if (!e) {
      leave();
      return;
    }
    std::string name = e->d_name;
    if (name == "." || name == "..") return;
    if (!failed_.empty() && failed_.count({stack_.back().ino, name})) return;
    --budget_;
    int at = dirfd(stack_.back().dir);
    if (unlinkat(at, name.c_str(), 0) == 0) {
      ++out_.removed;
      return;
    }
    int err = errno;
    if (err == EISDIR) {
      if (unlinkat(at, name.c_str(), AT_REMOVEDIR) == 0) {
        ++out_.removed;
        return;
      }
      if (!enter(at, name)) failed_.insert({stack_.back().ino, name});
      return;
    }
    if (err == ENOENT) return;  // gone meanwhile
    fail(name, err);
    failed_.insert({stack_.back().ino, name});
  }

  // Opens the folder `name` in `parent` (without following a link) and pushes it. A folder of
  // our own that we may not list or write is made 0700 first.
  bool enter(int parent, const std::string& name) {
    int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && make_usable(parent, name))
      fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      fail(name, errno);
      return false;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0) {
      fail(name, errno);
      close(fd);
      return false;
    }
    if (st.st_uid == geteuid() && (st.st_mode & S_IRWXU) != S_IRWXU) fchmod(fd, S_IRWXU);
    DIR* d = fdopendir(fd);
    if (!d) {
      fail(name, errno);
      close(fd);
      return false;
    }
    if (stack_.size() >= kOpenLevels && stack_.back().dir) {
      closedir(stack_.back().dir);  // reopened from this child's ".." on the way back
      stack_.back().dir = nullptr;
    }
    stack_.push_back({d, name, st.st_dev, st.st_ino});
    return true;
  }

  // A folder without read or search permission for its owner: 0700 through an O_PATH descriptor
  // (never following a link), so that it can be listed and emptied.
  bool make_usable(int parent, const std::string& name) {
    int p = openat(parent, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (p < 0) return false;
    struct stat st {};
    bool ok = fstat(p, &st) == 0 && st.st_uid == geteuid();
    if (ok) ok = chmod(("/proc/self/fd/" + std::to_string(p)).c_str(), S_IRWXU) == 0;
    close(p);
    return ok;
  }

  // The deepest folder is done: remove it from the folder above (reopened when it was closed).
  void leave() {
    Level done = stack_.back();
    stack_.pop_back();
    int parent = top_parent_;
    if (!stack_.empty()) {
      Level& up = stack_.back();
      if (!up.dir) {
        int fd = openat(dirfd(done.dir), "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st {};
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_dev != up.dev || st.st_ino != up.ino) {
          // Moved while being removed: never walk up into a folder that is not the tree's.
          if (fd >= 0) close(fd);
          closedir(done.dir);
          fail(done.name, EXDEV);
          abandon();
          return;
        }
        up.dir = fdopendir(fd);
        if (!up.dir) {
          close(fd);
          closedir(done.dir);
          fail(done.name, errno);
          abandon();
          return;
        }
      }
      parent = dirfd(up.dir);
    }
    closedir(done.dir);
    if (unlinkat(parent, done.name.c_str(), AT_REMOVEDIR) == 0) {
      ++out_.removed;
    } else if (errno != ENOENT) {
      if (errno != ENOTEMPTY && errno != EEXIST) fail(done.name, errno);  // else said inside
      if (!stack_.empty()) failed_.insert({stack_.back().ino, done.name});
      out_.complete = false;
    }
  }

  void abandon() {
    for (auto& l : stack_)
      if (l.dir) closedir(l.dir);
    stack_.clear();
    out_.complete = false;
  }

  // The first failure is said with its path below the tree's top; the others are counted.
  void fail(const std::string& name, int err) {
    out_.complete = false;
    if (out_.failed++ > 0) return;
    std::string where;
    for (const auto& l : stack_) where += l.name + "/";
    where += name;
    if (where.size() > 200) where = "..." + where.substr(where.size() - 200);
    out_.problem = where + ": " + (err == EXDEV ? "moved while being removed" : std::strerror(err));
  }

  std::size_t budget_;
  std::chrono::steady_clock::time_point deadline_;
  std::size_t ticks_ = 0;
  bool stopped_ = false;
  int top_parent_ = -1;
  std::vector<Level> stack_;
  std::set<std::pair<ino_t, std::string>> failed_;  // (folder, name) not removable: not retried
  RemovedTree out_;
};

}  // namespace

RemovedTree remove_child_tree(const std::string& path, std::size_t max_entries,
                              double max_seconds) {
  std::string parent = path, name = path;
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) {
    parent = ".";
  } else {
    parent = slash == 0 ? "/" : path.substr(0, slash);
    name = path.substr(slash + 1);
  }
  if (name.empty() || name == "." || name == "..") return {};
  int dir = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    if (errno == ENOENT) return {};
    RemovedTree r;
    r.complete = false;
    r.failed = 1;
    r.problem = parent + ": " + std::strerror(errno);
    return r;
  }
  RemovedTree r = TreeRemoval(max_entries, max_seconds).run(dir, name);
  close(dir);
  return r;
}

}  // namespace convfail::exec
