// The crawl's progress line on a terminal (one line, rewritten in place) and its notices.
#pragma once

#include <ostream>
#include <string>

#include "crawler/crawler.h"

namespace convfail::crawler {

class CrawlProgressLine {
 public:
  // enabled: stderr is a terminal. Notices are printed either way, one line each.
  CrawlProgressLine(std::ostream& out, bool enabled) : out_(out), enabled_(enabled) {}
  ~CrawlProgressLine() { finish(); }
  void update(const CrawlSummary& s);
  void notice(const std::string& message);
  void finish();  // ends the line

 private:
  void clear();
  std::ostream& out_;
  bool enabled_;
  bool shown_ = false;
  std::string last_;
};

// The one-paragraph summary printed at the end of a crawl.
std::string describe_summary(const CrawlSummary& s);

}  // namespace convfail::crawler
