// Test harness: runs one handler on one request and collects what it produced.
#pragma once

#include <memory>
#include <string>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/testkit/plugin_harness.hpp>

namespace tiffany::testing {

using testkit::CollectingSink;
using testkit::Outcome;

/// Runs `handler` on `request` to completion on a fresh scheduler.
inline std::unique_ptr<Outcome> run_handler(Handler& handler, http::Request& request) {
  auto outcome = std::make_unique<Outcome>();
  CollectingSink sink(*outcome);
  outcome->response.attach(&sink);
  Scheduler scheduler;
  auto done = scheduler.spawn(handler.handle(request, outcome->response));
  scheduler.run();
  done.take_result();
  outcome->response.attach(nullptr);
  return outcome;
}

/// Parses `json` as a route's params object.
inline picojson::object params_from(const std::string& json) {
  picojson::value value;
  const std::string error = picojson::parse(value, json);
  if (!error.empty() || !value.is<picojson::object>()) throw std::runtime_error("bad test params: " + json);
  return value.get<picojson::object>();
}

inline http::Request make_request(std::string method, std::string path) {
  http::Request request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.target = request.path;
  return request;
}

}  // namespace tiffany::testing
