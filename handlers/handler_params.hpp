// HandlerParams: a route's handler-specific settings, read by a handler factory.
#pragma once

#include <picojson.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tiffany {

class WorkerContext;

/// Thrown by factories for a bad parameter. The server turns it into a
/// config error naming the file and the route's JSON path plus `key`.
class ParamError : public std::runtime_error {
 public:
  ParamError(std::string key, const std::string& message) : std::runtime_error(message), key_(std::move(key)) {}
  /// The offending key, or empty for a problem with the route as a whole.
  const std::string& key() const noexcept { return key_; }

 private:
  std::string key_;
};

/// A handler's settings (a route's `with` object, or the deprecated keys
/// beside the route keys) or a middleware's (its entry's keys but `use`).
/// Every accessor records the key as known; keys no accessor asked about are
/// reported as unknown after the factory returns (typos are errors).
class HandlerParams {
 public:
  /// The keys of a route object that belong to the route, never to its
  /// handler: when the settings sit beside them (the deprecated flat form),
  /// asking for one throws ParamError (it would always be absent).
  static constexpr std::string_view kRouteKeys[] = {"method", "path", "handler", "compress"};

  /// `base_directory` is the config file's folder: relative paths in params
  /// are resolved against it (see path()).
  /// `worker`: the plugin's context on the worker the handler is built for
  /// (or its config-check context; the built-ins have contexts of their own).
  /// `beside_route_keys`: the settings share an object with the route keys
  /// (false for `with` and middleware entries: any name is the factory's).
  explicit HandlerParams(const picojson::object& params, std::string base_directory = ".",
                         WorkerContext* worker = nullptr, bool beside_route_keys = true)
      : params_(&params), base_directory_(std::move(base_directory)), worker_(worker),
        beside_route_keys_(beside_route_keys) {}

  /// The plugin's context on the worker this handler serves (its app()
  /// holds the process-wide state). Keep the reference: it outlives the
  /// handler. While the config is checked it is a context of its own
  /// (checking() is true, no state): reach state in handle(). Throws
  /// std::logic_error for params made without one (null `worker`).
  WorkerContext& worker() const;

  std::string string(const std::string& key) const;                              // required
  std::string string_or(const std::string& key, std::string fallback) const;      // optional
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) const;
  bool boolean_or(const std::string& key, bool fallback) const;
  /// A required string naming a file or folder, made absolute against the
  /// config file's folder when relative.
  std::string path(const std::string& key) const;
  /// The raw JSON value of `key`, or nullptr when absent.
  const picojson::value* json(const std::string& key) const;
  /// The folder relative paths are resolved against (the config file's):
  /// for params of a nested object, read as HandlerParams of their own.
  const std::string& base_directory() const noexcept { return base_directory_; }

  /// Keys present but never asked for.
  std::vector<std::string> unknown_keys() const;
  /// Every key asked for, for "expected one of ..." messages.
  const std::set<std::string>& known_keys() const noexcept { return known_; }

 private:
  const picojson::value* find(const std::string& key) const;

  const picojson::object* params_;
  std::string base_directory_;
  mutable std::set<std::string> known_;
  WorkerContext* worker_;
  bool beside_route_keys_;
};

}  // namespace tiffany
