// The conformance suite's row type, its server (plain TCP and TLS listeners of
// one real binary) and the runner that checks a row's status, framing and close.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace tiffany::testing {

/// One response as read off the wire, framed the way RFC 9112 §6.3 says.
struct Reply {
  std::string version;  // "HTTP/1.1"
  int status = 0;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string body;
  std::vector<int> interim;  // 1xx statuses that came before it

  /// The first value of `name` (case-insensitive), or nullopt.
  std::optional<std::string> field(std::string_view name) const;
  /// How many fields are called `name`.
  std::size_t count(std::string_view name) const;
};

/// After the final response: must the server close, or keep the connection
/// usable (checked with a further request on it)?
enum class Then { close, keep_alive };

/// One requirement: the bytes sent, what must come back.
struct Row {
  Row(std::string name_, std::string request_, int status_, Then then_,
      std::function<void(const std::vector<Reply>&)> check_ = nullptr, std::string after_continue_ = "",
      int responses_ = 1)
      : name(std::move(name_)),
        request(std::move(request_)),
        status(status_),
        then(then_),
        check(std::move(check_)),
        after_continue(std::move(after_continue_)),
        responses(responses_) {}

  std::string name;     ///< the test name: Rfc<number>_<section>_<what holds>
  std::string request;  ///< raw bytes; "{etag}" and "{last_modified}" are the static file's
  int status;           ///< of the (first) final response
  Then then;
  /// More assertions on the final responses (one per request in `request`).
  std::function<void(const std::vector<Reply>&)> check;
  std::string after_continue;  ///< sent once a 100 Continue arrives (the body)
  int responses;               ///< final responses expected (pipelined requests)
};

enum class Transport { tcp, tls };

/// gtest prints a row by its name (not its bytes).
inline void PrintTo(const Row& row, std::ostream* out) { *out << row.name; }
inline void PrintTo(Transport transport, std::ostream* out) { *out << (transport == Transport::tcp ? "tcp" : "tls"); }

/// The static file every range and conditional row is about: its content and
/// its (fixed) modification time.
inline constexpr std::string_view kFileBody = "abcdefghijklmnopqrstuvwxyz";
inline constexpr std::string_view kFileModified = "Wed, 01 Jan 2020 00:00:00 GMT";

/// Sends `row.request` to the suite's server over `transport` and checks
/// everything the row promises, plus what holds for every response (a Date,
/// never both Content-Length and Transfer-Encoding, no body for HEAD, 1xx,
/// 204 and 304, nothing after a response that closes the connection).
void run_row(const Row& row, Transport transport);

/// "Rfc9112_3_2_RequestWithoutHostIs400_Tls": the row's name and the transport.
std::string row_test_name(const ::testing::TestParamInfo<std::tuple<Row, Transport>>& info);

/// What the server logged, for checks on the access log.
std::string access_log_contents();
/// The port of the plain listener.
int plain_port();

/// A parameterised test over rows and both transports.
class ConformanceTest : public ::testing::TestWithParam<std::tuple<Row, Transport>> {
 protected:
  void TearDown() override;
};

}  // namespace tiffany::testing
