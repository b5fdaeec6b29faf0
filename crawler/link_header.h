// RFC 8288 Link headers as GitHub sends them: <url>; rel="next", <url>; rel="last".
#pragma once

#include <optional>
#include <string>

namespace convfail::crawler {

// The URL of the link with relation `rel` ("next", "last", ...), if present.
std::optional<std::string> link_with_rel(const std::string& header, const std::string& rel);

}  // namespace convfail::crawler
