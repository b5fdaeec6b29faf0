#include "campaign/run/campaign_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/error.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace convfail::campaign {
namespace {

struct LockPlace {
  fs::path dir;      // <the database's real folder>/convfail-data/locks
  std::string name;  // DEV.INO.campaign-ID.lock
};

LockPlace lock_place(const std::string& db_path, std::int64_t campaign) {
  std::error_code ec;
  fs::path real = fs::canonical(db_path, ec);
  struct stat st {};
  if (ec || stat(real.c_str(), &st) != 0)
    throw UserError("cannot find the database " + terminal_safe(db_path) + " to lock campaign " +
                    std::to_string(campaign));
  return {real.parent_path() / "convfail-data" / "locks",
          std::to_string(static_cast<unsigned long long>(st.st_dev)) + "." +
              std::to_string(static_cast<unsigned long long>(st.st_ino)) + ".campaign-" +
              std::to_string(campaign) + ".lock"};
}

std::string mode_text(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

// A folder (or a link to one) is trusted when the user running convfail or root owns it and
// nobody else may write it.
void check_owned(const struct stat& st, const fs::path& path, const char* what) {
  const std::string where = terminal_safe(path.string());
  if (st.st_uid != geteuid() && st.st_uid != 0)
    throw UserError(std::string("the campaign lock's ") + what + " " + where + " belongs to uid " +
                    std::to_string(st.st_uid) + ", not to uid " + std::to_string(geteuid()) +
                    " running convfail: refused");
  if (!S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)))
    throw UserError(std::string("the campaign lock's ") + what + " " + where +
                    " is writable by others (mode " + mode_text(st.st_mode) +
                    "), who could remove a held lock: refused; chmod go-w it");
}

// Opens (creating it, mode 0755) the folder `name` in `parent`, checked as above. A link is
// followed only when `link_ok` and the link itself is trusted.
int open_trusted_dir(int parent, const fs::path& path, bool link_ok, const char* what) {
  const std::string name = path.filename().string();
  if (mkdirat(parent, name.c_str(), 0755) != 0 && errno != EEXIST)
    throw UserError("cannot create " + terminal_safe(path.string()) + ": " + std::strerror(errno));
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat link {};
  // A link fails that open with ELOOP, or ENOTDIR (O_DIRECTORY is checked first).
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
      fstatat(parent, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode)) {
    if (!link_ok)
      throw UserError(std::string("the campaign lock's ") + what + " " +
                      terminal_safe(path.string()) + " is a symbolic link: refused");
    check_owned(link, path, what);
    fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0)
    throw UserError("cannot open " + terminal_safe(path.string()) + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    close(fd);
    throw UserError("cannot stat " + terminal_safe(path.string()) + ": " + std::strerror(errno));
  }
  try {
    check_owned(st, path, what);
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

// The lock file in the checked folder `dir_fd`: created without following a link and never
// truncated on open; refused unless it is a regular file with one link owned by this user.
int open_lock_file(int dir_fd, const LockPlace& place) {
  const std::string where = terminal_safe((place.dir / place.name).string());
  int fd = openat(dir_fd, place.name.c_str(),
                  O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0)
    throw UserError("cannot open the campaign lock " + where + ": " +
                    (errno == ELOOP ? std::string("a symbolic link") : std::strerror(errno)));
  struct stat st {};
  const char* problem = nullptr;
  if (fstat(fd, &st) != 0)
    problem = "cannot stat it";
  else if (!S_ISREG(st.st_mode))
    problem = "not a regular file";
  else if (st.st_nlink != 1)
    problem = "a hard link to another file";
  else if (st.st_uid != geteuid())
    problem = "owned by another user";
  if (problem) {
    close(fd);
    throw UserError("the campaign lock " + where + " is " + problem + ": refused (remove it)");
  }
  return fd;
}

}  // namespace

std::string campaign_lock_path(const std::string& db_path, std::int64_t campaign) {
  LockPlace p = lock_place(db_path, campaign);
  return (p.dir / p.name).string();
}

CampaignLock::CampaignLock(const std::string& db_path, std::int64_t campaign) {
  LockPlace place = lock_place(db_path, campaign);
  path_ = (place.dir / place.name).string();
  fs::path data = place.dir.parent_path();
  int top = open(data.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top < 0)
    throw UserError("cannot open the database's folder " +
                    terminal_safe(data.parent_path().string()) + ": " + std::strerror(errno));
  int data_fd = -1, locks_fd = -1;
  try {
    data_fd = open_trusted_dir(top, data, /*link_ok=*/true, "folder");
    locks_fd = open_trusted_dir(data_fd, place.dir, /*link_ok=*/false, "folder");
    fd_ = open_lock_file(locks_fd, place);
  } catch (...) {
    for (int f : {top, data_fd, locks_fd})
      if (f >= 0) close(f);
    throw;
  }
  for (int f : {top, data_fd, locks_fd}) close(f);
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[256] = {0};
    ssize_t got = pread(fd_, buf, sizeof buf - 1, 0);
    close(fd_);
    fd_ = -1;
    std::string holder = got > 0 ? terminal_safe(std::string(buf, static_cast<size_t>(got)))
                                 : std::string("another process");
    throw UserError("campaign " + std::to_string(campaign) + " is being run by " + holder +
                    "; wait for it to finish, or stop it");
  }
  char host[128] = {0};
  gethostname(host, sizeof host - 1);
  std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::string who = "pid " + std::to_string(getpid()) + " on " + host + " since " + when;
  // Our own lock file (checked above), held: rewriting it touches nothing else.
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, who.data(), who.size(), 0);
}

CampaignLock::~CampaignLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace convfail::campaign
