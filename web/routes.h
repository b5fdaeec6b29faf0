// The routes of `convfail serve` as one table of method, path and handler (server.cpp fills it
// with its handlers): the same table answers a request and yields the 405s, so a path cannot be
// served by one list and refused by another.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "web/http_server.h"

namespace convfail::web {

struct Route {
  const char* method;  // "GET" (also answers HEAD) or "POST"
  const char* path;    // the path, or with `prefix` what it starts with ("/api/issues/")
  bool prefix;
  std::function<void(const HttpRequest&, HttpReply&)> handler;
};

struct RouteMatch {
  // The route to run; nullptr when no route answers (status 404 or 405).
  const Route* route = nullptr;
  // 404: no route has this path; 405: some do, none with this method.
  int status = 200;
  // With 405: the methods the path has, for the Allow header ("GET, HEAD").
  std::string allow;
};

// The first route of `routes` whose path matches `path` and whose method is `method` (HEAD
// matches GET routes).
RouteMatch match_route(const std::vector<Route>& routes, const std::string& method,
                       const std::string& path);

}  // namespace convfail::web
