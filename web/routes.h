// The routes of `convfail serve` as one table of method, path and handler (server.cpp fills it
// with its handlers): the same table answers a request and yields the 405s, so a path cannot be
// served by one list and refused by another.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "web/http_server.h"

namespace convfail::web {

struct Route {
  const char* method;  // "GET" (also answers HEAD) or "POST"
  // The path, segment by segment; a segment "{name}" matches any one non-empty segment and is
  // handed to the handler as req.path_params["name"] ("/api/issues/{owner}/{repo}/{number}").
  const char* path;
  std::function<void(const HttpRequest&, HttpReply&)> handler;
};

struct RouteMatch {
  // The route to run; nullptr when no route answers (status 404 or 405).
  const Route* route = nullptr;
  // 404: no route has this path; 405: some do, none with this method.
  int status = 200;
  // With 405: the methods the path has, for the Allow header ("GET, HEAD").
  std::string allow;
  // The path's "{name}" segments of the route.
  std::map<std::string, std::string> params;
};

// The first route of `routes` whose path matches `path` and whose method is `method` (HEAD
// matches GET routes).
RouteMatch match_route(const std::vector<Route>& routes, const std::string& method,
                       const std::string& path);

}  // namespace convfail::web
