// One `convfail test run` per campaign at a time. An exclusive flock(2) on
// STORE/../locks/DBNAME.campaign-ID.lock (beside the content-addressed models, which the
// databases of one folder share, DBNAME telling them apart): released by the kernel
// when the holder exits, kill -9 included, so a dead run never blocks the next. The file holds
// the holder's pid, host and start time, which the refusal names.
#pragma once

#include <cstdint>
#include <string>

namespace convfail::testing {

class CampaignLock {
 public:
  // Takes the lock or throws UserError ("campaign 3 is being run by pid 123 on HOST since T;
  // wait for it to finish, or stop it") when another process holds it.
  CampaignLock(const std::string& store_dir, std::int64_t campaign, const std::string& db_path);
  ~CampaignLock();
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace convfail::testing
