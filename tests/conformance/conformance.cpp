// The conformance runner: one tiffany process with a plain HTTP/1.1 listener,
// an h2c one and a TLS one (HTTP/2 by ALPN), raw HTTP/1.1 requests or their
// HTTP/2 form, and the checks every response must pass.
#include "conformance.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "h2_exchange.hpp"
#include "integration/echo_client.hpp"
#include "integration/server_process.hpp"
#include "integration/tls_test_client.hpp"
#include "support/test_certificate.hpp"
#include "wire.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Generous: CI runs this on two cores under sanitizers.
constexpr auto kPatience = 10s;
constexpr std::time_t kFileMtime = 1577836800;  // kFileModified

std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// The server every row talks to, started on first use and killed at exit.
class Server {
 public:
  Server() {
    const std::string www = dir_.path() + "/www";
    ::mkdir(www.c_str(), 0755);
    const std::string file = dir_.write("www/file.txt", std::string(kFileBody));
    const timespec times[2] = {{kFileMtime, 0}, {kFileMtime, 0}};
    ::utimensat(AT_FDCWD, file.c_str(), times, 0);
    certificate_ = write_test_certificate(dir_.path(), "localhost", "localhost", {"localhost"});
    access_log_ = dir_.path() + "/access.log";
    const std::string site = R"(
       "limits": {"max_body_bytes": 1024, "max_uri_bytes": 512, "max_header_bytes": 4096},
       "timeouts": {"header_ms": 2000, "body_ms": 30000, "keepalive_ms": 30000, "linger_ms": 2000},
       "routes": [
         {"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
         {"method": "*", "path": "/echo", "handler": "echo"},
         {"method": "GET", "path": "/json/*", "handler": "json"},
         {"method": "GET", "path": "/static/*", "handler": "static", "root": ")" + www + R"("}])";
    // Why the same header limit as limits.max_header_bytes: HTTP/2 counts its own
    // (RFC 9113 §6.5.2), and the 431 row holds over both.
    // Why h2c on a listener of its own, and HTTP/2 off on "plain" (it is on by default):
    // with HTTP/2 the preface starts HTTP/2, and the RFC 9112 rows are about a listener
    // that answers it with 505.
    const std::string http2 = R"("http2": {"enabled": true, "max_header_list_size": 4096})";
    const std::string config = R"({"workers": 1,
      "access_log": {"path": ")" + access_log_ + R"(", "format": "json"},
      "listeners": [
        {"name": "plain", "address": "127.0.0.1:0", "protocol": "http", "http2": {"enabled": false}, )" + site + R"(},
        {"name": "h2c", "address": "127.0.0.1:0", "protocol": "http", )" + http2 + ", " + site + R"(},
        {"name": "tls", "address": "127.0.0.1:0", "protocol": "http", )" + http2 + R"(,
         "tls": {"cert": ")" + certificate_.cert_file + R"(", "key": ")" + certificate_.key_file + R"("}, )" +
                               site + R"(}]})";
    // TIFFANY_CONFORMANCE_BINARY runs the suite against another build (an older one, say).
    const char* binary = std::getenv("TIFFANY_CONFORMANCE_BINARY");
    process_ = std::make_unique<ServerProcess>(config, std::vector<std::string>{},
                                               binary != nullptr ? std::string(binary) : tiffany_binary());
    plain_port_ = process_->port_of("plain");
    h2c_port_ = process_->port_of("h2c");
    tls_port_ = process_->port_of("tls");
  }

  int port(Transport transport) const {
    return transport == Transport::tcp ? plain_port_ : transport == Transport::h2c ? h2c_port_ : tls_port_;
  }
  const std::string& ca_file() const { return certificate_.cert_file; }
  const std::string& access_log() const { return access_log_; }
  ServerProcess& process() { return *process_; }

 private:
  TempDir dir_;
  TestCertificate certificate_;
  std::string access_log_;
  std::unique_ptr<ServerProcess> process_;
  int plain_port_ = 0;
  int h2c_port_ = 0;
  int tls_port_ = 0;
};

Server& server() {
  static Server instance;
  return instance;
}

// Why for HTTP/2 only: its client writes small frames (a SETTINGS ack, window
// credit) the server does not answer, and the next request would wait on
// Nagle for the delayed ACK (40 ms a row). HTTP/1.1 rows keep their old wire.
void set_no_delay(int fd) {
  const int on = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

class TcpWire final : public Wire {
 public:
  TcpWire(int port, bool no_delay) : fd_(connect_loopback(port)) {
    if (fd_ && no_delay) set_no_delay(fd_.get());
  }
  bool ready() const override { return static_cast<bool>(fd_); }
  bool send(std::string_view bytes) override {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool receive(std::string& into, std::chrono::milliseconds timeout) override {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char buffer[65536];
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
  }
  bool closed() const override { return closed_; }

 private:
  UniqueFd fd_;
  bool closed_ = false;
};

class TlsWire final : public Wire {
 public:
  TlsWire(int port, const std::string& alpn) : client_(port, server().ca_file(), "localhost", alpn), alpn_(alpn) {
    if (!alpn.empty()) set_no_delay(client_.fd());
  }
  bool ready() const override { return client_.ok() && client_.alpn_selected() == alpn_; }
  bool send(std::string_view bytes) override { return client_.send(bytes); }
  bool receive(std::string& into, std::chrono::milliseconds timeout) override {
    const std::string more = client_.receive(1, timeout);  // whatever one record brings
    into += more;
    return !more.empty();
  }
  bool closed() const override { return client_.closed(); }

 private:
  TlsTestClient client_;
  std::string alpn_;  // what the server must have chosen ("" for HTTP/1.1 without ALPN)
};

std::unique_ptr<Wire> connect(Transport transport) {
  const int port = server().port(transport);
  if (transport == Transport::tcp || transport == Transport::h2c) {
    return std::make_unique<TcpWire>(port, transport == Transport::h2c);
  }
  return std::make_unique<TlsWire>(port, transport == Transport::h2 ? "h2" : "");
}

// Reads into `buffer` until it holds `size` bytes; false on close or timeout.
bool fill(Wire& wire, std::string& buffer, std::size_t size, Clock::time_point deadline) {
  while (buffer.size() < size) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !wire.receive(buffer, left)) return false;
  }
  return true;
}

// Reads until `buffer` holds `marker`; returns its offset or npos.
std::size_t fill_until(Wire& wire, std::string& buffer, std::string_view marker, std::size_t from,
                       Clock::time_point deadline) {
  for (;;) {
    const auto at = buffer.find(marker, from);
    if (at != std::string::npos) return at;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !wire.receive(buffer, left)) return std::string::npos;
  }
}

