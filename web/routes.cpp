#include "web/routes.h"

#include <algorithm>

#include "core/text.h"

namespace convfail::web {

RouteMatch match_route(const std::vector<Route>& routes, const std::string& method,
                       const std::string& path) {
  const std::string wanted = method == "HEAD" ? "GET" : method;
  RouteMatch m;
  std::vector<std::string> allowed;
  for (const Route& r : routes) {
    if (r.prefix ? !starts_with(path, r.path) : path != r.path) continue;
    if (wanted == r.method) {
      m.route = &r;
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
