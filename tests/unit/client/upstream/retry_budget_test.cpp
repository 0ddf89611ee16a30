// RetryBudget: a burst of failures cannot start more retries than Envoy's budget allows.
#include "client/upstream/retry_budget.hpp"

#include <gtest/gtest.h>

namespace tiffany::upstream {
namespace {

TEST(RetryBudget, ABurstOfFailuresGetsAtMostPercentOfRequestsInFlight) {
  RetryBudget budget(20, 3);
  for (int i = 0; i < 100; ++i) budget.begin_request();
  int granted = 0;
  for (int i = 0; i < 100; ++i) granted += budget.try_acquire_retry() ? 1 : 0;  // every request failed at once
  EXPECT_EQ(granted, 20);
  EXPECT_EQ(budget.active_retries(), 20u);
  budget.release_retry();
  EXPECT_TRUE(budget.try_acquire_retry()) << "a finished retry frees its place";
  EXPECT_FALSE(budget.try_acquire_retry());
}

TEST(RetryBudget, MinConcurrentIsAFloorAtLowLoad) {
  RetryBudget budget(20, 3);
  budget.begin_request();
  EXPECT_EQ(budget.limit(), 3u);
  EXPECT_TRUE(budget.try_acquire_retry());
  EXPECT_TRUE(budget.try_acquire_retry());
  EXPECT_TRUE(budget.try_acquire_retry());
  EXPECT_FALSE(budget.try_acquire_retry());
  RetryBudget none(0, 0);
  none.begin_request();
  EXPECT_FALSE(none.try_acquire_retry()) << "0 and 0: no retries";
}

TEST(RetryBudget, TheLimitFollowsRequestsInFlight) {
  RetryBudget budget(50, 0);
  for (int i = 0; i < 10; ++i) budget.begin_request();
  EXPECT_EQ(budget.limit(), 5u);
  for (int i = 0; i < 6; ++i) budget.end_request();
  EXPECT_EQ(budget.limit(), 2u);
  for (int i = 0; i < 10; ++i) budget.end_request();  // never below zero
  EXPECT_EQ(budget.active_requests(), 0u);
}

}  // namespace
}  // namespace tiffany::upstream
