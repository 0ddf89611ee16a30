// ErrorLog: the line format, level filtering, whole lines from many threads, opening from the config.
#include "server/log/error_log.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conf/config.hpp"
#include "conf/config_error.hpp"
#include "support/log_lines.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::is_log_timestamp;

// A file in a fresh temporary folder, removed with the folder.
class TempLogFile {
 public:
  TempLogFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tiffany-error-log-XXXXXX").string();
    EXPECT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/error.log";
  }
  ~TempLogFile() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  const std::string& path() const { return path_; }
  UniqueFd open_for_appending() const {
    return UniqueFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  }
  std::string text() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> result;
    std::istringstream in(text());
    for (std::string line; std::getline(in, line);) result.push_back(line);
    return result;
  }

 private:
  std::string dir_;
  std::string path_;
};

// 2026-11-26T10:00:00.123Z
std::chrono::system_clock::time_point sample_time() {
  return std::chrono::system_clock::time_point(std::chrono::seconds(1'795'687'200) + 123ms);
}

TEST(ErrorLog, FormatsUtcTimeWithMillisecondsLevelWorkerAndMessage) {
  EXPECT_EQ(ErrorLog::format_line(sample_time(), LogLevel::error, 1, "hello failed on GET /x: boom"),
            "2026-11-26T10:00:00.123Z [error] worker 1: hello failed on GET /x: boom\n");
}

TEST(ErrorLog, LeavesOutTheWorkerOnOtherThreads) {
  EXPECT_EQ(ErrorLog::format_line(sample_time(), LogLevel::notice, -1, "tiffany 0.1.0: 1 worker"),
            "2026-11-26T10:00:00.123Z [notice] tiffany 0.1.0: 1 worker\n");
}

TEST(ErrorLog, NamesEveryLevel) {
  for (const auto& [level, name] : {std::pair{LogLevel::debug, "[debug]"}, std::pair{LogLevel::info, "[info]"},
                                    std::pair{LogLevel::notice, "[notice]"}, std::pair{LogLevel::warn, "[warn]"},
                                    std::pair{LogLevel::error, "[error]"}, std::pair{LogLevel::crit, "[crit]"}}) {
    EXPECT_NE(ErrorLog::format_line(sample_time(), level, -1, "m").find(std::string(" ") + name + " m\n"),
              std::string::npos)
        << name;
  }
}

TEST(ErrorLog, EscapesControlCharactersSoAMessageStaysOneLine) {
  EXPECT_EQ(ErrorLog::format_line(sample_time(), LogLevel::error, 0, "GET /a\nfake line\r\x7f\tend"),
            "2026-11-26T10:00:00.123Z [error] worker 0: GET /a\\x0afake line\\x0d\\x7f\tend\n");
}

TEST(ErrorLog, DefaultsToLevelInfoOnStandardError) {
  const ErrorLog log;
  EXPECT_TRUE(log.to_stderr());
  EXPECT_EQ(log.level(), LogLevel::info);
  EXPECT_FALSE(log.enabled(LogLevel::debug));
  EXPECT_TRUE(log.enabled(LogLevel::info));
  EXPECT_TRUE(log.enabled(LogLevel::crit));
}

TEST(ErrorLog, WritesOnlyMessagesAtOrAboveItsLevel) {
  const TempLogFile file;
  {
    const ErrorLog log(file.open_for_appending(), LogLevel::warn);
    EXPECT_FALSE(log.to_stderr());
    EXPECT_FALSE(log.enabled(LogLevel::notice));
    EXPECT_TRUE(log.enabled(LogLevel::warn));
    log.log(LogLevel::debug, "debug %d", 1);
    log.log(LogLevel::info, "info %d", 2);
    log.log(LogLevel::notice, "notice %d", 3);
    log.log(LogLevel::warn, "warn %d", 4);
    log.log(LogLevel::error, "error %s", "five");
    log.log(LogLevel::crit, "crit %.1f", 6.0);
  }
  const std::vector<std::string> lines = file.lines();
  ASSERT_EQ(lines.size(), 3u) << file.text();
  const char* expected[] = {"[warn] warn 4", "[error] error five", "[crit] crit 6.0"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    ASSERT_GT(lines[i].size(), 25u) << lines[i];
    EXPECT_TRUE(is_log_timestamp(std::string_view(lines[i]).substr(0, 24)) && lines[i][24] == ' ') << lines[i];
    EXPECT_EQ(lines[i].substr(25), expected[i]);
  }
}

TEST(ErrorLog, WritesLongMessagesWhole) {
  const TempLogFile file;
  const std::string long_message(5000, 'x');
  {
    const ErrorLog log(file.open_for_appending(), LogLevel::debug);
    log.log(LogLevel::debug, "%s|", long_message.c_str());
  }
  const std::vector<std::string> lines = file.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("[debug] " + long_message + "|"), std::string::npos);
}

TEST(ErrorLog, LinesFromManyThreadsNeverInterleave) {
  const TempLogFile file;
  constexpr int kThreads = 4;
  constexpr int kLinesEach = 500;
  {
    const ErrorLog log(file.open_for_appending(), LogLevel::info);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&log, t] {
        ErrorLog::set_worker_of_this_thread(t);
        const std::string padding(200, static_cast<char>('a' + t));
        for (int i = 0; i < kLinesEach; ++i) log.log(LogLevel::error, "line %d %s end", i, padding.c_str());
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  const std::vector<std::string> lines = file.lines();
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kLinesEach));
  std::vector<int> per_worker(kThreads, 0);
  for (const std::string& line : lines) {
    // "<timestamp> [error] worker W: line N <200 times the worker's letter> end", whole.
    const std::string_view prefix = " [error] worker ";
    ASSERT_TRUE(line.size() > 24 + prefix.size() + 2 && is_log_timestamp(std::string_view(line).substr(0, 24)) &&
                line.compare(24, prefix.size(), prefix) == 0)
        << line;
    const int worker = line[24 + prefix.size()] - '0';
    ASSERT_TRUE(worker >= 0 && worker < kThreads) << line;
    const std::size_t number = line.find(": line ");
    const std::size_t padding = line.find(' ', number + 7);
    ASSERT_TRUE(number != std::string::npos && padding != std::string::npos) << line;
    EXPECT_EQ(line.substr(padding + 1), std::string(200, static_cast<char>('a' + worker)) + " end") << line;
    ++per_worker[static_cast<std::size_t>(worker)];
  }
  for (int count : per_worker) EXPECT_EQ(count, kLinesEach);
}

