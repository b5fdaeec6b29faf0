// One `convfail test run` (or `test merge`) per campaign at a time. An exclusive flock(2) on a
// file keyed on the database file's identity, not on the path it was reached by: the lock lives in
// the folder that really holds the database (links resolved), in convfail-data/locks/, and is
// named by the file's device and inode (DEV.INO.campaign-ID.lock), so a database reached through a
// link, another spelling of its folder or a second hard link in its folder takes the one lock.
// Released by the kernel when the holder exits, kill -9 included, so a dead run never blocks the
// next. The file holds the holder's pid, host and start time, which the refusal names.
//
// convfail often runs as root, so the lock's folders and file are never taken on trust: each is
// opened without following a link (convfail-data may be a link the user made: one owned by them
// or root), must belong to the user running convfail (or root) and be writable by nobody else
// (else another user could remove a held lock, or plant a link or a hard link to a host file);
// the file is created with O_NOFOLLOW and no O_TRUNC and taken only when it is a regular file
// with one link owned by that user, so a host file is never truncated or written.
#pragma once

#include <cstdint>
#include <string>

namespace convfail::campaign {

class CampaignLock {
 public:
  // Takes the lock or throws UserError: "campaign 3 is being run by pid 123 on HOST since T;
  // wait for it to finish, or stop it" when another process holds it, or one line naming the
  // folder or file refused and why.
  CampaignLock(const std::string& db_path, std::int64_t campaign);
  ~CampaignLock();
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;

  // The lock file's path (for messages and tests).
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Where the lock of `campaign` of the existing database `db_path` is (UserError when the
// database file cannot be found).
std::string campaign_lock_path(const std::string& db_path, std::int64_t campaign);

}  // namespace convfail::campaign
