#include "web/routes.h"

#include <algorithm>

#include "core/text.h"

namespace convfail::web {
namespace {

// The path's segments ("/a/b" -> "a", "b"; "/" -> none); an empty segment ("/a//b", "/a/") is
// kept as "", which no "{name}" matches.
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  if (path.empty() || path[0] != '/' || path == "/") return out;
  for (std::size_t at = 1;;) {
    std::size_t slash = path.find('/', at);
    out.push_back(path.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
    if (slash == std::string::npos) return out;
    at = slash + 1;
  }
}

bool matches(const std::string& pattern, const std::vector<std::string>& path,
             std::map<std::string, std::string>* params) {
  std::vector<std::string> want = segments(pattern);
  if (want.size() != path.size()) return false;
  std::map<std::string, std::string> bound;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::string& w = want[i];
    if (w.size() > 2 && w.front() == '{' && w.back() == '}') {
      if (path[i].empty()) return false;
      bound[w.substr(1, w.size() - 2)] = path[i];
    } else if (w != path[i]) {
      return false;
    }
  }
  *params = std::move(bound);
  return true;
}

}  // namespace

RouteMatch match_route(const std::vector<Route>& routes, const std::string& method,
                       const std::string& path) {
  const std::string wanted = method == "HEAD" ? "GET" : method;
  RouteMatch m;
  std::vector<std::string> allowed;
  const std::vector<std::string> parts = segments(path);
  if (path.empty() || path[0] != '/') {
    m.status = 404;
    return m;
  }
  for (const Route& r : routes) {
    std::map<std::string, std::string> params;
    if (!matches(r.path, parts, &params)) continue;
    if (wanted == r.method) {
      m.route = &r;
      m.params = std::move(params);
      return m;
    }
    if (std::find(allowed.begin(), allowed.end(), r.method) == allowed.end())
      allowed.push_back(r.method);
  }
  if (allowed.empty()) {
    m.status = 404;
    return m;
  }
  // GET routes answer HEAD as well.
  if (std::find(allowed.begin(), allowed.end(), "GET") != allowed.end()) allowed.push_back("HEAD");
  std::sort(allowed.begin(), allowed.end());
  m.status = 405;
  m.allow = join(allowed, ", ");
  return m;
}

}  // namespace convfail::web
