// idle_clients: opens keep-alive connections, one request each, and holds them.
//
//   idle_clients --port P --counts 3000,9000 [--path /plaintext] [--mode http|https|silent|websocket|h2c]
//
// Opens connections one after another; on each it sends one GET and reads
// the whole response (Content-Length), then keeps it open and idle. With
// --mode https it first completes a TLS handshake (no certificate check, no
// session resumption: each is a full handshake); with --mode silent it only
// connects and sends nothing, as a client that never starts its TLS
// handshake (or its request) would; with --mode websocket the GET is a
// WebSocket upgrade of --path (no extension offered), the answer must be a 101
// with the right Sec-WebSocket-Accept, and the WebSocket is then held idle (it
// never answers a ping: the runner sets the server's ping interval past the run);
// with --mode h2c the connection speaks HTTP/2 by prior knowledge: the preface,
// an empty SETTINGS, one GET of --path (stream 1), the server's SETTINGS
// acknowledged, the whole answer read, then held idle.
// Each time
// the number open reaches the next count it prints "open N" and waits for a
// line on standard input before going on; after the last count it holds
// everything until standard input ends. Any failure prints "error: ..." and
// exits 1. The runner (loadtest/idle_memory_bench.sh) reads the server's RSS
// at each stop.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "loadtest/load_options.hpp"
#include "loadtest/ws_client.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::printf("error: %s\n", what.c_str());
  std::fflush(stdout);
  std::exit(1);
}

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    fail(std::string("connect: ") + std::strerror(errno));
  }
  return fd;
}

std::string openssl_error() {
  char text[256] = "unknown";
  ERR_error_string_n(ERR_get_error(), text, sizeof text);
  return text;
}

// One connection's byte pipe: the socket, or TLS over it.
struct Pipe {
  int fd = -1;
  SSL* ssl = nullptr;

  void send_all(const std::string& data) const {
    if (ssl != nullptr) {
      if (SSL_write(ssl, data.data(), static_cast<int>(data.size())) != static_cast<int>(data.size())) {
        fail("SSL_write: " + openssl_error());
      }
      return;
    }
    if (::send(fd, data.data(), data.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(data.size())) {
      fail(std::string("send: ") + std::strerror(errno));
    }
  }
  // Some bytes; fails at EOF or on an error.
  std::size_t receive(char* buffer, std::size_t size) const {
    if (ssl != nullptr) {
      const int n = SSL_read(ssl, buffer, static_cast<int>(size));
      if (n <= 0) fail("SSL_read: the server closed the connection or failed: " + openssl_error());
      return static_cast<std::size_t>(n);
    }
    const ssize_t n = ::recv(fd, buffer, size, 0);
    if (n <= 0) fail(n == 0 ? "the server closed a connection" : std::string("recv: ") + std::strerror(errno));
    return static_cast<std::size_t>(n);
  }
};

// Reads one response: the head, then Content-Length bytes of body.
void read_response(const Pipe& pipe) {
  std::string data;
  char buffer[4096];
  std::size_t head_end = std::string::npos;
  std::size_t length = 0;
  for (;;) {
    const std::size_t n = pipe.receive(buffer, sizeof buffer);
    data.append(buffer, n);
    if (head_end == std::string::npos) {
      head_end = data.find("\r\n\r\n");
      if (head_end == std::string::npos) continue;
      if (data.compare(0, 12, "HTTP/1.1 200") != 0) fail("not a 200: " + data.substr(0, data.find("\r\n")));
      std::string head = data.substr(0, head_end);
      for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const std::size_t field = head.find("\r\ncontent-length:");
      if (field == std::string::npos) fail("a response without Content-Length");
      length = std::strtoul(head.c_str() + field + 17, nullptr, 10);
    }
    if (data.size() >= head_end + 4 + length) return;
  }
}

// Reads a WebSocket upgrade's answer (its head; a server sends nothing after it
// until the client does) and checks it is the 101 that `key` calls for.
void read_upgrade(const Pipe& pipe, const std::string& key) {
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > 16384) fail("an upgrade answer head over 16 KiB");
    head.append(buffer, pipe.receive(buffer, sizeof buffer));
  }
  const std::string problem = tiffany::loadtest::check_upgrade_response(head, key);
  if (!problem.empty()) fail("upgrade: " + problem);
}

// An HPACK string literal, not Huffman-coded (RFC 7541 §5.2); names and paths here are short.
std::string hpack_literal(const std::string& text) {
  if (text.size() > 126) fail("--path longer than 126 bytes");
  return std::string(1, static_cast<char>(text.size())) + text;
}

std::string h2_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, const std::string& payload) {
  std::string frame;
  frame += static_cast<char>((payload.size() >> 16) & 0xff);
  frame += static_cast<char>((payload.size() >> 8) & 0xff);
  frame += static_cast<char>(payload.size() & 0xff);
  frame += static_cast<char>(type);
  frame += static_cast<char>(flags);
  for (const int shift : {24, 16, 8, 0}) frame += static_cast<char>((stream >> shift) & 0xff);
  return frame + payload;
}

