// The access log as the server writes it: the request-target as received,
// refused requests too, and JSON lines a strict parser accepts.
#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>
#include <picojson.h>

#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "conformance.hpp"
#include "integration/echo_client.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

// Sends `request` on a new connection and waits for the server to close or answer.
void send_and_wait(const std::string& request) {
  UniqueFd fd = connect_loopback(plain_port());
  ASSERT_TRUE(fd);
  ASSERT_EQ(::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  ::shutdown(fd.get(), SHUT_WR);
  char buffer[4096];
  const timeval patience{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  while (::recv(fd.get(), buffer, sizeof buffer, 0) > 0) {
  }
}

// The log's lines holding `mark`, parsed; waits for the once-a-second flush.
std::vector<picojson::object> lines_with(const std::string& mark, std::size_t expected) {
  std::vector<picojson::object> found;
  for (const auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(100ms)) {
    found.clear();
    std::istringstream log(access_log_contents());
    for (std::string line; std::getline(log, line);) {
      if (line.find(mark) == std::string::npos) continue;
      picojson::value value;
      const std::string error = picojson::parse(value, line);
      EXPECT_EQ(error, "") << line;
      if (!error.empty() || !value.is<picojson::object>()) continue;
      found.push_back(value.get<picojson::object>());
    }
    if (found.size() >= expected) break;
  }
  return found;
}

std::string mark() {
  std::random_device seed;
  return "m" + std::to_string(seed());
}

TEST(ServedAccessLog, RecordsTheRequestTargetAsReceived) {
  const std::string m = mark();
  send_and_wait("GET /static/%2e%2e/plaintext?" + m + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  const auto lines = lines_with(m, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].at("path").get<std::string>(), "/static/%2e%2e/plaintext");
  EXPECT_EQ(lines[0].at("status").get<double>(), 200);
}

TEST(ServedAccessLog, RecordsRequestsTheParserRefuses) {
  const std::string m = mark();
  send_and_wait("GET /no-host?" + m + " HTTP/1.1\r\n\r\n");
  send_and_wait("BREW /pot?" + m + " HTTP/1.1\r\nHost: t\r\n\r\n");
  send_and_wait("POST /echo?" + m + " HTTP/1.1\r\nHost: t\r\nContent-Length: 99999\r\n\r\n");
  const auto lines = lines_with(m, 3);
  ASSERT_EQ(lines.size(), 3u);
  std::multiset<std::string> seen;
  for (const auto& line : lines) {
    seen.insert(line.at("method").get<std::string>() + " " + std::to_string(static_cast<int>(line.at("status").get<double>())));
  }
  EXPECT_EQ(seen, (std::multiset<std::string>{"GET 400", "BREW 501", "POST 413"}));
}

TEST(ServedAccessLog, StaysValidJsonForInvalidUtf8) {
  const std::string m = mark();
  send_and_wait("GET /json/%ff?" + m + "=%c3 HTTP/1.1\r\nHost: t\r\nUser-Agent: \xff\xfe\r\nConnection: close\r\n\r\n");
  const auto lines = lines_with(m, 1);  // parsed strictly: picojson refuses no bytes, so check them too
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].at("user_agent").get<std::string>(), "\xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
}  // namespace tiffany::testing
