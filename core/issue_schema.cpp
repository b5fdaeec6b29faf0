#include "core/issue_schema.h"

#include <cstdint>

#include "core/error.h"
#include "core/text.h"

namespace convfail {
namespace {

const char* type_name(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number with a fraction or exponent";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "a binary value";
  }
}

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw UserError(field + ": " + what);
}

std::string mb(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MB";
  return std::to_string(bytes) + " bytes";
}

// A string's content: no NUL, within the limit (unless a body that may be truncated).
void check_text(const std::string& field, const std::string& s, const FieldLimits& limits,
                bool truncatable) {
  if (s.find('\0') != std::string::npos) {
    bad(field, "contains a NUL character (\\u0000) at byte " + std::to_string(s.find('\0')) +
                   ": not stored, remove it from the file");
  }
  if (s.size() > limits.max_field_bytes && !(truncatable && limits.truncate)) {
    bad(field, std::to_string(s.size()) + " bytes, over the limit of " +
                   mb(limits.max_field_bytes) + " (--max-field-mb" +
                   (truncatable ? "; --truncate-long-fields keeps the first part)" : ")"));
  }
}

// Optional string field of `obj`.
void string_field(const Json& obj, const char* key, const std::string& prefix,
                  const FieldLimits& limits, bool truncatable = false) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  std::string field = prefix + key;
  if (!it->is_string()) bad(field, std::string("expected a string, got ") + type_name(*it));
  check_text(field, it->get_ref<const std::string&>(), limits, truncatable);
}

void date_field(const Json& obj, const char* key, const std::string& prefix) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  std::string field = prefix + key;
  if (!it->is_string()) bad(field, std::string("expected an ISO-8601 time, got ") + type_name(*it));
  const std::string& s = it->get_ref<const std::string&>();
  // A date alone (YYYY-MM-DD, as in some dumps) is an ISO-8601 date.
  bool date_only = s.size() == 10 && parse_iso8601(s + "T00:00:00Z");
  if (!date_only && !parse_iso8601(s))
    bad(field, quoted_excerpt(s) + " is not an ISO-8601 date or time (YYYY-MM-DD[THH:MM:SSZ])");
}

void integer_field(const Json& obj, const char* key, const std::string& prefix) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  if (!it->is_number_integer())
    bad(prefix + key, std::string("expected an integer, got ") + type_name(*it));
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    bad(prefix + key, "integer out of range");
}

void object_field(const Json& obj, const char* key, const std::string& prefix,
                  const FieldLimits& limits, const char* login = nullptr) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  if (!it->is_object()) bad(prefix + key, std::string("expected an object, got ") + type_name(*it));
  if (login) string_field(*it, login, prefix + key + ".", limits);
}

void check_comment(const Json& c, const std::string& prefix, const FieldLimits& limits) {
  if (!c.is_object())
    bad(prefix.substr(0, prefix.size() - 1),
        std::string("expected an object, got ") + type_name(c));
  string_field(c, "body", prefix, limits, true);
  string_field(c, "author", prefix, limits);
  string_field(c, "author_association", prefix, limits);
  object_field(c, "user", prefix, limits, "login");
  integer_field(c, "id", prefix);
  date_field(c, "created_at", prefix);
  date_field(c, "updated_at", prefix);
}

}  // namespace

bool valid_repo_name(std::string_view full_name) {
  std::size_t slash = full_name.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view owner = full_name.substr(0, slash), name = full_name.substr(slash + 1);
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  // Logins do not begin with '-' (which also keeps them from reading as an option or a formula).
  if (owner.empty() || owner.size() > 39 || owner.front() == '-' || name.empty() ||
      name.size() > 100)
    return false;
  for (char c : owner)
    if (!alnum(c) && c != '-') return false;
  for (char c : name)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return name != "." && name != "..";
}

void check_repo_name(std::string_view full_name) {
  if (!valid_repo_name(full_name)) {
    bad("repository", quoted_excerpt(full_name) +
                          " is not OWNER/NAME (owner: up to 39 letters, digits or '-'; name: up "
                          "to 100 letters, digits, '-', '_' or '.')");
  }
}

std::int64_t checked_issue_number(const Json& value) {
  std::string range = " is not an integer in 1.." + std::to_string(kMaxIssueNumber);
  if (value.is_number_unsigned()) {
    auto v = value.get<std::uint64_t>();
    if (v < 1 || v > static_cast<std::uint64_t>(kMaxIssueNumber))
      bad("number", std::to_string(v) + range);
    return static_cast<std::int64_t>(v);
  }
  if (value.is_number_integer()) {
    auto v = value.get<std::int64_t>();
    if (v < 1 || v > kMaxIssueNumber) bad("number", std::to_string(v) + range);
    return v;
  }
  if (value.is_number_float()) bad("number", value.dump() + range);
  bad("number", std::string("expected an integer, got ") + type_name(value));
}

