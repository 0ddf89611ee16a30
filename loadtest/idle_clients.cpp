// idle_clients: opens keep-alive connections, one request each, and holds them.
//
//   idle_clients --port P --counts 3000,9000 [--path /plaintext]
//
// Opens connections one after another; on each it sends one GET and reads
// the whole response (Content-Length), then keeps it open and idle. Each time
// the number open reaches the next count it prints "open N" and waits for a
// line on standard input before going on; after the last count it holds
// everything until standard input ends. Any failure prints "error: ..." and
// exits 1. The runner (loadtest/idle_memory_bench.sh) reads the server's RSS
// at each stop.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

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

// Reads one response: the head, then Content-Length bytes of body.
void read_response(int fd) {
  std::string data;
  char buffer[4096];
  std::size_t head_end = std::string::npos;
  std::size_t length = 0;
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) fail(n == 0 ? "the server closed a connection" : std::string("recv: ") + std::strerror(errno));
    data.append(buffer, static_cast<std::size_t>(n));
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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--port") {
      port = std::atoi(argv[i + 1]);
    } else if (flag == "--counts") {
      counts_text = argv[i + 1];
    } else if (flag == "--path") {
      path = argv[i + 1];
    } else {
      fail("unknown option " + flag);
    }
  }
  if (port <= 0 || counts_text.empty()) fail("usage: idle_clients --port P --counts N[,N...] [--path /plaintext]");
  const std::vector<long> counts = parse_counts(counts_text);
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::vector<int> open;
  std::string line;
  for (const long count : counts) {
    while (static_cast<long>(open.size()) < count) {
      const int fd = connect_to(port);
      if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
        fail(std::string("send: ") + std::strerror(errno));
      }
      read_response(fd);
      open.push_back(fd);
    }
    std::printf("open %ld\n", count);
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) break;
  }
  while (std::getline(std::cin, line)) {
  }
  for (const int fd : open) ::close(fd);
  return 0;
}
