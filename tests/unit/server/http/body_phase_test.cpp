// BodyPhase's transitions: only the designed ones.
#include "server/http/body_phase.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace tiffany::http {
namespace {

TEST(BodyPhase, OnlyTheDesignedChangesAreAllowed) {
  constexpr BodyPhase kAll[] = {BodyPhase::none, BodyPhase::uninvited, BodyPhase::streaming, BodyPhase::dropping};
  const std::set<std::pair<std::string, std::string>> designed = {
      {"none", "uninvited"},      {"none", "streaming"},     {"uninvited", "streaming"}, {"uninvited", "dropping"},
      {"uninvited", "none"},      {"streaming", "dropping"}, {"streaming", "none"},      {"dropping", "none"}};
  std::set<std::pair<std::string, std::string>> allowed;
  for (const BodyPhase from : kAll) {
    for (const BodyPhase to : kAll) {
      if (may_follow(from, to)) allowed.emplace(name(from), name(to));
    }
  }
  EXPECT_EQ(allowed, designed);
}

}  // namespace
}  // namespace tiffany::http