// The client preface, an empty SETTINGS and GET `path` on stream 1 (END_STREAM, END_HEADERS).
std::string h2c_request(const std::string& path) {
  // :method GET (static 2), :scheme http (6), :path and :authority as literals without indexing (names 4 and 1).
  const std::string block = std::string("\x82\x86\x04", 3) + hpack_literal(path) + std::string("\x01", 1) +
                            hpack_literal("localhost");
  return std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + h2_frame(0x4, 0, 0, "") + h2_frame(0x1, 0x5, 1, block);
}

// Reads frames until stream 1 has ended and the server's SETTINGS came (acknowledged here).
void read_h2_response(const Pipe& pipe) {
  std::string data;
  char buffer[4096];
  bool settings_seen = false;
  bool answered = false;
  while (!(settings_seen && answered)) {
    data.append(buffer, pipe.receive(buffer, sizeof buffer));
    while (data.size() >= 9) {
      const std::size_t length = (static_cast<unsigned char>(data[0]) << 16) |
                                 (static_cast<unsigned char>(data[1]) << 8) | static_cast<unsigned char>(data[2]);
      if (data.size() < 9 + length) break;
      const auto type = static_cast<unsigned char>(data[3]);
      const auto flags = static_cast<unsigned char>(data[4]);
      const std::uint32_t stream = ((static_cast<unsigned char>(data[5]) & 0x7fu) << 24) |
                                   (static_cast<unsigned char>(data[6]) << 16) |
                                   (static_cast<unsigned char>(data[7]) << 8) | static_cast<unsigned char>(data[8]);
      if (type == 0x4 && (flags & 0x1) == 0) {
        settings_seen = true;
        pipe.send_all(h2_frame(0x4, 0x1, 0, ""));  // SETTINGS ACK
      }
      if (type == 0x7) fail("the server sent GOAWAY");
      if (type == 0x3 && stream == 1) fail("the server reset the request");
      if ((type == 0x0 || type == 0x1) && stream == 1 && (flags & 0x1) != 0) answered = true;
      data.erase(0, 9 + length);
    }
  }
}

std::vector<long> parse_counts(const std::string& text) {
  std::vector<long> counts;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const long count = std::strtol(item.c_str(), nullptr, 10);
    if (count <= 0 || (!counts.empty() && count <= counts.back())) fail("--counts must rise: " + text);
    counts.push_back(count);
  }
  if (counts.empty()) fail("--counts is empty");
  return counts;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  std::string counts_text;
  std::string path = "/plaintext";
  std::string mode = "http";
  const std::string problem =
      tiffany::loadtest::walk_flags(argc, argv, {}, [&](std::string_view flag, const char* value) {
        if (flag == "--port") {
          port = std::atoi(value);
        } else if (flag == "--counts") {
          counts_text = value;
        } else if (flag == "--path") {
          path = value;
        } else if (flag == "--mode") {
          mode = value;
        } else {
          return false;
        }
        return true;
      });
  if (!problem.empty()) fail(problem);
  if (port <= 0 || counts_text.empty() ||
      (mode != "http" && mode != "https" && mode != "silent" && mode != "websocket" && mode != "h2c")) {
    fail("usage: idle_clients --port P --counts N[,N...] [--path /plaintext] [--mode http|https|silent|websocket|h2c]");
  }
  const std::vector<long> counts = parse_counts(counts_text);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
  SSL_CTX* tls = nullptr;
  if (mode == "https") {
    tls = SSL_CTX_new(TLS_client_method());
    if (tls == nullptr) fail("SSL_CTX_new: " + openssl_error());
    SSL_CTX_set_session_cache_mode(tls, SSL_SESS_CACHE_OFF);
  }
  std::vector<Pipe> open;
  std::string line;
  for (const long count : counts) {
    while (static_cast<long>(open.size()) < count) {
      Pipe pipe{connect_to(port), nullptr};
      if (tls != nullptr) {
        pipe.ssl = SSL_new(tls);
        if (pipe.ssl == nullptr || SSL_set_fd(pipe.ssl, pipe.fd) != 1) fail("SSL_new: " + openssl_error());
        SSL_set_tlsext_host_name(pipe.ssl, "localhost");
        if (SSL_connect(pipe.ssl) != 1) fail("TLS handshake: " + openssl_error());
      }
      if (mode == "websocket") {
        const std::string key = tiffany::loadtest::websocket_key(open.size() + 1);
        pipe.send_all(tiffany::loadtest::upgrade_request(path, key));
        read_upgrade(pipe, key);
      } else if (mode == "h2c") {
        pipe.send_all(h2c_request(path));
        read_h2_response(pipe);
      } else if (mode != "silent") {
        pipe.send_all(request);
        read_response(pipe);
      }
      open.push_back(pipe);
    }
    std::printf("open %ld\n", count);
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) break;
  }
  while (std::getline(std::cin, line)) {
  }
  for (const Pipe& pipe : open) {
    SSL_free(pipe.ssl);  // no close_notify: the server sees the connection end as it would with plain TCP
    ::close(pipe.fd);
  }
  SSL_CTX_free(tls);
  return 0;
}
