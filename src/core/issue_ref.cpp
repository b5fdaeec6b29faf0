#include "core/issue_ref.h"

#include <re2/re2.h>

#include "core/error.h"
#include "core/issue_store.h"

namespace convfail {

namespace {

constexpr std::int64_t kMaxIssueNumber = std::int64_t{1} << 53;

[[noreturn]] void bad_ref(const std::string& text, const std::string& why) {
  throw UsageError("bad issue reference '" + text + "' (" + why +
                   "): expected OWNER/REPO#N or https://github.com/OWNER/REPO/issues/N");
}

bool valid_name(const std::string& name, std::size_t max_length) {
  return !name.empty() && name.size() <= max_length && name != "." && name != "..";
}

}  // namespace

IssueRef parse_issue_ref(const std::string& text) {
  // Names are captured loosely ([^/#?\s]+) so that a bad character gets its own message.
  static const RE2 short_form(R"(\s*([^/#?\s]+)/([^/#?\s]+)#(\S*?)\s*)");
  static const RE2 path_form(
      R"(\s*(?:(?:https?://)?(?:www\.)?github\.com/)?([^/#?\s]+)/([^/#?\s]+)/(?:issues|pull)/)"
      R"(([^/#?\s]*)/?(?:[?#]\S*)?\s*)");
  static const RE2 name_chars(R"([A-Za-z0-9_.-]+)");
  static const RE2 digits(R"([0-9]+)");
  std::string owner, repo, number;
  if (!RE2::FullMatch(text, short_form, &owner, &repo, &number) &&
      !RE2::FullMatch(text, path_form, &owner, &repo, &number))
    bad_ref(text, "not a reference");
  if (!RE2::FullMatch(owner, name_chars) || !RE2::FullMatch(repo, name_chars))
    bad_ref(text, "owner and repository names hold letters, digits, '-', '_' and '.' only");
  // GitHub's limits: logins up to 39 characters, repository names up to 100.
  if (!valid_name(owner, 39) || !valid_name(repo, 100)) bad_ref(text, "bad owner or repository");
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

std::int64_t require_issue(Db& db, const IssueRef& ref) {
  IssueStore store(db);
  auto id = store.find_issue(ref.repo, ref.number);
  if (!id)
    throw UserError("issue " + to_string(ref) + " is not in the store (import or crawl it first)");
  return *id;
}

}  // namespace convfail
