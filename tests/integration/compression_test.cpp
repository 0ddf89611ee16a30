// Content coding end to end: the shipped site with curl --compressed as the peer, raw requests decoded with the libraries.
#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>
#include <picojson.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "echo_client.hpp"
#include "server_process.hpp"
#include "support/decode_content.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A compressible page larger than the static handler's in-memory limit, so it streams.
std::string big_page() {
  std::string text;
  for (int i = 0; text.size() < 300 * 1024; ++i) {
    text += "<tr><td>row " + std::to_string(i) + "</td><td>compressible content, again and again</td></tr>\n";
  }
  return text;
}

// The shipped config's "web" listener on a free port, serving a copy of conf/www.
std::string shipped_web_listener(const std::string& www) {
  picojson::value document;
  const std::string error = picojson::parse(document, slurp(TIFFANY_SOURCE_DIR "/conf/tiffany.json"));
  EXPECT_TRUE(error.empty()) << error;
  picojson::array kept;
  for (picojson::value& listener : document.get("listeners").get<picojson::array>()) {
    if (listener.get("name").to_str() != "web") continue;
    listener.get<picojson::object>()["address"] = picojson::value("127.0.0.1:0");
    for (picojson::value& route : listener.get("routes").get<picojson::array>()) {
      if (route.get("handler").to_str() == "static") {
        route.get<picojson::object>()["with"].get<picojson::object>()["root"] = picojson::value(www);
      }
    }
    kept.push_back(listener);
  }
  EXPECT_EQ(kept.size(), 1u);
  document.get<picojson::object>()["listeners"] = picojson::value(kept);
  return document.serialize();
}

struct Reply {
  std::string status_line;
  std::string head;  // status line and fields, each line ending CRLF
  std::string body;  // de-chunked
};

std::optional<std::string> field(const Reply& reply, const std::string& name) {
  std::istringstream lines(reply.head);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > name.size() + 1 && strncasecmp(line.c_str(), name.c_str(), name.size()) == 0 &&
        line[name.size()] == ':') {
      return line.substr(name.size() + 2);
    }
  }
  return std::nullopt;
}

Reply parse_reply(const std::string& text) {
  Reply reply;
  const auto head_end = text.find("\r\n\r\n");
  if (head_end == std::string::npos) return reply;
  reply.head = text.substr(0, head_end + 2);
  reply.status_line = reply.head.substr(0, reply.head.find("\r\n"));
  std::string rest = text.substr(head_end + 4);
  if (field(reply, "Transfer-Encoding") == "chunked") {
    for (;;) {
      const auto line_end = rest.find("\r\n");
      if (line_end == std::string::npos) break;
      const std::size_t size = std::stoul(rest.substr(0, line_end), nullptr, 16);
      reply.body += rest.substr(line_end + 2, size);
      rest.erase(0, line_end + 2 + size + 2);
      if (size == 0) break;
    }
  } else {
    reply.body = rest;
  }
  return reply;
}

class CompressionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    site_ = std::make_unique<TempDir>();
    www_ = site_->path() + "/www";
    fs::copy(TIFFANY_SOURCE_DIR "/conf/www", www_, fs::copy_options::recursive);
    std::ofstream(www_ + "/big.html", std::ios::binary) << big_page();
    app_js_ = "function hello() { return 'precompressed'; }\n";
    for (int i = 0; i < 60; ++i) app_js_ += "console.log('line " + std::to_string(i) + " of the app');\n";
    std::ofstream(www_ + "/app.js", std::ios::binary) << app_js_;
    for (const char* coding : {"gzip", "br", "zstd"}) {
      const std::string suffix = std::string(coding) == "gzip" ? ".gz" : std::string(coding) == "br" ? ".br" : ".zst";
      std::ofstream(www_ + "/app.js" + suffix, std::ios::binary) << encode_content(coding, app_js_);
    }
    server_ = std::make_unique<ServerProcess>(shipped_web_listener(www_));
    port_ = server_->port_of("web");
    base_ = "http://127.0.0.1:" + std::to_string(port_);
  }
  static void TearDownTestSuite() {
    server_.reset();
    site_.reset();
  }
  void SetUp() override { ASSERT_GT(port_, 0) << "the server did not start: " << server_->err(); }
  void TearDown() override { ASSERT_TRUE(server_->running()) << "the server died: " << server_->err(); }

  // curl --compressed as the peer: it decodes what it gets. Returns head + "\n--\n" split.
  static Reply curl(std::vector<std::string> args) {
    const std::string head_file = site_->path() + "/head.txt";
    args.insert(args.begin(), {"-sS", "--max-time", "20", "-D", head_file});
    const RunResult run = run_program("curl", args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    Reply reply;
    reply.head = slurp(head_file);
    reply.status_line = reply.head.substr(0, reply.head.find("\r\n"));
    reply.body = run.out;
    return reply;
  }

  // One raw request on a fresh connection (Connection: close), read to the end.
  static Reply raw(const std::string& method, const std::string& path, const std::string& extra) {
    UniqueFd fd = connect_loopback(port_);
    EXPECT_TRUE(fd);
    const std::string request = method + " " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + extra + "\r\n";
    ::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL);
    std::string text;
    char buffer[65536];
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::recv(fd.get(), buffer, sizeof buffer, 0);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    return parse_reply(text);
  }

  static std::unique_ptr<TempDir> site_;
  static std::unique_ptr<ServerProcess> server_;
  static std::string www_;
  static std::string app_js_;
  static int port_;
  static std::string base_;
};

