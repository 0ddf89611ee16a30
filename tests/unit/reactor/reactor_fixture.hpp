// A reactor + scheduler pair for reactor tests, run once per backend
// (io_uring and epoll); skips a backend the host does not allow.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <system_error>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>

#include "reactor/engine/reactor_factory.hpp"

namespace tiffany {

class ReactorTest : public ::testing::TestWithParam<BackendChoice> {
 protected:
  void SetUp() override {
    try {
      reactor_ = make_reactor(GetParam()).reactor;
    } catch (const std::system_error& e) {
      GTEST_SKIP() << "backend unavailable here: " << e.what();
    }
    scheduler_ = std::make_unique<Scheduler>(reactor_.get());
  }
  void TearDown() override {
    scheduler_.reset();  // tasks first: their operations need the reactor
    reactor_.reset();
  }

  Scheduler& scheduler() { return *scheduler_; }
  Reactor& reactor() { return *reactor_; }

  /// Runs `body` as a task to its end (and every task it left behind).
  void run(const std::function<Task<void>()>& body) {
    (void)scheduler().spawn(body());
    scheduler().run();
  }

 private:
  std::unique_ptr<Reactor> reactor_;
  std::unique_ptr<Scheduler> scheduler_;
};

inline std::string backend_name(const ::testing::TestParamInfo<BackendChoice>& info) {
  return info.param == BackendChoice::epoll ? "epoll" : "io_uring";
}

/// The backends every reactor test runs on.
inline auto all_backends() { return ::testing::Values(BackendChoice::io_uring, BackendChoice::epoll); }

}  // namespace tiffany
