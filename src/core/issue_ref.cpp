#include "core/issue_ref.h"

#include <regex>

#include "core/error.h"
#include "core/issue_store.h"

namespace convfail {

IssueRef parse_issue_ref(const std::string& text) {
  static const std::regex short_form(R"(^\s*([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)#(\d{1,15})\s*$)");
  static const std::regex url_form(
      R"(^\s*(?:https?://github\.com/)?([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:issues|pull)/(\d{1,15})/?\s*$)");
  std::smatch m;
  if (std::regex_match(text, m, short_form) || std::regex_match(text, m, url_form)) {
    return {m[1].str() + "/" + m[2].str(), std::stoll(m[3].str())};
  }
  throw UsageError("bad issue reference '" + text + "': expected OWNER/REPO#NUMBER, e.g. " +
                   "pytorch/pytorch#49403");
}

std::int64_t require_issue(Db& db, const IssueRef& ref) {
  IssueStore store(db);
  auto id = store.find_issue(ref.repo, ref.number);
  if (!id)
    throw UserError("issue " + ref.repo + "#" + std::to_string(ref.number) +
                    " is not in the store (import or crawl it first)");
  return *id;
}

}  // namespace convfail
