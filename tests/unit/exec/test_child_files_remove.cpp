// exec/child_files' remove_child_tree: iterative, so no tree a child makes is too deep to remove;
// bounded by count and time, and it says what it left (issue #49 item 10).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "exec/child_files.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace convfail::exec;

namespace {

// A chain of `depth` folders "d" below `top` (made through descriptors: the path is longer than
// PATH_MAX), with a file in each and, at `link_at`, a link to `host`; the deepest folder's mode
// is `deepest_mode`.
void deep_tree(const fs::path& top, int depth, int link_at, const fs::path& host) {
  fs::create_directories(top);
  int fd = open(top.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  for (int i = 0; i < depth; ++i) {
    REQUIRE(mkdirat(fd, "d", 0755) == 0);
    int f = openat(fd, "f", O_WRONLY | O_CREAT, 0644);
    REQUIRE(f >= 0);
    close(f);
    if (i == link_at) REQUIRE(symlinkat(host.c_str(), fd, "link") == 0);
    int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    close(fd);
    REQUIRE(next >= 0);
    fd = next;
  }
  close(fd);
}

}  // namespace

TEST_CASE("child files: a tree thousands of folders deep is removed, no link followed") {
  convfail::test::TempDir host, child;
  std::ofstream(host.file("keep")) << "host";
  fs::path top = child.path() / "w";
  deep_tree(top, 3000, 1500, host.path());
  RemovedTree r = remove_child_tree(top.string());
  CHECK(r.complete);
  CHECK(r.problem == "");
  CHECK(r.removed == 3000 * 2 + 1 + 1);  // folders and files, the link, the top
  CHECK_FALSE(fs::exists(fs::symlink_status(top)));
  CHECK(fs::exists(host.path() / "keep"));
}

TEST_CASE("child files: removal is bounded by count and says what it left") {
  convfail::test::TempDir child;
  fs::path top = child.path() / "w";
  fs::create_directories(top / "a");
  for (int i = 0; i < 20; ++i) std::ofstream(top / "a" / std::to_string(i)) << i;
  RemovedTree r = remove_child_tree(top.string(), 5);
  CHECK_FALSE(r.complete);
  CHECK(r.removed <= 5);
  CHECK(r.problem.find("stopped after the limit of entries") == 0);
  CHECK(fs::exists(top));
  // The rest goes with the next, unbounded call.
  CHECK(remove_child_tree(top.string()).complete);
  CHECK_FALSE(fs::exists(top));
  CHECK(remove_child_tree(top.string()).complete);  // nothing there: nothing left
}

TEST_CASE("child files: as the owner, folders it may not list or write are removed") {
  // A child running as the same uid (convfail as nobody) leaves folders of mode 0500 and 0000.
  // Root ignores modes, so the removal runs in a child process as uid 65534.
  if (geteuid() != 0) return;  // needs root to become uid 65534
  convfail::test::TempDir t;
  fs::path top = t.path() / "w";
  deep_tree(top, 100, -1, "");
  fs::create_directories(top / "ro" / "sub");
  std::ofstream(top / "ro" / "sub" / "f") << "x";
  fs::create_directories(top / "none");
  std::ofstream(top / "none" / "f") << "x";
  chmod(t.path().c_str(), 0755);
  for (auto& e : fs::recursive_directory_iterator(top))
    REQUIRE(lchown(e.path().c_str(), 65534, 65534) == 0);
  REQUIRE(lchown(top.c_str(), 65534, 65534) == 0);
  REQUIRE(lchown(t.path().c_str(), 65534, 65534) == 0);
  chmod((top / "ro" / "sub").c_str(), 0500);
  chmod((top / "ro").c_str(), 0500);
  chmod((top / "none").c_str(), 0);
  chmod((top / "d" / "d").c_str(), 0500);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    RemovedTree r = remove_child_tree(top.string());
    _exit(r.complete && !fs::exists(fs::symlink_status(top)) ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_FALSE(fs::exists(fs::symlink_status(top)));
}