std::unique_ptr<TempDir> CompressionTest::site_;
std::unique_ptr<ServerProcess> CompressionTest::server_;
std::string CompressionTest::www_;
std::string CompressionTest::app_js_;
int CompressionTest::port_ = 0;
std::string CompressionTest::base_;

TEST_F(CompressionTest, CurlGetsBrZstdAndGzipFromTheShippedConfig) {
  const std::string index = slurp(www_ + "/index.html");
  ASSERT_GE(index.size(), 1024u) << "the shipped index page must be large enough to be compressed";
  struct Ask {
    std::vector<std::string> headers;
    const char* expected;
  };
  const Ask asks[] = {{{}, "br"}, {{"-H", "Accept-Encoding: zstd"}, "zstd"}, {{"-H", "Accept-Encoding: gzip"}, "gzip"}};
  for (const Ask& ask : asks) {
    std::vector<std::string> args{"--compressed"};
    args.insert(args.end(), ask.headers.begin(), ask.headers.end());
    args.push_back(base_ + "/");
    const Reply reply = curl(args);
    EXPECT_EQ(reply.status_line, "HTTP/1.1 200 OK") << reply.head;
    EXPECT_EQ(field(reply, "Content-Encoding"), ask.expected) << reply.head;
    EXPECT_EQ(field(reply, "Vary"), "Accept-Encoding") << reply.head;
    EXPECT_LT(std::stoul(field(reply, "Content-Length").value_or("0")), index.size()) << reply.head;
    EXPECT_EQ(reply.body, index) << ask.expected;  // curl decoded it
  }
}

TEST_F(CompressionTest, EachCodingHasItsOwnETagAndRevalidatesWithIt) {
  std::vector<std::string> tags;
  for (const char* coding : {"br", "zstd", "gzip", "identity"}) {
    const Reply reply = raw("GET", "/", std::string("Accept-Encoding: ") + coding + "\r\n");
    ASSERT_TRUE(field(reply, "ETag")) << reply.head;
    tags.push_back(*field(reply, "ETag"));
    if (std::string(coding) != "identity") {
      EXPECT_EQ(decode_content(coding, reply.body), slurp(www_ + "/index.html")) << coding;
      const Reply again = raw("GET", "/", std::string("Accept-Encoding: ") + coding + "\r\nIf-None-Match: " +
                                              tags.back() + "\r\n");
      EXPECT_EQ(again.status_line, "HTTP/1.1 304 Not Modified") << again.head;
      EXPECT_EQ(field(again, "ETag"), tags.back()) << again.head;
      EXPECT_EQ(field(again, "Vary"), "Accept-Encoding") << again.head;
    }
  }
  std::sort(tags.begin(), tags.end());
  EXPECT_EQ(std::unique(tags.begin(), tags.end()), tags.end()) << "tags must differ per coding";
}

TEST_F(CompressionTest, HeadAnswersWithTheHeaderFieldsOfGet) {
  for (const char* coding : {"br", "gzip"}) {
    const std::string accept = std::string("Accept-Encoding: ") + coding + "\r\n";
    const Reply get = raw("GET", "/", accept);
    const Reply head = raw("HEAD", "/", accept);
    EXPECT_EQ(head.status_line, "HTTP/1.1 200 OK") << head.head;
    EXPECT_TRUE(head.body.empty());
    for (const char* name : {"Content-Encoding", "Vary", "ETag", "Content-Type", "Last-Modified"}) {
      EXPECT_EQ(field(head, name), field(get, name)) << name << " " << head.head;
    }
    // A HEAD answer may omit the length, never state a wrong one.
    EXPECT_FALSE(field(head, "Content-Length")) << head.head;
  }
}

