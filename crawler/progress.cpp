#include "crawler/progress.h"

#include "core/text.h"

#include <cstdio>

namespace convfail::crawler {

void CrawlProgressLine::update(const CrawlSummary& s) {
  if (!enabled_) return;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s: %lld issues (%lld new, %lld updated), %lld pages, %lld requests, %lld 304s, "
                "budget %s, waited %.0f s",
                s.repo.c_str(), static_cast<long long>(s.issues_seen),
                static_cast<long long>(s.new_issues), static_cast<long long>(s.updated_issues),
                static_cast<long long>(s.pages), static_cast<long long>(s.api.requests),
                static_cast<long long>(s.api.not_modified),
                s.api.rate_remaining ? std::to_string(*s.api.rate_remaining).c_str() : "?",
                s.api.rate_limit_wait_s);
  std::string line = buf;
  if (s.api_kind == "graphql")
    line += ", " + std::to_string(s.points_used) + " points used, " +
            (s.points_remaining ? std::to_string(*s.points_remaining) : std::string("?")) +
            " points left";
  if (line == last_) return;
  clear();
  out_ << line << std::flush;
  last_ = line;
  shown_ = true;
}

void CrawlProgressLine::clear() {
  if (shown_) out_ << "\r\033[K";
  shown_ = false;
}

void CrawlProgressLine::notice(const std::string& message) {
  clear();
  out_ << "convfail: " << convfail::terminal_safe(message) << "\n";  // names server text
  if (enabled_ && !last_.empty()) {
    out_ << last_ << std::flush;
    shown_ = true;
  }
}

void CrawlProgressLine::finish() {
  if (shown_) out_ << "\n" << std::flush;
  shown_ = false;
  last_.clear();
}

std::string describe_summary(const CrawlSummary& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s: %lld issue(s) seen: %lld new, %lld updated, %lld unchanged; %lld pull "
                "request(s) and %lld excluded skipped; %lld request(s), %lld answered 304, %lld "
                "retried, %.1f s waiting for rate limits%s%s",
                s.repo.c_str(), static_cast<long long>(s.issues_seen),
                static_cast<long long>(s.new_issues), static_cast<long long>(s.updated_issues),
                static_cast<long long>(s.unchanged_issues),
                static_cast<long long>(s.pull_requests_skipped), static_cast<long long>(s.excluded),
                static_cast<long long>(s.api.requests), static_cast<long long>(s.api.not_modified),
                static_cast<long long>(s.api.retries), s.api.rate_limit_wait_s,
                s.api_kind == "graphql"
                    ? ("; GraphQL: " + std::to_string(s.points_used) + " point(s)").c_str()
                    : "",
                s.complete ? "" : " (stopped at --max-issues; the next run continues)");
  return buf;
}

}  // namespace convfail::crawler