// One final response (and the 1xx before it) from `buffer`, framed by RFC 9112
// §6.3: no body for HEAD, 1xx, 204 and 304; else chunked, Content-Length or the close.
std::optional<Reply> read_reply(Wire& wire, std::string& buffer, bool head, const std::function<void(int)>& on_interim,
                                std::string& error) {
  const auto deadline = Clock::now() + kPatience;
  Reply reply;
  for (;;) {
    const auto head_end = fill_until(wire, buffer, "\r\n\r\n", 0, deadline);
    if (head_end == std::string::npos) {
      error = std::string(wire.closed() ? "closed" : "timed out") + " before a whole response head; got: " + buffer;
      return std::nullopt;
    }
    const std::string section = buffer.substr(0, head_end + 2);
    buffer.erase(0, head_end + 4);
    const auto line_end = section.find("\r\n");
    const std::string line = section.substr(0, line_end);
    if (line.size() < 12 || !line.starts_with("HTTP/") || line[8] != ' ') {
      error = "not a status line: " + line;
      return std::nullopt;
    }
    reply.version = line.substr(0, 8);
    reply.status = std::stoi(line.substr(9, 3));
    reply.fields.clear();
    for (std::size_t at = line_end + 2; at < section.size();) {
      const auto end = section.find("\r\n", at);
      const std::string field = section.substr(at, end - at);
      const auto colon = field.find(':');
      if (colon == std::string::npos) {
        error = "not a field line: " + field;
        return std::nullopt;
      }
      std::string value = field.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      reply.fields.emplace_back(field.substr(0, colon), value);
      at = end + 2;
    }
    if (reply.status >= 100 && reply.status < 200) {
      reply.interim.push_back(reply.status);
      if (on_interim) on_interim(reply.status);
      continue;
    }
    break;
  }
  if (head || reply.status == 204 || reply.status == 304) return reply;
  const auto coding = reply.field("Transfer-Encoding");
  if (coding && iequals(*coding, "chunked")) {
    for (;;) {
      const auto size_end = fill_until(wire, buffer, "\r\n", 0, deadline);
      if (size_end == std::string::npos) {
        error = "chunked body cut short";
        return std::nullopt;
      }
      const std::size_t size = std::stoul(buffer.substr(0, size_end), nullptr, 16);
      buffer.erase(0, size_end + 2);
      if (size == 0) {
        const auto trailer_end = fill_until(wire, buffer, "\r\n", 0, deadline);  // no trailers from us
        if (trailer_end != 0) {
          error = "bad chunked terminator";
          return std::nullopt;
        }
        buffer.erase(0, 2);
        return reply;
      }
      if (!fill(wire, buffer, size + 2, deadline)) {
        error = "chunk cut short";
        return std::nullopt;
      }
      reply.body += buffer.substr(0, size);
      buffer.erase(0, size + 2);
    }
  }
  if (const auto length = reply.field("Content-Length")) {
    const std::size_t size = std::stoul(*length);
    if (!fill(wire, buffer, size, deadline)) {
      error = "body shorter than its Content-Length " + *length + ": " + buffer;
      return std::nullopt;
    }
    reply.body = buffer.substr(0, size);
    buffer.erase(0, size);
    return reply;
  }
  while (wire.receive(buffer, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()))) {
  }
  reply.body = std::move(buffer);  // delimited by the close
  buffer.clear();
  return reply;
}