TEST_F(CompressionTest, ALargeFileIsCompressedAsItStreams) {
  const std::string page = big_page();
  for (const char* coding : {"gzip", "br", "zstd"}) {
    const Reply reply = raw("GET", "/big.html", std::string("Accept-Encoding: ") + coding + "\r\n");
    EXPECT_EQ(reply.status_line, "HTTP/1.1 200 OK") << reply.head;
    EXPECT_EQ(field(reply, "Transfer-Encoding"), "chunked") << reply.head;
    EXPECT_EQ(field(reply, "Content-Encoding"), coding) << reply.head;
    EXPECT_LT(reply.body.size(), page.size() / 4) << coding;
    EXPECT_EQ(decode_content(coding, reply.body), page) << coding;
  }
  // And to curl, decoding as it reads.
  const Reply decoded = curl({"--compressed", "-H", "Accept-Encoding: gzip", base_ + "/big.html"});
  EXPECT_EQ(decoded.body, page);
  // Without Accept-Encoding it still goes from the page cache, with its length.
  const Reply plain = raw("GET", "/big.html", "");
  EXPECT_EQ(field(plain, "Content-Length"), std::to_string(page.size())) << plain.head;
  EXPECT_EQ(plain.body, page);
}

TEST_F(CompressionTest, PrecompressedSiblingsGoToCurlForEachCoding) {
  const std::pair<const char*, const char*> asks[] = {{"br", ".br"}, {"zstd", ".zst"}, {"gzip", ".gz"}};
  for (const auto& [coding, suffix] : asks) {
    const Reply reply = curl({"--compressed", "-H", std::string("Accept-Encoding: ") + coding, base_ + "/app.js"});
    EXPECT_EQ(reply.status_line, "HTTP/1.1 200 OK") << reply.head;
    EXPECT_EQ(field(reply, "Content-Encoding"), coding) << reply.head;
    EXPECT_EQ(field(reply, "Content-Type"), "text/javascript; charset=utf-8") << reply.head;
    EXPECT_EQ(field(reply, "Content-Length"), std::to_string(fs::file_size(www_ + "/app.js" + suffix))) << reply.head;
    EXPECT_EQ(reply.body, app_js_) << coding;
  }
}

TEST_F(CompressionTest, ARangeOfAPrecompressedFileCountsEncodedBytes) {
  const std::string gz = slurp(www_ + "/app.js.gz");
  const Reply reply = raw("GET", "/app.js", "Accept-Encoding: gzip\r\nRange: bytes=0-99\r\n");
  EXPECT_EQ(reply.status_line, "HTTP/1.1 206 Partial Content") << reply.head;
  EXPECT_EQ(field(reply, "Content-Range"), "bytes 0-99/" + std::to_string(gz.size())) << reply.head;
  EXPECT_EQ(field(reply, "Content-Encoding"), "gzip") << reply.head;
  EXPECT_EQ(reply.body, gz.substr(0, 100));
}

TEST_F(CompressionTest, SmallBodiesAndUnlistedTypesAreSentAsTheyAre) {
  const Reply small = raw("GET", "/plaintext", "Accept-Encoding: gzip, br, zstd\r\n");
  EXPECT_EQ(small.status_line, "HTTP/1.1 200 OK") << small.head;
  EXPECT_FALSE(field(small, "Content-Encoding")) << small.head;
  EXPECT_FALSE(field(small, "Vary")) << small.head;  // under min_bytes the answer does not depend on it
  EXPECT_EQ(small.body, "Hello, World!");
}

TEST_F(CompressionTest, GarbageInAcceptEncodingIsAnsweredAsIfAbsent) {
  for (const char* garbage : {"gzip;q=2", "br;;", "=", "gzip;q=0.5;q=1", "\xff\xfe"}) {
    const Reply reply = raw("GET", "/", std::string("Accept-Encoding: ") + garbage + "\r\n");
    EXPECT_EQ(reply.status_line, "HTTP/1.1 200 OK") << garbage << "\n" << reply.head;
    EXPECT_FALSE(field(reply, "Content-Encoding")) << garbage;
    EXPECT_EQ(reply.body, slurp(www_ + "/index.html")) << garbage;
  }
}

}  // namespace
}  // namespace tiffany::testing
