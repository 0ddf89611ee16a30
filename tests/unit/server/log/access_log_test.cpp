// AccessLog: the two formats, escaping against log injection, batching.
#include "server/log/access_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace tiffany {
namespace {

// The write end of a pipe, and everything read back from it.
struct Pipe {
  int fds[2];
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  std::string drain() {
    std::string text;
    char buffer[4096];
    ::close(fds[1]);
    fds[1] = ::open("/dev/null", O_WRONLY);  // keep the destructor's close harmless
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    return text;
  }
};

http::Request sample() {
  http::Request request;
  request.method = "GET";
  request.target = "/a\"b?q=1";
  request.path = "/a\"b";
  request.query = "q=1";
  request.peer = "10.1.2.3:5555";
  request.headers.add("User-Agent", "evil\nagent");
  return request;
}

TEST(AccessLog, WritesCombinedLogFormatWithTheRequestTime) {
  Pipe pipe;
  {
    AccessLog log(pipe.fds[1], AccessLogFormat::common);
    log.record(sample(), sample().peer, "req-1", 404, 12, std::chrono::microseconds(345));
  }  // flushed on destruction
  const std::string line = pipe.drain();
  // 10.1.2.3 - - [25/Nov/2026:21:43:42 +0000] "GET /a\x22b?q=1 HTTP/1.1" 404 12 "-" "evil\x0Aagent" 345
  ASSERT_EQ(line.rfind("10.1.2.3 - - [", 0), 0u) << line;
  const auto stamp_end = line.find("] ");
  ASSERT_EQ(stamp_end, 14u + 26u) << line;  // [dd/Mon/yyyy:hh:mm:ss +0000]
  EXPECT_EQ(line.substr(stamp_end - 6, 6), " +0000");
  EXPECT_EQ(line.substr(stamp_end + 2),
            "\"GET /a\\x22b?q=1 HTTP/1.1\" 404 12 \"-\" \"evil\\x0Aagent\" 345 req-1\n");
}

// As nginx writes them: the line stays ASCII, whatever bytes a client sent (obs-text in a field, a raw
// UTF-8 or Latin-1 target), and a backslash cannot fake an escape.
TEST(AccessLog, CombinedFormatWritesBytesFrom0x80AndBackslashesAsHexEscapes) {
  http::Request request = sample();
  request.target = "/caf\xc3\xa9\\n";
  request.headers.set("User-Agent", "\xff\x7f");
  Pipe pipe;
  {
    AccessLog log(pipe.fds[1], AccessLogFormat::common);
    log.record(request, request.peer, "req-4", 200, 1, std::chrono::microseconds(1));
  }
  const std::string line = pipe.drain();
  EXPECT_NE(line.find("\"GET /caf\\xC3\\xA9\\x5Cn HTTP/1.1\" 200 1 \"-\" \"\\xFF\\x7F\" 1 req-4\n"), std::string::npos)
      << line;
  EXPECT_TRUE(std::all_of(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
}

// A response cut short (the static handler's file truncated as it was sent) is marked in both formats.
TEST(AccessLog, MarksAnIncompleteResponseInBothFormats) {
  http::Request request = sample();
  request.set_attribute("incomplete", "the file was truncated");
  Pipe common_pipe;
  Pipe json_pipe;
  {
    AccessLog common(common_pipe.fds[1], AccessLogFormat::common);
    AccessLog json(json_pipe.fds[1], AccessLogFormat::json);
    common.record(request, request.peer, "req-5", 200, 7, std::chrono::microseconds(1));
    common.record(sample(), sample().peer, "req-6", 200, 7, std::chrono::microseconds(1));
    json.record(request, request.peer, "req-5", 200, 7, std::chrono::microseconds(1));
  }
  const std::string common_lines = common_pipe.drain();
  EXPECT_NE(common_lines.find(" 1 req-5 incomplete\n"), std::string::npos) << common_lines;
  EXPECT_NE(common_lines.find(" 1 req-6\n"), std::string::npos) << "a whole response is not marked: " << common_lines;
  const std::string json_line = json_pipe.drain();
  EXPECT_NE(json_line.find(R"("request_id":"req-5","user":"","incomplete":true})"), std::string::npos) << json_line;
}

// basic_auth sets the request attribute "user": it is the log's remote user.
TEST(AccessLog, LogsTheAuthenticatedUserInBothFormats) {
  http::Request request = sample();
  request.set_attribute("user", "ann \"x\"");
  Pipe common_pipe;
  Pipe json_pipe;
  {
    AccessLog common(common_pipe.fds[1], AccessLogFormat::common);
    AccessLog json(json_pipe.fds[1], AccessLogFormat::json);
    common.record(request, request.peer, "req-3", 200, 1, std::chrono::microseconds(1));
    json.record(request, request.peer, "req-3", 200, 1, std::chrono::microseconds(1));
  }
  EXPECT_EQ(common_pipe.drain().rfind("10.1.2.3 - ann \\x22x\\x22 [", 0), 0u);
  EXPECT_NE(json_pipe.drain().find(R"("request_id":"req-3","user":"ann \"x\""})"), std::string::npos);
}

TEST(AccessLog, WritesJsonLines) {
  Pipe pipe;
  {
    AccessLog log(pipe.fds[1], AccessLogFormat::json);
    log.record(sample(), sample().peer, "req-2", 200, 13, std::chrono::microseconds(7));
  }
  const std::string line = pipe.drain();
  EXPECT_NE(line.find(R"("peer":"10.1.2.3:5555","method":"GET","path":"/a\"b","query":"q=1","status":200,)"
                      R"("bytes":13,"duration_us":7,"user_agent":"evil\u000aagent","request_id":"req-2","user":""})"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // exactly one line
}

TEST(AccessLog, JsonLogsTheTargetAsReceivedAndStaysValidUtf8) {
  Pipe pipe;
  {
    AccessLog log(pipe.fds[1], AccessLogFormat::json);
    http::Request request = sample();
    request.target = "/static/%2e%2e/\xff\xc3\xa9?q=\xc0";
    request.path = "/secret.txt";  // what normalisation made of it: not logged
    log.record(request, request.peer, "id", 404, 0, std::chrono::microseconds(1));
  }
  const std::string line = pipe.drain();
  EXPECT_NE(line.find("\"path\":\"/static/%2e%2e/\\ufffd\xc3\xa9\",\"query\":\"q=\\ufffd\""), std::string::npos) << line;
}

TEST(AccessLog, LogsARequestRefusedBeforeItsLineWithADash) {
  Pipe pipe;
  {
    AccessLog log(pipe.fds[1], AccessLogFormat::common);
    log.record(http::Request{}, "10.0.0.1:7", "", 400, 12, std::chrono::microseconds(0));
  }
  const std::string line = pipe.drain();
  EXPECT_NE(line.find("] \"-\" 400 12 \"-\" \"-\" 0 -\n"), std::string::npos) << line;
}

TEST(AccessLog, BuffersUntilFlushed) {
  Pipe pipe;
  AccessLog log(pipe.fds[1], AccessLogFormat::common);
  log.record(sample(), sample().peer, "", 200, 1, std::chrono::microseconds(1));
  char probe;
  ::fcntl(pipe.fds[0], F_SETFL, O_NONBLOCK);
  EXPECT_EQ(::read(pipe.fds[0], &probe, 1), -1);  // nothing written yet: no syscall per request
  log.flush();
  EXPECT_EQ(::read(pipe.fds[0], &probe, 1), 1);
}

}  // namespace
}  // namespace tiffany
