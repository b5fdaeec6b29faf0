#include "core/issue_ref.h"

#include <re2/re2.h>

#include "core/error.h"
#include "core/issue_schema.h"
#include "core/issue_store.h"

namespace convfail {

namespace {

[[noreturn]] void bad_ref(const std::string& text, const std::string& why) {
  throw UsageError("bad issue reference '" + text + "' (" + why +
                   "): expected OWNER/REPO#N or https://github.com/OWNER/REPO/issues/N");
}

}  // namespace

IssueRef parse_issue_ref(const std::string& text) {
  // Names are captured loosely ([^/#?\s]+) so that a bad character gets its own message.
  static const RE2 short_form(R"(\s*([^/#?\s]+)/([^/#?\s]+)#(\S*?)\s*)");
  static const RE2 path_form(
      R"(\s*(?:(?:https?://)?(?:www\.)?github\.com/)?([^/#?\s]+)/([^/#?\s]+)/(?:issues|pull)/)"
      R"(([^/#?\s]*)/?(?:[?#]\S*)?\s*)");
  static const RE2 digits(R"([0-9]+)");
  std::string owner, repo, number;
  if (!RE2::FullMatch(text, short_form, &owner, &repo, &number) &&
      !RE2::FullMatch(text, path_form, &owner, &repo, &number))
    bad_ref(text, "not a reference");
  // GitHub's rules (core/issue_schema.h), as for imported issues.
  if (!valid_repo_name(owner + "/" + repo)) {
    bad_ref(text,
            "bad owner or repository: the owner has up to 39 letters, digits or '-', the "
            "repository up to 100 letters, digits, '-', '_' or '.'");
  }
  if (!RE2::FullMatch(number, digits)) bad_ref(text, "the issue number is not a number");
  std::size_t first = number.find_first_not_of('0');
  if (first == std::string::npos || number.size() - first > 16)
    bad_ref(text, "the issue number is not in 1..2^53");
  std::int64_t n = std::stoll(number.substr(first));
  if (n > kMaxIssueNumber) bad_ref(text, "the issue number is not in 1..2^53");
  return {owner + "/" + repo, n};
}

std::string to_string(const IssueRef& ref) {
  return ref.repo + "#" + std::to_string(ref.number);
}

std::string issue_page_url(const IssueRef& ref, const std::string& html_url) {
  if (html_url.rfind("https://github.com/", 0) == 0) return html_url;
  return "https://github.com/" + ref.repo + "/issues/" + std::to_string(ref.number);
}

std::int64_t require_issue(Db& db, const IssueRef& ref) {
  IssueStore store(db);
  auto id = store.find_issue(ref.repo, ref.number);
  if (!id)
    throw UserError("issue " + to_string(ref) + " is not in the store (import or crawl it first)");
  return *id;
}

}  // namespace convfail
