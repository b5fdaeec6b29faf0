// exec/child_files: the one way to take files out of a child's folder. Every thing a hostile child
// can leave (links to host files and folders, a FIFO, a socket, a hard link, a huge, wide or deep
// tree, a path with "..") is refused or skipped; nothing outside the folder is ever read.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "exec/child_files.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace convfail::exec;

namespace {
void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

namespace {
void refuses_what_a_child_leaves() {
  convfail::test::TempDir host, child;
  const fs::path c = child.path();
  write(host.path() / "secret", "host secret");
  write(c / "m" / "model.onnx", "model bytes");
  write(c / "m" / "set_0" / "input_0.pb", "in");
  fs::create_symlink(host.path() / "secret", c / "m" / "link.onnx");
  fs::create_directory_symlink(host.path(), c / "hostdir");
  fs::create_directory_symlink(host.path(), c / "m" / "set_1");
  REQUIRE(mkfifo((c / "m" / "fifo.onnx").c_str(), 0644) == 0);
  fs::create_hard_link(c / "m" / "model.onnx", c / "m" / "hard.onnx");
  int sock = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sp = (c / "sock").string();
  REQUIRE(sp.size() < sizeof addr.sun_path);
  std::copy(sp.begin(), sp.end(), addr.sun_path);
  REQUIRE(bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);

  std::string why;
  // The hard link made model.onnx a file with two links: refused too (it may be a host file's).
  CHECK_FALSE(read_child_file(c.string(), "m/model.onnx", 1 << 20, &why));
  CHECK(why == "hard link");
  fs::remove(c / "m" / "hard.onnx");
  auto got = read_child_file(c.string(), "m/model.onnx", 1 << 20, &why);
  REQUIRE(got);
  CHECK(*got == "model bytes");
  CHECK(read_child_file(c.string(), "m/set_0/input_0.pb", 10).value_or("") == "in");

  CHECK_FALSE(read_child_file(c.string(), "m/link.onnx", 1 << 20, &why));
  CHECK(why == "symbolic link");
  CHECK_FALSE(read_child_file(c.string(), "hostdir/secret", 1 << 20, &why));  // a link on the way
  CHECK_FALSE(read_child_file(c.string(), "m/set_1/secret", 1 << 20, &why));
  CHECK_FALSE(
      read_child_file(c.string(), "../" + host.path().filename().string() + "/secret", 99, &why));
  CHECK_FALSE(read_child_file(c.string(), host.path().string() + "/secret", 99, &why));
  CHECK_FALSE(read_child_file(c.string(), "m/./model.onnx", 99, &why));
  // A FIFO does not block: refused at once, by its kind.
  auto t0 = std::chrono::steady_clock::now();
  CHECK_FALSE(read_child_file(c.string(), "m/fifo.onnx", 99, &why));
  CHECK(why == "not a regular file (FIFO)");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  CHECK_FALSE(read_child_file(c.string(), "sock", 99, &why));
  CHECK_FALSE(read_child_file(c.string(), "m", 99, &why));  // a folder
  // A file over the cap is an error, not a silent cut.
  CHECK_FALSE(read_child_file(c.string(), "m/model.onnx", 4, &why));
  CHECK(why.find("larger than 4") != std::string::npos);
  // The root itself given as a link is refused.
  fs::create_directory_symlink(c, host.path() / "rootlink");
  CHECK(open_child_file((host.path() / "rootlink").string(), "m/model.onnx") < 0);
  CHECK(child_files_in(c.string(), "m") == std::vector<std::string>{"model.onnx"});
  close(sock);
}
}  // namespace

TEST_CASE(
    "child files: regular files are read; links, FIFOs, sockets, hard links and escapes not") {
  SUBCASE("openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)") {
    refuses_what_a_child_leaves();
  }
  SUBCASE("O_NOFOLLOW on every component (kernels without openat2)") {
    use_openat2(false);
    refuses_what_a_child_leaves();
    use_openat2(true);
  }
}

TEST_CASE("child files: a tree is copied without links, FIFOs or host bytes, within its caps") {
  convfail::test::TempDir host, child, out;
  const fs::path c = child.path();
  write(host.path() / "keys" / "id_rsa", "PRIVATE KEY");
  write(c / "m" / "model.onnx", "model");
  write(c / "m" / "set_0" / "output_0.pb", "out");
  fs::create_directory_symlink(host.path() / "keys", c / "m" / "set_1");
  fs::create_symlink(host.path() / "keys" / "id_rsa", c / "m" / "program.py");
  REQUIRE(mkfifo((c / "m" / "spec.json").c_str(), 0644) == 0);

  CopiedTree copied;
  std::string why;
  REQUIRE(copy_child_tree(c.string(), "m", (out.path() / "m").string(), ChildFileLimits(), &copied,
                          &why));
  CHECK(copied.files == std::vector<std::string>{"model.onnx", "set_0/output_0.pb"});
  REQUIRE(copied.skipped.size() == 3);
  CHECK(copied.skipped[0] == "program.py -> symbolic link");
  CHECK(copied.skipped[1] == "set_1 -> symbolic link");
  CHECK(copied.skipped[2] == "spec.json -> not a regular file (FIFO)");
  CHECK(slurp(out.path() / "m" / "model.onnx") == "model");
  CHECK_FALSE(fs::exists(fs::symlink_status(out.path() / "m" / "set_1")));
  for (auto& e : fs::recursive_directory_iterator(out.path()))
    if (e.is_regular_file()) CHECK(slurp(e.path()).find("PRIVATE KEY") == std::string::npos);

  // Caps: count, depth, one file's size, the total. Over one the copy fails and leaves nothing.
  ChildFileLimits few;
  few.max_files = 2;
  CHECK_FALSE(copy_child_tree(c.string(), "m", (out.path() / "few").string(), few, nullptr, &why));
  CHECK(why.find("more than 2 entries") != std::string::npos);
  CHECK_FALSE(fs::exists(out.path() / "few"));
  fs::path deep = c / "deep";
  for (int i = 0; i < 12; ++i) deep /= "d";
  write(deep / "f", "x");
  CHECK_FALSE(copy_child_tree(c.string(), "deep", (out.path() / "deep").string(), ChildFileLimits(),
                              nullptr, &why));
  CHECK(why.find("deeper than 8") != std::string::npos);
  ChildFileLimits small;
  small.max_file_bytes = 3;
  CHECK_FALSE(
      copy_child_tree(c.string(), "m", (out.path() / "small").string(), small, nullptr, &why));
  CHECK(why.find("larger than 3") != std::string::npos);
  ChildFileLimits total;
  total.max_total_bytes = 6;
  CHECK_FALSE(
      copy_child_tree(c.string(), "m", (out.path() / "total").string(), total, nullptr, &why));
  // A destination that exists is never written into.
  CHECK_FALSE(
      copy_child_tree(c.string(), "m", out.path().string(), ChildFileLimits(), nullptr, &why));
}

TEST_CASE("child files: removal never follows a link out of the folder") {
  convfail::test::TempDir host, child;
  write(host.path() / "keep" / "file", "host");
  write(child.path() / "w" / "a" / "b", "x");
  fs::create_directory_symlink(host.path() / "keep", child.path() / "w" / "link");
  fs::create_directory_symlink(host.path() / "keep", child.path() / "w" / "a" / "link2");
  remove_child_tree((child.path() / "w").string());
  CHECK_FALSE(fs::exists(child.path() / "w"));
  CHECK(slurp(host.path() / "keep" / "file") == "host");
  // A link given as the tree itself: the link goes, its target stays.
  fs::create_directory_symlink(host.path() / "keep", child.path() / "top");
  remove_child_tree((child.path() / "top").string());
  CHECK_FALSE(fs::exists(fs::symlink_status(child.path() / "top")));
  CHECK(fs::exists(host.path() / "keep" / "file"));
}

TEST_CASE("child files: a sparse file is copied sparse, byte for byte") {
  // 256 MiB of holes with a few bytes in it: before, its copy took 256 MiB of disk.
  convfail::test::TempDir child, out;
  const fs::path sparse = child.path() / "w.bin";
  {
    int fd = open(sparse.c_str(), O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(pwrite(fd, "head", 4, 0) == 4);
    REQUIRE(pwrite(fd, "middle", 6, 100 << 20) == 6);
    REQUIRE(ftruncate(fd, 256 << 20) == 0);
    close(fd);
  }
  std::string why;
  REQUIRE(copy_child_file(child.path().string(), "w.bin", out.file("w.bin"), 1ull << 30, &why));
  struct stat st {};
  REQUIRE(stat(out.file("w.bin").c_str(), &st) == 0);
  CHECK(st.st_size == 256 << 20);
  CHECK(st.st_blocks * 512 < (4 << 20));  // a few blocks, not 256 MiB
  std::ifstream in(out.file("w.bin"), std::ios::binary);
  char head[4], middle[6];
  in.read(head, 4);
  in.seekg(100 << 20);
  in.read(middle, 6);
  CHECK(std::string(head, 4) == "head");
  CHECK(std::string(middle, 6) == "middle");
  // The tree copy (the campaign's store) too, and a file ending in a hole keeps its length.
  CopiedTree copied;
  REQUIRE(copy_child_tree(child.path().string(), "", out.file("tree"), ChildFileLimits(), &copied,
                          &why));
  REQUIRE(stat((out.path() / "tree" / "w.bin").c_str(), &st) == 0);
  CHECK(st.st_size == 256 << 20);
  CHECK(st.st_blocks * 512 < (4 << 20));
}
