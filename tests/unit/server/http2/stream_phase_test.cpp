// StreamPhase's and OutputPhase's transitions, and what a forbidden one does (report_state_bug).
#include "server/http2/stream_phase.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "server/log/state_bug.hpp"
#include "support/phase_table.hpp"

namespace tiffany::http2 {
namespace {

constexpr StreamPhase kAll[] = {StreamPhase::headers, StreamPhase::uploading, StreamPhase::running,
                                StreamPhase::refused, StreamPhase::finished};

TEST(StreamPhase, OnlyTheDesignedChangesAreAllowed) {
  const std::set<std::pair<std::string, std::string>> designed = {
      {"headers", "uploading"}, {"headers", "running"}, {"headers", "refused"},
      {"uploading", "running"}, {"uploading", "refused"}, {"running", "finished"}};
  EXPECT_EQ(testing::allowed_changes(kAll), designed);
}

TEST(OutputPhase, OnlyTheDesignedChangesAreAllowed) {
  constexpr OutputPhase kOutputs[] = {OutputPhase::none, OutputPhase::whole, OutputPhase::streaming,
                                      OutputPhase::ended};
  const std::set<std::pair<std::string, std::string>> designed = {
      {"none", "whole"}, {"none", "streaming"}, {"streaming", "ended"}};
  EXPECT_EQ(testing::allowed_changes(kOutputs), designed);
}

TEST(StateBug, IsLoggedAndReturnsInService) {
  const char* before = std::getenv("TIFFANY_ABORT_ON_BUG");
  const std::string saved = before != nullptr ? before : "";
  ::unsetenv("TIFFANY_ABORT_ON_BUG");
  ::testing::internal::CaptureStderr();
  report_state_bug("an HTTP/2 stream", name(StreamPhase::finished), name(StreamPhase::running));
  const std::string log = ::testing::internal::GetCapturedStderr();
  if (before != nullptr) ::setenv("TIFFANY_ABORT_ON_BUG", saved.c_str(), 1);
  EXPECT_NE(log.find("bug: an HTTP/2 stream went from finished to running, which its transitions do not allow"),
            std::string::npos)
      << log;
}

TEST(StateBugDeathTest, AbortsWhereTheEnvironmentAsks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        ::setenv("TIFFANY_ABORT_ON_BUG", "1", 1);
        report_state_bug("an HTTP/2 stream", "refused", "running");
      },
      "bug: an HTTP/2 stream: refused -> running; aborting");
}

}  // namespace
}  // namespace tiffany::http2
