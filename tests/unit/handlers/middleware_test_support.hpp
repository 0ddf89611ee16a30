// Shared pieces of the middleware unit tests: an inner handler that records whether it ran.
#pragma once

#include <string>

#include <tiffany/handlers/handler.hpp>

namespace tiffany::testkit {

/// The rest of a chain under test: answers 200 "inner" and counts its runs;
/// copies the request attribute "user" (if any) into header X-User.
class InnerHandler final : public Handler {
 public:
  Task<void> handle(http::Request& request, http::Response& response) override {
    ++runs;
    response.headers.add("Content-Type", "text/plain");
    if (const auto user = request.attribute("user")) response.headers.add("X-User", *user);
    response.body = "inner";
    co_return;
  }
  int runs = 0;
};

}  // namespace tiffany::testkit
