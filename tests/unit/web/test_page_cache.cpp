#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/db.h"
#include "core/migrations.h"
#include "test_helpers.h"
#include "web/page_cache.h"

using namespace convfail;

TEST_CASE("web page cache: made once for concurrent requests, again after any commit") {
  test::TempDir dir;
  std::string path = dir.file("c.db");
  {
    Db db(path);
    migrate(db);
  }
  web::PageCache cache(path);
  std::atomic<int> made{0};
  auto make = [&] {
    ++made;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return web::ReportText{"page " + std::to_string(made.load()), "text/plain", "txt", ""};
  };
  std::vector<std::thread> threads;
  std::vector<std::string> got(8);
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { got[i] = cache.get("k", make).text; });
  for (auto& t : threads) t.join();
  CHECK(made == 1);
  for (const auto& g : got) CHECK(g == "page 1");
  CHECK(cache.get("k", make).text == "page 1");
  CHECK(cache.get("other", make).text == "page 2");  // another key is its own page
  CHECK(made == 2);

  // Another connection commits: the kept pages are of an older state.
  {
    Db writer(path);
    writer.exec("INSERT INTO campaigns(config_json, versions_json) VALUES ('{}', '{}')");
  }
  CHECK(cache.get("k", make).text == "page 3");
  CHECK(cache.get("k", make).text == "page 3");
  CHECK(cache.computed() == 3);

  // A failure is thrown to the asker and not kept.
  int failures = 0;
  auto fail = [&]() -> web::ReportText {
    ++failures;
    throw web::HttpError(404, "no campaign 9");
  };
  CHECK_THROWS_AS(cache.get("bad", fail), web::HttpError);
  CHECK_THROWS_AS(cache.get("bad", fail), web::HttpError);
  CHECK(failures == 2);
}

TEST_CASE("web page cache: bounded in entries, least recently used out first") {
  test::TempDir dir;
  std::string path = dir.file("c.db");
  {
    Db db(path);
    migrate(db);
  }
  web::PageCache cache(path, 2);
  int made = 0;
  auto make = [&] { return web::ReportText{std::to_string(++made), "text/plain", "txt", ""}; };
  cache.get("a", make);
  cache.get("b", make);
  cache.get("a", make);  // a used last
  cache.get("c", make);  // b goes
  CHECK(made == 3);
  cache.get("a", make);
  CHECK(made == 3);
  cache.get("b", make);
  CHECK(made == 4);
}
