// The Prometheus text parser and a one-shot GET, for the metrics tests.
#include "prometheus_text.hpp"

#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "echo_client.hpp"

namespace tiffany::testing {
namespace {

bool is_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; });
}

// True when `labels` is `{name="value",...}` with properly escaped values.
bool valid_labels(std::string_view labels) {
  if (labels.size() < 2 || labels.front() != '{' || labels.back() != '}') return false;
  std::size_t i = 1;
  while (i < labels.size() - 1) {
    const std::size_t equals = labels.find('=', i);
    if (equals == std::string_view::npos || !is_name(labels.substr(i, equals - i))) return false;
    if (equals + 1 >= labels.size() || labels[equals + 1] != '"') return false;
    std::size_t j = equals + 2;
    while (j < labels.size() && labels[j] != '"') j += labels[j] == '\\' ? 2 : 1;
    if (j >= labels.size()) return false;
    i = j + 1;
    if (labels[i] == ',') ++i;
  }
  return i == labels.size() - 1;
}

}  // namespace

std::map<std::string, double> parse_prometheus(const std::string& text) {
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream words(line);
      std::string hash, kind, name, rest;
      words >> hash >> kind >> name >> rest;
      EXPECT_TRUE((kind == "HELP" || kind == "TYPE") && is_name(name) && !rest.empty()) << "bad comment: " << line;
      if (kind == "TYPE") {
        EXPECT_TRUE(rest == "counter" || rest == "gauge" || rest == "histogram" || rest == "summary" ||
                    rest == "untyped")
            << "bad type: " << line;
      }
      continue;
    }
    const std::size_t space = line.rfind(' ');
    const std::string key = line.substr(0, space);
    const std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    const std::size_t brace = key.find('{');
    const bool ok = space != std::string::npos && is_name(key.substr(0, brace)) &&
                    (brace == std::string::npos || valid_labels(std::string_view(key).substr(brace)));
    if (!ok) {
      ADD_FAILURE() << "bad sample: " << line;
      continue;
    }
    char* end = nullptr;
    const double number = value == "+Inf" ? 1e308 : std::strtod(value.c_str(), &end);
    if (value != "+Inf" && (end == value.c_str() || *end != '\0')) ADD_FAILURE() << "bad value: " << line;
    samples[key] = number;
  }
  return samples;
}

std::string get(int port, const std::string& path) {
  UniqueFd fd = connect_loopback(port);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(fd.get(), buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, static_cast<std::size_t>(n));
  const auto body = reply.find("\r\n\r\n");
  return body == std::string::npos ? reply : reply.substr(body + 4);
}

}  // namespace tiffany::testing
