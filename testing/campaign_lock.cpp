#include "testing/campaign_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/error.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace convfail::testing {

CampaignLock::CampaignLock(const std::string& store_dir, std::int64_t campaign,
                           const std::string& db_path) {
  if (store_dir.empty()) return;  // nothing stored on disk (tests of the loop alone)
  fs::path dir = fs::path(store_dir).parent_path() / "locks";
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Databases in one folder share its store and locks, and each numbers its campaigns from 1:
  // the database's file name is part of the lock's.
  std::string db_name = db_path.empty() ? "" : fs::path(db_path).filename().string() + ".";
  fs::path file = dir / (db_name + "campaign-" + std::to_string(campaign) + ".lock");
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw UserError("cannot open the campaign lock " + file.string() + ": " + std::strerror(errno));
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
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, who.data(), who.size(), 0);
}

CampaignLock::~CampaignLock() {
  if (fd_ >= 0) close(fd_);  // releases the flock
}

}  // namespace convfail::testing
