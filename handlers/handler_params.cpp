// HandlerParams: typed access with ParamError for the wrong type.
#include <tiffany/handlers/handler_params.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace tiffany {
namespace {

std::string describe(const picojson::value& value) {
  if (value.is<std::string>() || value.is<double>() || value.is<bool>()) return value.serialize();
  if (value.is<picojson::null>()) return "null";
  return value.is<picojson::array>() ? "an array" : "an object";
}

}  // namespace

WorkerContext& HandlerParams::worker() const {
  if (worker_ == nullptr) throw std::logic_error("these handler params were made without a worker context");
  return *worker_;
}

const picojson::value* HandlerParams::find(const std::string& key) const {
  if (beside_route_keys_ && std::find(std::begin(kRouteKeys), std::end(kRouteKeys), key) != std::end(kRouteKeys)) {
    throw ParamError(key, "\"" + key + "\" is a route key (method, path, handler, compress), never a handler's setting: "
                          "the handler must give its setting another name");
  }
  known_.insert(key);
  const auto it = params_->find(key);
  return it == params_->end() ? nullptr : &it->second;
}

std::string HandlerParams::string(const std::string& key) const {
  const picojson::value* value = find(key);
  if (value == nullptr) throw ParamError(key, "missing required key");
  if (!value->is<std::string>()) throw ParamError(key, "expected a string, got " + describe(*value));
  return value->get<std::string>();
}

std::string HandlerParams::string_or(const std::string& key, std::string fallback) const {
  return find(key) == nullptr ? std::move(fallback) : string(key);
}

std::int64_t HandlerParams::integer_or(const std::string& key, std::int64_t fallback, std::int64_t min,
                                       std::int64_t max) const {
  const picojson::value* value = find(key);
  if (value == nullptr) return fallback;
  const std::string expected = "expected an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!value->is<double>()) throw ParamError(key, expected + ", got " + describe(*value));
  const double number = value->get<double>();
  if (std::floor(number) != number || number < static_cast<double>(min) || number > static_cast<double>(max)) {
    throw ParamError(key, expected + ", got " + describe(*value));
  }
  return static_cast<std::int64_t>(number);
}

bool HandlerParams::boolean_or(const std::string& key, bool fallback) const {
  const picojson::value* value = find(key);
  if (value == nullptr) return fallback;
  if (!value->is<bool>()) throw ParamError(key, "expected true or false, got " + describe(*value));
  return value->get<bool>();
}

std::string HandlerParams::path(const std::string& key) const {
  std::string value = string(key);
  if (value.empty()) throw ParamError(key, "expected a non-empty path");
  return value.front() == '/' ? value : base_directory_ + "/" + value;
}

const picojson::value* HandlerParams::json(const std::string& key) const { return find(key); }

std::vector<std::string> HandlerParams::unknown_keys() const {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : *params_) {
    if (!known_.contains(key)) unknown.push_back(key);
  }
  return unknown;
}

}  // namespace tiffany
