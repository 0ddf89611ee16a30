// The conformance suite's row types, its server (plain TCP and TLS listeners of
// one real binary, HTTP/2 on both) and the runners that check a row's status,
// framing and what becomes of the connection.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
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

/// HTTP/1.1 over plain TCP or TLS; HTTP/2 with prior knowledge on plain TCP
/// (h2c) or chosen by ALPN over TLS (h2).
enum class Transport { tcp, tls, h2c, h2 };

/// "Tcp", "Tls", "H2c", "H2": the suffix of a test's name.
std::string transport_name(Transport transport);
inline bool is_http2(Transport transport) { return transport == Transport::h2c || transport == Transport::h2; }

/// gtest prints a row by its name (not its bytes).
inline void PrintTo(const Row& row, std::ostream* out) { *out << row.name; }
inline void PrintTo(Transport transport, std::ostream* out) { *out << transport_name(transport); }

/// One RFC 9113 requirement on a request stream: the header list sent as it
/// is (":scheme" with the value "{scheme}" gets the transport's), what comes back.
struct H2Row {
  std::string name;  ///< Rfc9113_<section>_<what holds>
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> data;  ///< DATA frames; the last ends the stream (HEADERS does when none)
  std::optional<std::vector<std::pair<std::string, std::string>>> trailers;  ///< a HEADERS frame after the DATA
  bool trailers_end_stream = true;  ///< END_STREAM on the trailers (false: a malformed request)
  int status = 0;                 ///< the final response's status, or 0 for a reset
  std::uint32_t reset = 0;        ///< the RST_STREAM code expected when `status` is 0
  std::function<void(const Reply&)> check = nullptr;
};

inline void PrintTo(const H2Row& row, std::ostream* out) { *out << row.name; }

/// Sends `row` on a new HTTP/2 connection over `transport` (h2c or h2) and checks
/// the answer, no GOAWAY, and that a next stream on the connection is answered.
void run_h2_row(const H2Row& row, Transport transport);
std::string h2_row_test_name(const ::testing::TestParamInfo<std::tuple<H2Row, Transport>>& info);

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

/// Fails the test if the suite's server died.
void expect_server_running();

/// A parameterised test over rows and transports.
class ConformanceTest : public ::testing::TestWithParam<std::tuple<Row, Transport>> {
 protected:
  void TearDown() override { expect_server_running(); }
};

class H2ConformanceTest : public ::testing::TestWithParam<std::tuple<H2Row, Transport>> {
 protected:
  void TearDown() override { expect_server_running(); }
};

}  // namespace tiffany::testing
