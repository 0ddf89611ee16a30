// BodyPhase's transitions: only the designed ones.
#include "server/http/body_phase.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "support/phase_table.hpp"

namespace tiffany::http {
namespace {

TEST(BodyPhase, OnlyTheDesignedChangesAreAllowed) {
  constexpr BodyPhase kAll[] = {BodyPhase::none, BodyPhase::uninvited, BodyPhase::streaming, BodyPhase::dropping};
  const std::set<std::pair<std::string, std::string>> designed = {
      {"none", "uninvited"},      {"none", "streaming"},     {"uninvited", "streaming"}, {"uninvited", "dropping"},
      {"uninvited", "none"},      {"streaming", "dropping"}, {"streaming", "none"},      {"dropping", "none"}};
  EXPECT_EQ(testing::allowed_changes(kAll), designed);
}

}  // namespace
}  // namespace tiffany::http