// The static file's validators, for rows that send them back.
const std::string& current_etag() {
  static const std::string etag = [] {
    TcpWire wire(server().port(Transport::tcp), false);
    std::string buffer;
    std::string error;
    wire.send("GET /static/file.txt HTTP/1.1\r\nHost: t\r\n\r\n");
    const auto reply = read_reply(wire, buffer, false, nullptr, error);
    return reply ? reply->field("ETag").value_or("") : std::string();
  }();
  return etag;
}

std::string substitute(std::string text) {
  for (const auto& [marker, value] : {std::pair<std::string, std::string>{"{etag}", ""},
                                      std::pair<std::string, std::string>{"{last_modified}", std::string(kFileModified)}}) {
    for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) {
      const std::string& replacement = marker == "{etag}" ? current_etag() : value;
      text.replace(at, marker.size(), replacement);
      at += replacement.size();
    }
  }
  return text;
}

// What holds for every HTTP/2 response: one Date (RFC 9110 §6.6.1), no
// connection-specific field (RFC 9113 §8.2.2), no content for HEAD, 204 and
// 304, and a Content-Length that is the content's length (RFC 9113 §8.1.1).
void check_h2_reply(const Reply& reply, bool head) {
  EXPECT_EQ(reply.count("date"), 1u) << "a response without one Date";
  for (const char* specific : {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"}) {
    EXPECT_FALSE(reply.field(specific).has_value()) << "a connection-specific field in an HTTP/2 response: " << specific;
  }
  for (const auto& [name, value] : reply.fields) {
    EXPECT_EQ(name, lower_case(name)) << "an upper-case field name in an HTTP/2 response (RFC 9113 §8.2.1)";
  }
  EXPECT_LE(reply.count("content-length"), 1u);
  if (head || reply.status == 204 || reply.status == 304) {
    EXPECT_EQ(reply.body, "") << "content in a response to HEAD, or in a " << reply.status;
  } else if (const auto length = reply.field("content-length")) {
    EXPECT_EQ(*length, std::to_string(reply.body.size())) << "a Content-Length other than the DATA's length";
  }
}

// The connection is still in step: a next stream gets its own answer, and the server sent no GOAWAY.
void expect_next_stream_answered(H2Connection& connection, std::string_view scheme) {
  H2Request probe;
  probe.headers = {{":method", "GET"}, {":scheme", std::string(scheme)}, {":path", "/plaintext"}, {":authority", "t"}};
  const H2Outcome next = connection.exchange(probe, kPatience);
  ASSERT_TRUE(next.reply.has_value()) << "no answer on a next stream of the connection: " << next.error
                                      << (next.reset ? " reset " + h2_error_name(*next.reset) : "");
  EXPECT_EQ(next.reply->status, 200);
  EXPECT_EQ(next.reply->body, "Hello, World!");
  EXPECT_FALSE(connection.goaway().has_value()) << "GOAWAY " << h2_error_name(connection.goaway().value_or(0));
  EXPECT_EQ(connection.broken(), "");
}

// A row's raw HTTP/1.1 request, sent in its HTTP/2 form (one stream): the same
// status and checks; Then::close and Then::keep_alive both mean the
// connection stays usable, as HTTP/2 closes streams, not connections.
void run_row_h2(const Row& row, Transport transport, const std::string& request) {
  ASSERT_EQ(row.responses, 1) << "several requests have no HTTP/2 form";
  const std::string scheme = transport == Transport::h2 ? "https" : "http";
  std::string why;
  std::optional<H2Request> h2_request = from_http1(request, scheme, why);
  ASSERT_TRUE(h2_request.has_value()) << "this row has no HTTP/2 form: " << why;
  h2_request->after_continue = row.after_continue;
  auto wire = connect(transport);
  ASSERT_TRUE(wire->ready()) << "cannot connect (or no h2 by ALPN)";
  H2Connection connection(*wire);
  const H2Outcome outcome = connection.exchange(*h2_request, kPatience);
  ASSERT_TRUE(outcome.reply.has_value()) << "no response: " << outcome.error
                                         << (outcome.reset ? " reset " + h2_error_name(*outcome.reset) : "");
  const Reply& reply = *outcome.reply;
  EXPECT_EQ(reply.status, row.status) << "body: " << reply.body;
  check_h2_reply(reply, request.starts_with("HEAD "));
  if (!row.after_continue.empty() && row.status < 300) {
    EXPECT_EQ(reply.interim, std::vector<int>{100}) << "expected one 100 Continue before the body";
  }
  expect_next_stream_answered(connection, scheme);
  if (row.check) row.check({reply});
}

}  // namespace

