// ConnectionPhase's and ResponsePhase's transitions: only the designed ones.
#include "server/http/connection_phase.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "support/phase_table.hpp"

namespace tiffany::http {
namespace {

TEST(ConnectionPhase, OnlyTheDesignedChangesAreAllowed) {
  constexpr ConnectionPhase kAll[] = {ConnectionPhase::open, ConnectionPhase::closing, ConnectionPhase::upgraded,
                                      ConnectionPhase::broken};
  const std::set<std::pair<std::string, std::string>> designed = {{"open", "closing"},   {"open", "upgraded"},
                                                                  {"open", "broken"},    {"closing", "upgraded"},
                                                                  {"closing", "broken"}, {"upgraded", "broken"}};
  EXPECT_EQ(testing::allowed_changes(kAll), designed);
}

TEST(ResponsePhase, OnlyTheDesignedChangesAreAllowed) {
  constexpr ResponsePhase kAll[] = {ResponsePhase::none,    ResponsePhase::whole,     ResponsePhase::identity,
                                    ResponsePhase::chunked, ResponsePhase::switching, ResponsePhase::ended};
  const std::set<std::pair<std::string, std::string>> designed = {{"none", "whole"},     {"none", "identity"},
                                                                  {"none", "chunked"},   {"none", "switching"},
                                                                  {"identity", "ended"}, {"chunked", "ended"}};
  EXPECT_EQ(testing::allowed_changes(kAll), designed);
}

}  // namespace
}  // namespace tiffany::http
