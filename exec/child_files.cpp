#include "exec/child_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace convfail::exec {
namespace {

// A descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

void say(std::string* why, const std::string& text) {
  if (why) *why = text;
}

std::string errno_text(int err) {
  if (err == ELOOP) return "symbolic link";
  if (err == EXDEV) return "outside the folder";
  if (err == ENOENT) return "missing";
  if (err == ENOTDIR) return "not a folder on the way";
  return std::strerror(err);
}

// The components of `rel`, or nullopt when it is absolute, empty or holds "." / "..".
std::optional<std::vector<std::string>> components(const std::string& rel) {
  if (rel.empty() || rel[0] == '/' || rel.find('\0') != std::string::npos) return std::nullopt;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= rel.size()) {
    std::size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    std::string part = rel.substr(start, end - start);
    if (part.empty() && end == rel.size() && !parts.empty()) break;  // a trailing slash
    if (part.empty() || part == "." || part == "..") return std::nullopt;
    parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

std::atomic<int> g_openat2{-1};  // -1 unknown, 0 not available, 1 available

// openat2 beneath `dirfd` with no symbolic link anywhere; -1 with errno (ENOSYS: not here).
int openat2_beneath(int dirfd, const std::string& rel, int flags) {
#ifdef SYS_openat2
  struct open_how how {};
  how.flags = static_cast<std::uint64_t>(flags);
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  return static_cast<int>(syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how));
#else
  (void)dirfd, (void)rel, (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

// Opens `rel` beneath `dirfd` with `flags` (O_NOFOLLOW added), no symbolic link on the way.
int open_beneath(int dirfd, const std::string& rel, int flags, std::string* why) {
  auto parts = components(rel);
  if (!parts) {
    say(why, "not a plain relative path");
    return -1;
  }
  flags |= O_NOFOLLOW | O_CLOEXEC;
  if (g_openat2 != 0) {
    int fd = openat2_beneath(dirfd, rel, flags);
    if (fd >= 0 || errno != ENOSYS) {
      g_openat2 = 1;
      if (fd < 0) say(why, errno_text(errno));
      return fd;
    }
    g_openat2 = 0;
  }
  // No openat2: one component at a time, each opened without following a link.
  Fd at(fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
  for (std::size_t i = 0; i + 1 < parts->size(); ++i) {
    int next = openat(at.fd, (*parts)[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      say(why, errno_text(errno));
      return -1;
    }
    Fd old(at.release());
    at.fd = next;
  }
  int fd = openat(at.fd, parts->back().c_str(), flags);
  if (fd < 0) say(why, errno_text(errno));
  return fd;
}

int open_root(const std::string& root, std::string* why) {
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) say(why, "folder " + errno_text(errno));
  return fd;
}

std::string kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "FIFO";
  if (S_ISSOCK(m)) return "socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "device";
  if (S_ISDIR(m)) return "folder";
  if (S_ISLNK(m)) return "symbolic link";
  return "special file";
}

// A descriptor opened by open_beneath taken only when it is a regular file with one link.
bool regular_file(int fd, struct stat* st, std::string* why) {
  if (fstat(fd, st) != 0) {
    say(why, errno_text(errno));
    return false;
  }
  if (!S_ISREG(st->st_mode)) {
    say(why, "not a regular file (" + kind_of(st->st_mode) + ")");
    return false;
  }
  if (st->st_nlink != 1) {
    say(why, "hard link");
    return false;
  }
  // Reads block from here on: O_NONBLOCK only mattered for the open.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return true;
}

int open_file_at(int dirfd, const std::string& rel, std::string* why, struct stat* st) {
  Fd fd(open_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK, why));
  if (fd.fd < 0) return -1;
  if (!regular_file(fd.fd, st, why)) return -1;
  return fd.release();
}

bool all_zero(const char* p, std::size_t n) {
  return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

// Copies at most `max_bytes` from `in` to the new file `out`; false with *why when there is
// more. A block of zeros is skipped, not written: a sparse file stays sparse (a 256 MiB file of
// holes does not become 256 MiB on disk), and the file gets its length at the end.
bool copy_bytes(int in, int out, std::uint64_t max_bytes, std::uint64_t* copied, std::string* why) {
  char buf[1 << 16];
  std::uint64_t total = 0;
  bool hole_at_end = false;
  for (;;) {
    ssize_t got = read(in, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      say(why, std::string("read: ") + std::strerror(errno));
      return false;
    }
    if (got == 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > max_bytes) {
      say(why, "larger than " + std::to_string(max_bytes) + " bytes");
      return false;
    }
    hole_at_end = all_zero(buf, static_cast<std::size_t>(got));
    if (hole_at_end) {
      if (lseek(out, got, SEEK_CUR) < 0) {
        say(why, std::string("seek: ") + std::strerror(errno));
        return false;
      }
      continue;
    }
    for (ssize_t done = 0; done < got;) {
      ssize_t put = write(out, buf + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) {
        say(why, std::string("write: ") + std::strerror(errno));
        return false;
      }
      done += put;
    }
  }
  if (hole_at_end && ftruncate(out, static_cast<off_t>(total)) != 0) {
    say(why, std::string("write: ") + std::strerror(errno));
    return false;
  }
  *copied = total;
  return true;
}

struct TreeCopy {
  const ChildFileLimits& limits;
  CopiedTree* out;
  std::string* why;
  std::size_t entries = 0;

  // Copies the folder open as `src` (a descriptor it owns) into the new folder `dest_fd`.
  bool copy_dir(int src, int dest_fd, const std::string& prefix, int depth) {
    DIR* d = fdopendir(src);
    if (!d) {
      close(src);
      say(why, std::string("cannot list a folder: ") + std::strerror(errno));
      return false;
    }
    std::vector<std::string> names;
    while (struct dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++entries > limits.max_files) {
        closedir(d);
        say(why, "more than " + std::to_string(limits.max_files) + " entries");
        return false;
      }
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    bool ok = true;
    for (const auto& name : names) {
      if (!(ok = copy_entry(dirfd(d), dest_fd, name, prefix, depth))) break;
    }
    closedir(d);
    return ok;
  }

  bool copy_entry(int src_dir, int dest_fd, const std::string& name, const std::string& prefix,
                  int depth) {
    const std::string rel = prefix + name;
    struct stat st {};
    if (fstatat(src_dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out->skipped.push_back(rel + " -> vanished");
      return true;
    }
    if (S_ISDIR(st.st_mode)) {
      if (depth + 1 > limits.max_depth) {
        say(why, "deeper than " + std::to_string(limits.max_depth) + " folders at " + rel);
        return false;
      }
      int sub = openat(src_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        out->skipped.push_back(rel + " -> " + errno_text(errno));
        return true;
      }
      if (mkdirat(dest_fd, name.c_str(), 0755) != 0) {
        close(sub);
        say(why, "cannot create " + rel + ": " + std::strerror(errno));
        return false;
      }
      Fd sub_dest(openat(dest_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (sub_dest.fd < 0) {
        close(sub);
        say(why, "cannot open " + rel + ": " + std::strerror(errno));
        return false;
      }
      return copy_dir(sub, sub_dest.fd, rel + "/", depth + 1);
    }
    std::string reason;
    Fd in(openat(src_dir, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
    if (in.fd < 0) {
      out->skipped.push_back(rel + " -> " + errno_text(errno));
      return true;
    }
    if (!regular_file(in.fd, &st, &reason)) {
      out->skipped.push_back(rel + " -> " + reason);
      return true;
    }
    if (static_cast<std::uint64_t>(st.st_size) > limits.max_file_bytes) {
      say(why, rel + " is larger than " + std::to_string(limits.max_file_bytes) + " bytes");
      return false;
    }
    Fd dst(
        openat(dest_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (dst.fd < 0) {
      say(why, "cannot create " + rel + ": " + std::strerror(errno));
      return false;
    }
    std::uint64_t left =
        limits.max_total_bytes > out->bytes ? limits.max_total_bytes - out->bytes : 0;
    std::uint64_t copied = 0;
    if (!copy_bytes(in.fd, dst.fd, std::min(limits.max_file_bytes, left), &copied, &reason)) {
      say(why, rel + ": " + reason);
      return false;
    }
    out->bytes += copied;
    out->files.push_back(rel);
    return true;
  }
};

}  // namespace

int open_child_file(const std::string& root, const std::string& rel, std::string* why) {
  Fd dir(open_root(root, why));
  if (dir.fd < 0) return -1;
  struct stat st {};
  return open_file_at(dir.fd, rel, why, &st);
}

std::optional<std::string> read_child_file(const std::string& root, const std::string& rel,
                                           std::uint64_t max_bytes, std::string* why) {
  Fd fd(open_child_file(root, rel, why));
  if (fd.fd < 0) return std::nullopt;
  std::string s;
  char buf[1 << 16];
  for (;;) {
    ssize_t got = read(fd.fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      say(why, std::string("read: ") + std::strerror(errno));
      return std::nullopt;
    }
    if (got == 0) break;
    if (s.size() + static_cast<std::size_t>(got) > max_bytes) {
      say(why, "larger than " + std::to_string(max_bytes) + " bytes");
      return std::nullopt;
    }
    s.append(buf, static_cast<std::size_t>(got));
  }
  return s;
}

bool copy_child_file(const std::string& root, const std::string& rel, const std::string& dest,
                     std::uint64_t max_bytes, std::string* why) {
  Fd in(open_child_file(root, rel, why));
  if (in.fd < 0) return false;
  Fd out(open(dest.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.fd < 0) {
    say(why, "cannot create " + dest + ": " + std::strerror(errno));
    return false;
  }
  std::uint64_t copied = 0;
  if (!copy_bytes(in.fd, out.fd, max_bytes, &copied, why)) {
    unlink(dest.c_str());
    return false;
  }
  return true;
}

bool is_child_file(const std::string& root, const std::string& rel) {
  Fd fd(open_child_file(root, rel, nullptr));
  return fd.fd >= 0;
}

std::vector<std::string> child_files_in(const std::string& root, const std::string& rel,
                                        std::size_t max_entries) {
  std::vector<std::string> out;
  Fd top(open_root(root, nullptr));
  if (top.fd < 0) return out;
  int dfd = rel.empty() ? fcntl(top.fd, F_DUPFD_CLOEXEC, 0)
                        : open_beneath(top.fd, rel, O_RDONLY | O_DIRECTORY, nullptr);
  if (dfd < 0) return out;
  DIR* d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return out;
  }
  std::size_t seen = 0;
  while (struct dirent* e = readdir(d)) {
    if (++seen > max_entries) break;
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_nlink == 1)
      out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool copy_child_tree(const std::string& root, const std::string& rel, const std::string& dest,
                     const ChildFileLimits& limits, CopiedTree* out, std::string* why) {
  CopiedTree local;
  if (!out) out = &local;
  *out = CopiedTree();
  Fd top(open_root(root, why));
  if (top.fd < 0) return false;
  int src = rel.empty() ? fcntl(top.fd, F_DUPFD_CLOEXEC, 0)
                        : open_beneath(top.fd, rel, O_RDONLY | O_DIRECTORY, why);
  if (src < 0) return false;
  if (mkdir(dest.c_str(), 0755) != 0) {
    close(src);
    say(why, "cannot create " + dest + ": " + std::strerror(errno));
    return false;
  }
  Fd dest_fd(open(dest.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dest_fd.fd < 0) {
    close(src);
    say(why, "cannot open " + dest + ": " + std::strerror(errno));
    return false;
  }
  TreeCopy copy{limits, out, why};
  bool ok = copy.copy_dir(src, dest_fd.fd, "", 0);
  std::sort(out->files.begin(), out->files.end());
  std::sort(out->skipped.begin(), out->skipped.end());
  if (!ok) remove_child_tree(dest);
  return ok;
}

void use_openat2(bool enabled) {
  g_openat2 = enabled ? -1 : 0;
}

}  // namespace convfail::exec
