// HttpClient against a real nginx on loopback (started by the test, in the
// foreground, single process): a large sized body over one kept-alive
// connection (nginx's $connection stays the same), HEAD, and a 404.
#include <tiffany/client/http_client.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_socket.hpp"
#include "unit/reactor/reactor_fixture.hpp"

extern char** environ;

namespace tiffany {
namespace {

using Result = ClientResult<ClientResponse>;
namespace fs = std::filesystem;

// nginx -p DIR with a config of its own, stopped (SIGQUIT, then waited) at the end.
class Nginx {
 public:
  Nginx() {
    directory_ = fs::temp_directory_path() / ("tiffany-client-nginx-" + std::to_string(::getpid()));
    fs::create_directories(directory_ / "www");
    fs::create_directories(directory_ / "tmp");
    {
      const testing::LoopbackSocket probe(false);  // a free port, released for nginx
      port_ = probe.port();
    }
    std::ofstream(directory_ / "www" / "big.txt") << std::string(300 * 1024, 'n');
    const std::string dir = directory_.string();
    std::ofstream(directory_ / "nginx.conf")
        << "error_log " << dir << "/error.log;\npid " << dir << "/nginx.pid;\nevents { worker_connections 64; }\n"
        << "http {\n  access_log off;\n  client_body_temp_path " << dir << "/tmp;\n  proxy_temp_path " << dir
        << "/tmp;\n  fastcgi_temp_path " << dir << "/tmp;\n  uwsgi_temp_path " << dir << "/tmp;\n  scgi_temp_path "
        << dir << "/tmp;\n  keepalive_requests 1000;\n  server {\n    listen 127.0.0.1:" << port_ << ";\n    root "
        << dir << "/www;\n    add_header X-Connection $connection always;\n  }\n}\n";
    std::vector<std::string> args = {
        "nginx", "-p", dir, "-c", dir + "/nginx.conf", "-g", "daemon off; master_process off;"};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (::posix_spawnp(&pid_, "nginx", nullptr, nullptr, argv.data(), environ) != 0) pid_ = -1;
    for (int i = 0; i < 200 && pid_ > 0 && !accepting(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~Nginx() {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);
      ::waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(directory_);
  }
  bool running() const { return pid_ > 0 && accepting(); }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  std::string log() const {
    std::ifstream in(directory_ / "error.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  bool accepting() const {
    testing::LoopbackSocket client(false);
    sockaddr_in address = client.address;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    return ::connect(client.fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }

  fs::path directory_;
  int port_ = 0;
  pid_t pid_ = -1;
};

class NginxUpstreamTest : public ReactorTest {
 protected:
  void run(const std::function<Task<void>()>& body) {
    (void)scheduler().spawn(body());
    scheduler().run();
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, NginxUpstreamTest, all_backends(), backend_name);

TEST_P(NginxUpstreamTest, ABigBodyHeadAnd404OverOneKeptAliveConnection) {
  Nginx nginx;
  ASSERT_TRUE(nginx.running()) << nginx.log();
  std::vector<Result> replies;
  run([&]() -> Task<void> {
    HttpClient client;
    for (int i = 0; i < 5; ++i) replies.push_back(co_await client.get(nginx.url("/big.txt")));
    ClientRequest head;
    head.method = "HEAD";
    head.url = nginx.url("/big.txt");
    replies.push_back(co_await client.fetch(std::move(head)));
    replies.push_back(co_await client.get(nginx.url("/missing")));
  });
  ASSERT_EQ(replies.size(), 7u);
  for (Result& reply : replies) ASSERT_TRUE(reply) << reply.error().message;
  const std::string connection(replies[0]->headers.get("X-Connection").value_or("none"));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(replies[i]->status, 200);
    EXPECT_EQ(replies[i]->body, std::string(300 * 1024, 'n'));
  }
  for (Result& reply : replies) EXPECT_EQ(reply->headers.get("X-Connection").value_or(""), connection);
  EXPECT_EQ(replies[5]->headers.get("Content-Length").value_or(""), std::to_string(300 * 1024));
  EXPECT_EQ(replies[5]->body, "");
  EXPECT_EQ(replies[6]->status, 404);
}

}  // namespace
}  // namespace tiffany
