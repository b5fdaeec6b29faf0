// campaign/run/campaign_lock: one lock per database file whatever path reaches it, and a lock
// folder or file that someone else planted is refused without touching what it points at (issue #49
// item 9).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "campaign/run/campaign_lock.h"
#include "core/error.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::campaign;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message CampaignLock throws, or "" when it took the lock.
std::string refusal(const std::string& db, std::int64_t campaign) {
  try {
    CampaignLock lock(db, campaign);
    return "";
  } catch (const UserError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("campaign lock: one database through a link, another folder name or a hard link") {
  test::TempDir t;
  fs::create_directories(t.path() / "a");
  fs::create_directories(t.path() / "b");
  std::string db = t.write("a/db", "not even a database: only its identity counts");
  fs::create_symlink(db, t.path() / "b" / "db");  // another folder, a link to the file
  fs::create_directory_symlink(t.path() / "a", t.path() / "c");  // another spelling of the folder
  fs::create_hard_link(db, t.path() / "a" / "db2");              // a second name of the file
  CampaignLock held(db, 1);
  const std::string holder = "is being run by pid " + std::to_string(getpid());
  for (const auto& other : {t.file("b/db"), t.file("c/db"), t.file("a/db2")}) {
    CAPTURE(other);
    CHECK(refusal(other, 1).find(holder) != std::string::npos);
  }
  CHECK(refusal(t.file("b/db"), 2) == "");  // another campaign of the same database
  // A different database in the same folder is another lock.
  std::string other_db = t.write("a/other.db", "x");
  CHECK(refusal(other_db, 1) == "");
  CHECK(campaign_lock_path(t.file("b/db"), 1) == held.path());
}

TEST_CASE("campaign lock: a hard link in locks/ is refused and the host file left alone") {
  test::TempDir t;
  std::string db = t.write("db", "x");
  std::string victim = t.write("victim", "host file, unchanged");
  fs::path lock = campaign_lock_path(db, 1);
  fs::create_directories(lock.parent_path());
  fs::create_hard_link(victim, lock);
  std::string why = refusal(db, 1);
  CHECK(why.find("hard link") != std::string::npos);
  CHECK(slurp(victim) == "host file, unchanged");
  // A symbolic link of the lock's name: the same.
  fs::remove(lock);
  fs::create_symlink(victim, lock);
  CHECK(refusal(db, 1).find("symbolic link") != std::string::npos);
  CHECK(slurp(victim) == "host file, unchanged");
}

TEST_CASE("campaign lock: locks/ as a link is refused and its target's file left alone") {
  test::TempDir t;
  std::string db = t.write("db", "x");
  fs::path lock = campaign_lock_path(db, 1);
  fs::create_directories(t.path() / "host");
  std::string victim = t.write("host/" + lock.filename().string(), "host file, unchanged");
  fs::create_directories(lock.parent_path().parent_path());
  fs::create_directory_symlink(t.path() / "host", lock.parent_path());
  CHECK(refusal(db, 1).find("is a symbolic link") != std::string::npos);
  CHECK(slurp(victim) == "host file, unchanged");
}

TEST_CASE("campaign lock: a lock folder others can write is refused, convfail-data may be a link") {
  test::TempDir t;
  std::string db = t.write("db", "x");
  fs::path lock = campaign_lock_path(db, 1);
  fs::create_directories(lock.parent_path());
  chmod(lock.parent_path().c_str(), 0777);
  CHECK(refusal(db, 1).find("writable by others") != std::string::npos);
  CHECK(!fs::exists(lock));
  chmod(lock.parent_path().c_str(), 0755);
  if (geteuid() == 0) {  // a folder of another user: refused (as root, make one)
    REQUIRE(chown(lock.parent_path().c_str(), 65534, 65534) == 0);
    CHECK(refusal(db, 1).find("belongs to uid 65534") != std::string::npos);
    REQUIRE(chown(lock.parent_path().c_str(), 0, 0) == 0);
  }
  CHECK(refusal(db, 1) == "");
  // The user's own link from convfail-data to a bigger disk keeps working.
  fs::remove_all(t.path() / "convfail-data");
  fs::create_directories(t.path() / "big");
  fs::create_directory_symlink(t.path() / "big", t.path() / "convfail-data");
  {
    CampaignLock held(db, 1);
    CHECK(fs::is_regular_file(t.path() / "big" / "locks" / lock.filename()));
    CHECK(slurp(lock).find("pid " + std::to_string(getpid()) + " on ") == 0);
  }
  // The lock file of an earlier run is ours: taken again.
  CHECK(refusal(db, 1) == "");
}