std::string transport_name(Transport transport) {
  switch (transport) {
    case Transport::tcp:
      return "Tcp";
    case Transport::tls:
      return "Tls";
    case Transport::h2c:
      return "H2c";
    case Transport::h2:
      return "H2";
  }
  return "?";
}

void run_h2_row(const H2Row& row, Transport transport) {
  ASSERT_TRUE(is_http2(transport));
  const std::string scheme = transport == Transport::h2 ? "https" : "http";
  H2Request request;
  request.headers = row.headers;
  request.data = row.data;
  request.trailers = row.trailers;
  request.end_stream = !row.trailers || row.trailers_end_stream;
  for (auto& [name, value] : request.headers) {
    if (value == "{scheme}") value = scheme;
  }
  auto wire = connect(transport);
  ASSERT_TRUE(wire->ready()) << "cannot connect (or no h2 by ALPN)";
  H2Connection connection(*wire);
  const H2Outcome outcome = connection.exchange(request, kPatience);
  if (row.status != 0) {
    ASSERT_TRUE(outcome.reply.has_value()) << "no response: " << outcome.error
                                           << (outcome.reset ? " reset " + h2_error_name(*outcome.reset) : "");
    EXPECT_EQ(outcome.reply->status, row.status) << "body: " << outcome.reply->body;
    check_h2_reply(*outcome.reply, row.headers.size() > 0 && row.headers.front().second == "HEAD");
    if (row.check) row.check(*outcome.reply);
  } else {
    EXPECT_FALSE(outcome.reply.has_value()) << "a response, status " << outcome.reply.value_or(Reply{}).status;
    ASSERT_TRUE(outcome.reset.has_value()) << "no RST_STREAM: " << outcome.error;
    EXPECT_EQ(h2_error_name(*outcome.reset), h2_error_name(row.reset));
  }
  expect_next_stream_answered(connection, scheme);
}

std::string h2_row_test_name(const ::testing::TestParamInfo<std::tuple<H2Row, Transport>>& info) {
  return std::get<0>(info.param).name + "_" + transport_name(std::get<1>(info.param));
}