TEST(ErrorLog, OpensTheConfiguredFileForAppending) {
  const TempLogFile file;
  {
    std::ofstream(file.path()) << "an earlier line\n";
  }
  Config config;
  config.file = "test.json";
  config.error_log.path = file.path();
  config.error_log.level = "error";
  open_error_log(config);
  EXPECT_FALSE(error_log().to_stderr());
  error_log().log(LogLevel::warn, "not written");
  error_log().log(LogLevel::error, "written");
  config.error_log = ErrorLogConfig{};  // back to standard error at info for the other tests
  open_error_log(config);
  EXPECT_TRUE(error_log().to_stderr());
  EXPECT_EQ(error_log().level(), LogLevel::info);
  const std::vector<std::string> lines = file.lines();
  ASSERT_EQ(lines.size(), 2u) << file.text();
  EXPECT_EQ(lines[0], "an earlier line");
  EXPECT_NE(lines[1].find(" [error] written"), std::string::npos) << lines[1];
}

TEST(ErrorLog, AFileThatCannotBeOpenedIsAConfigErrorNamingItsPath) {
  Config config;
  config.file = "test.json";
  config.error_log.path = "/nonexistent/folder/error.log";
  config.error_log.json_path = "$.error_log";
  try {
    open_error_log(config);
    FAIL() << "opened a file in a missing folder";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "test.json: $.error_log.path: cannot open \"/nonexistent/folder/error.log\" for appending: "
                 "No such file or directory");
  }
  EXPECT_TRUE(error_log().to_stderr());  // unchanged
}

}  // namespace
}  // namespace tiffany
