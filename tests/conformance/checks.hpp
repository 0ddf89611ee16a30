// Small composable assertions for conformance rows.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace tiffany::testing::checks {

using Check = std::function<void(const std::vector<Reply>&)>;

/// The first response's body is `body`.
inline Check body(std::string expected) {
  return [expected](const std::vector<Reply>& r) { EXPECT_EQ(r.front().body, expected); };
}

/// The first response has `name: value`.
inline Check field(std::string name, std::string value) {
  return [name, value](const std::vector<Reply>& r) {
    EXPECT_EQ(r.front().field(name).value_or("<absent>"), value) << name;
  };
}

/// The first response has a field `name` (any value).
inline Check has(std::string name) {
  return [name](const std::vector<Reply>& r) { EXPECT_TRUE(r.front().field(name).has_value()) << name << " missing"; };
}

/// The first response has no field `name`.
inline Check lacks(std::string name) {
  return [name](const std::vector<Reply>& r) { EXPECT_FALSE(r.front().field(name).has_value()) << name << " present"; };
}

/// The first response's body holds `part`.
inline Check body_has(std::string part) {
  return [part](const std::vector<Reply>& r) { EXPECT_NE(r.front().body.find(part), std::string::npos) << r.front().body; };
}

/// The JSON handler's body echoes field `name` as `json` ("\"X-A\":\"1\""). Why
/// either case: HTTP/2 carries names in lower case (RFC 9113 §8.2.1), HTTP/1.1 as sent.
inline Check echoed(std::string name, std::string json) {
  return [name, json](const std::vector<Reply>& r) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string& body = r.front().body;
    EXPECT_TRUE(body.find("\"" + name + "\":" + json) != std::string::npos ||
                body.find("\"" + lower + "\":" + json) != std::string::npos)
        << name << ": " << json << " not in " << body;
  };
}

/// No 1xx came before the first final response.
inline Check no_interim() {
  return [](const std::vector<Reply>& r) { EXPECT_TRUE(r.front().interim.empty()) << "a 1xx was sent"; };
}

/// The statuses of all the final responses, in order.
inline Check statuses(std::vector<int> expected) {
  return [expected](const std::vector<Reply>& r) {
    std::vector<int> got;
    for (const Reply& reply : r) got.push_back(reply.status);
    EXPECT_EQ(got, expected);
  };
}

/// The bodies of all the final responses, in order.
inline Check bodies(std::vector<std::string> expected) {
  return [expected](const std::vector<Reply>& r) {
    std::vector<std::string> got;
    for (const Reply& reply : r) got.push_back(reply.body);
    EXPECT_EQ(got, expected);
  };
}

/// Every check, in order.
inline Check all(std::vector<Check> each) {
  return [each](const std::vector<Reply>& r) {
    for (const Check& check : each) check(r);
  };
}

}  // namespace tiffany::testing::checks