std::optional<std::string> Reply::field(std::string_view name) const {
  for (const auto& [n, v] : fields) {
    if (iequals(n, name)) return v;
  }
  return std::nullopt;
}

std::size_t Reply::count(std::string_view name) const {
  return static_cast<std::size_t>(std::count_if(fields.begin(), fields.end(), [&](const auto& f) { return iequals(f.first, name); }));
}

void run_row(const Row& row, Transport transport) {
  const std::string request = substitute(row.request);
  if (request.find("{etag}") == std::string::npos && row.request.find("{etag}") != std::string::npos) {
    ASSERT_FALSE(current_etag().empty()) << "the static file gave no ETag";
  }
  if (is_http2(transport)) {
    run_row_h2(row, transport, request);
    return;
  }
  auto wire = connect(transport);
  ASSERT_TRUE(wire->ready()) << "cannot connect";
  ASSERT_TRUE(wire->send(request));
  std::string buffer;
  std::vector<Reply> replies;
  const bool head = request.starts_with("HEAD ");
  for (int i = 0; i < row.responses; ++i) {
    std::string error;
    auto on_interim = [&](int status) {
      if (status == 100 && !row.after_continue.empty()) wire->send(row.after_continue);
    };
    auto reply = read_reply(*wire, buffer, head && i == 0, on_interim, error);
    ASSERT_TRUE(reply.has_value()) << "response " << i + 1 << ": " << error;
    replies.push_back(std::move(*reply));
  }
  const Reply& first = replies.front();
  EXPECT_EQ(first.status, row.status) << "status line: " << first.version << " " << first.status << "; body: " << first.body;
  for (const Reply& reply : replies) {
    EXPECT_EQ(reply.version, "HTTP/1.1");
    // RFC 9110 §6.6.1: an origin server with a clock MUST send Date.
    EXPECT_EQ(reply.count("Date"), 1u) << "a response without one Date";
    // RFC 9112 §6.2: never Content-Length with Transfer-Encoding.
    EXPECT_FALSE(reply.field("Content-Length") && reply.field("Transfer-Encoding"));
    EXPECT_LE(reply.count("Content-Length"), 1u);
  }
  if (!row.after_continue.empty() && row.status < 300) {
    EXPECT_EQ(first.interim, std::vector<int>{100}) << "expected one 100 Continue before the body";
  }
  const Reply& last = replies.back();
  if (row.then == Then::close) {
    // RFC 9112 §9.6: a server that closes says so, and sends nothing more.
    EXPECT_TRUE(last.field("Connection") && iequals(*last.field("Connection"), "close")) << "no Connection: close";
    const auto deadline = Clock::now() + kPatience;
    while (!wire->closed() && Clock::now() < deadline) {
      if (!wire->receive(buffer, 500ms) && wire->closed()) break;
    }
    EXPECT_TRUE(wire->closed()) << "the connection stayed open";
    EXPECT_EQ(buffer, "") << "bytes after the last response";
  } else {
    EXPECT_FALSE(last.field("Connection") && iequals(*last.field("Connection"), "close")) << "Connection: close";
    EXPECT_EQ(buffer, "") << "bytes after the response: its framing is wrong";
    // The connection must still be in step: a further request gets its own answer.
    ASSERT_TRUE(wire->send("GET /plaintext HTTP/1.1\r\nHost: t\r\n\r\n"));
    std::string error;
    const auto probe = read_reply(*wire, buffer, false, nullptr, error);
    ASSERT_TRUE(probe.has_value()) << "no answer to a request after it on the same connection: " << error;
    EXPECT_EQ(probe->status, 200);
    EXPECT_EQ(probe->body, "Hello, World!");
  }
  if (row.check) row.check(replies);
}

std::string row_test_name(const ::testing::TestParamInfo<std::tuple<Row, Transport>>& info) {
  return std::get<0>(info.param).name + "_" + transport_name(std::get<1>(info.param));
}

std::string access_log_contents() { return read_file(server().access_log()); }

int plain_port() { return server().port(Transport::tcp); }

void expect_server_running() {
  ASSERT_TRUE(server().process().running()) << "the server died: " << server().process().err();
}

}  // namespace tiffany::testing
