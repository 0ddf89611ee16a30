// The static handler against a hostile root: files that are not regular (FIFO, socket, device) and names holding CR LF.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A request whose answer does not come in this time counts as a stalled worker. Why 5 s: the
// stalls it catches last for good (a FIFO's open waits for a writer, /dev/zero never ends), and a
// loaded machine can take a good part of a second to answer what it answers in a millisecond.
constexpr auto kAtOnce = 5000ms;

// Reads one response (head, then a Content-Length body) from `fd`, or until
// the peer closes; gives up after `timeout`. Empty if nothing came.
std::string read_response(int fd, std::chrono::milliseconds timeout) {
  std::string reply;
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto head_end = reply.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      const auto length_at = reply.find("Content-Length: ");
      if (length_at != std::string::npos && length_at < head_end) {
        const std::size_t length = std::stoul(reply.substr(length_at + 16));
        if (reply.size() >= head_end + 4 + length) return reply;
      }
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return reply;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return reply;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return reply;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
}

int status_of(const std::string& reply) {
  return reply.rfind("HTTP/1.1 ", 0) == 0 && reply.size() >= 12 ? std::stoi(reply.substr(9, 3)) : 0;
}

bool send_all(int fd, const std::string& bytes) {
  return ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

std::string get(const std::string& target, bool close = false) {
  return "GET " + target + " HTTP/1.1\r\nHost: t\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n";
}

class StaticRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() + "/www";
    fs::create_directories(root_ + "/docs");
    std::ofstream(root_ + "/hello.txt") << "hello, static world";
    std::ofstream(root_ + "/docs/index.html") << "docs index";
  }

  // Starts the server with one worker, so every connection shares it.
  void start() {
    server_ = std::make_unique<ServerProcess>(R"({"workers": 1,
      "listeners": [{"name": "web", "address": "127.0.0.1:0", "protocol": "http",
      "routes": [{"method": "GET", "path": "/plaintext", "handler": "text", "body": "Hello, World!"},
                 {"method": "GET", "path": "/static/*", "handler": "static", "root": ")" +
                                              root_ + R"("}]}]})");
    port_ = server_->port_of("web");
    ASSERT_GT(port_, 0) << server_->err();
  }

  // One request on a fresh connection that asks to close; the reply, or
  // whatever came within `timeout`.
  std::string fetch(const std::string& target, std::chrono::milliseconds timeout = 5s) const {
    UniqueFd fd = connect_loopback(port_);
    if (!fd || !send_all(fd.get(), get(target, true))) return {};
    return read_response(fd.get(), timeout);
  }

  TempDir dir_;
  std::string root_;
  std::unique_ptr<ServerProcess> server_;
  int port_ = 0;
};

TEST_F(StaticRootTest, FilesThatAreNotRegularAreRefusedAtOnceWhileTheWorkerServesOthers) {
  ASSERT_EQ(::mkfifo((root_ + "/fifo").c_str(), 0644), 0) << std::strerror(errno);
  fs::create_directories(root_ + "/trap");
  ASSERT_EQ(::mkfifo((root_ + "/trap/index.html").c_str(), 0644), 0) << std::strerror(errno);  // a folder's index
  {
    // A bound Unix socket leaves its file behind after the descriptor closes.
    UniqueFd unix_socket(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string socket_path = root_ + "/socket";
    ASSERT_LT(socket_path.size(), sizeof address.sun_path);
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    ASSERT_EQ(::bind(unix_socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0)
        << std::strerror(errno);
  }
  // A symlink out of the root to a device stays refused by the containment rule.
  fs::create_symlink("/dev/zero", root_ + "/zero-link");

  // name → the status it must get
  std::vector<std::pair<std::string, int>> hostile = {
      {"/static/fifo", 404}, {"/static/trap/", 404}, {"/static/socket", 404}, {"/static/zero-link", 403}};
  // Why: creating a device node needs CAP_MKNOD, which an unprivileged run or
  // a container may lack; then that part is skipped (the FIFO, socket and
  // symlink still run). On a file system mounted nodev the node exists but
  // the kernel refuses to open it (EACCES): 403 rather than 404.
  if (::mknod((root_ + "/zero").c_str(), S_IFCHR | 0644, makedev(1, 5)) == 0) {
    struct statvfs mount {};
    const bool nodev = ::statvfs(root_.c_str(), &mount) == 0 && (mount.f_flag & ST_NODEV) != 0;
    hostile.emplace_back("/static/zero", nodev ? 403 : 404);
  } else {
    std::cerr << "[ NOTE ] no character device node (mknod: " << std::strerror(errno) << "); that part is skipped\n";
  }

  start();
  UniqueFd other = connect_loopback(port_);  // a client with a keep-alive connection on the same worker
  ASSERT_TRUE(other);
  ASSERT_TRUE(send_all(other.get(), get("/plaintext")));
  ASSERT_EQ(status_of(read_response(other.get(), 5s)), 200);

  for (const auto& [target, status] : hostile) {
    SCOPED_TRACE(target);
    const auto start = std::chrono::steady_clock::now();
    UniqueFd fd = connect_loopback(port_);
    ASSERT_TRUE(fd);
    ASSERT_TRUE(send_all(fd.get(), get(target, true)));
    std::this_thread::sleep_for(50ms);  // let the worker take the hostile request first
    ASSERT_TRUE(send_all(other.get(), get("/plaintext")));
    const std::string served = read_response(other.get(), kAtOnce);
    EXPECT_EQ(status_of(served), 200) << "the other client waited: " << served;
    const std::string refused = read_response(fd.get(), kAtOnce);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(status_of(refused), status) << refused;
    EXPECT_LT(took, kAtOnce);
    if (status_of(served) != 200) break;  // the worker is stuck: the rest would only wait too
  }
  EXPECT_TRUE(server_->running()) << server_->err();
}

TEST_F(StaticRootTest, RegularFilesAndFoldersAreStillServed) {
  start();
  const std::string file = fetch("/static/hello.txt");
  EXPECT_EQ(status_of(file), 200) << file;
  EXPECT_TRUE(file.ends_with("\r\n\r\nhello, static world")) << file;
  const std::string redirect = fetch("/static/docs?x=1");
  EXPECT_EQ(status_of(redirect), 301) << redirect;
  EXPECT_NE(redirect.find("\r\nLocation: /static/docs/?x=1\r\n"), std::string::npos) << redirect;
  const std::string index = fetch("/static/docs/");
  EXPECT_EQ(status_of(index), 200) << index;
  EXPECT_TRUE(index.ends_with("\r\n\r\ndocs index")) << index;
}

TEST_F(StaticRootTest, ARedirectToAFolderPercentEncodesItsNameSoNoHeaderCanBeInjected) {
  fs::create_directories(root_ + "/crlf\r\nX-Injected: yes");  // Linux allows CR and LF in names
  start();
  const std::string reply = fetch("/static/crlf%0d%0aX-Injected:%20yes?a=1");
  EXPECT_EQ(status_of(reply), 301) << reply;
  EXPECT_NE(reply.find("\r\nLocation: /static/crlf%0D%0AX-Injected:%20yes/?a=1\r\n"), std::string::npos) << reply;
  std::string lower = reply;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  EXPECT_EQ(lower.find("\nx-injected"), std::string::npos) << reply;
  EXPECT_TRUE(server_->running()) << server_->err();
}

}  // namespace
}  // namespace tiffany::testing
