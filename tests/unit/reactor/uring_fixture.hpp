// An io_uring reactor + scheduler pair for tests that need one backend only
// (reactor_fixture.hpp runs a test on every backend); skips without io_uring.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <system_error>

#include <tiffany/coro/scheduler.hpp>

#include "reactor/internal/uring_reactor.hpp"

namespace tiffany {

class UringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      reactor_ = std::make_unique<UringReactor>(256);
    } catch (const std::system_error& e) {
      GTEST_SKIP() << "io_uring unavailable here: " << e.what();
    }
    scheduler_ = std::make_unique<Scheduler>(reactor_.get());
  }
  void TearDown() override {
    scheduler_.reset();  // tasks first: their operations need the reactor
    reactor_.reset();
  }

  Scheduler& scheduler() { return *scheduler_; }

 private:
  std::unique_ptr<UringReactor> reactor_;
  std::unique_ptr<Scheduler> scheduler_;
};

}  // namespace tiffany
