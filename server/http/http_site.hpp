// HttpSite: what one HTTP listener serves: its routes and its limits.
#pragma once

#include "server/http/http_limits.hpp"
#include "server/http/router.hpp"

namespace tiffany::http {

struct HttpSite {
  Router router;
  HttpLimits limits;
  HttpTimeouts timeouts;
};

}  // namespace tiffany::http
