// Reading the metrics handler in tests: a small Prometheus text parser.
#pragma once

#include <map>
#include <string>

namespace tiffany::testing {

/// A small parser of the Prometheus text format (version 0.0.4): fails the
/// current test on any malformed line; returns "name{labels}" -> value.
std::map<std::string, double> parse_prometheus(const std::string& text);

/// GET `path` on a fresh connection (Connection: close); returns the body.
std::string get(int port, const std::string& path);

}  // namespace tiffany::testing