void validate_issue(const Json& issue, const FieldLimits& limits) {
  if (!issue.is_object())
    throw UserError(std::string("expected a JSON object, got ") + type_name(issue));
  auto n = issue.find("number");
  if (n == issue.end()) bad("number", "missing");
  checked_issue_number(*n);
  if (auto r = issue.find("repo"); r != issue.end() && !r->is_null()) {
    if (!r->is_string()) bad("repo", std::string("expected a string, got ") + type_name(*r));
    if (!valid_repo_name(r->get_ref<const std::string&>())) {
      try {
        check_repo_name(r->get_ref<const std::string&>());
      } catch (const UserError& e) {
        bad("repo", std::string(e.what()).substr(std::string("repository: ").size()));
      }
    }
  }
  string_field(issue, "title", "", limits);
  string_field(issue, "body", "", limits, true);
  string_field(issue, "state", "", limits);
  string_field(issue, "author", "", limits);
  string_field(issue, "author_association", "", limits);
  string_field(issue, "html_url", "", limits);
  string_field(issue, "repository_url", "", limits);
  object_field(issue, "user", "", limits, "login");
  integer_field(issue, "id", "");
  date_field(issue, "created_at", "");
  date_field(issue, "updated_at", "");
  date_field(issue, "closed_at", "");
  if (auto l = issue.find("labels"); l != issue.end() && !l->is_null()) {
    if (!l->is_array()) bad("labels", std::string("expected an array, got ") + type_name(*l));
    for (std::size_t i = 0; i < l->size(); ++i) {
      const Json& label = (*l)[i];
      std::string field = "labels[" + std::to_string(i) + "]";
      if (label.is_string()) {
        check_text(field, label.get_ref<const std::string&>(), limits, false);
      } else if (label.is_object()) {
        auto name = label.find("name");
        if (name == label.end() || !name->is_string()) bad(field + ".name", "expected a string");
        check_text(field + ".name", name->get_ref<const std::string&>(), limits, false);
      } else {
        bad(field,
            std::string("expected a string or an object with \"name\", got ") + type_name(label));
      }
    }
  }
  if (auto c = issue.find("comments"); c != issue.end() && !c->is_null()) {
    if (c->is_array()) {
      validate_comments(*c, limits);
    } else if (!c->is_number_integer() ||
               (c->is_number_integer() && !c->is_number_unsigned() && c->get<std::int64_t>() < 0)) {
      bad("comments", std::string("expected an array of comments or a count, got ") +
                          (c->is_number_integer() ? "a negative integer" : type_name(*c)));
    }
  }
  if (auto t = issue.find("timeline"); t != issue.end() && !t->is_null())
    validate_timeline(*t, limits);
}

void validate_comments(const Json& comments, const FieldLimits& limits) {
  if (!comments.is_array())
    bad("comments", std::string("expected an array, got ") + type_name(comments));
  for (std::size_t i = 0; i < comments.size(); ++i)
    check_comment(comments[i], "comments[" + std::to_string(i) + "].", limits);
}

void validate_timeline(const Json& events, const FieldLimits& limits) {
  if (!events.is_array())
    bad("timeline", std::string("expected an array, got ") + type_name(events));
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    std::string prefix = "timeline[" + std::to_string(i) + "].";
    if (!e.is_object())
      bad(prefix.substr(0, prefix.size() - 1),
          std::string("expected an object, got ") + type_name(e));
    string_field(e, "event", prefix, limits);
    string_field(e, "commit_id", prefix, limits);
    object_field(e, "actor", prefix, limits, "login");
    object_field(e, "source", prefix, limits);
    date_field(e, "created_at", prefix);
  }
}

std::size_t json_nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void check_string_lengths(std::string_view text, const FieldLimits& limits) {
  if (limits.truncate || text.size() / 6 <= limits.max_field_bytes) return;
  std::string_view key = "value";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    std::size_t start = ++i;
    while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    std::size_t len = std::min(i, text.size()) - start;
    std::size_t next = text.find_first_not_of(" \t\r\n", i + 1);
    if (next != std::string_view::npos && text[next] == ':') {
      key = text.substr(start, std::min<std::size_t>(len, 64));
    } else if (len / 6 > limits.max_field_bytes) {
      bad(terminal_safe(key), "a string of " + std::to_string(len) +
                                  " bytes of JSON text, over the limit of " +
                                  mb(limits.max_field_bytes) + " (--max-field-mb)");
    }
  }
}

void check_json_depth(std::string_view text) {
  if (json_nesting_depth(text) > kMaxJsonDepth)
    throw UserError("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

}  // namespace convfail
