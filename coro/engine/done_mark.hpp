// DoneMark: marks a task's end in a flag and wakes whoever waits for it, however the task ends.
#pragma once

#include <tiffany/coro/wake_signal.hpp>

namespace tiffany {

/// Put one in a task's frame: when the frame goes (the task returned,
/// threw, was canceled, or its scheduler destroyed it) `flag` is set and
/// `signal` wakes its waiter. Why a flag the waiter owns, not the task's
/// JoinHandle: a stopping scheduler destroys frames in any order, and the
/// waiter must learn the task is gone before touching what it used.
class DoneMark {
 public:
  DoneMark(bool& flag, WakeSignal& signal) noexcept : flag_(flag), signal_(signal) {}
  DoneMark(const DoneMark&) = delete;
  DoneMark& operator=(const DoneMark&) = delete;
  ~DoneMark() {
    flag_ = true;
    signal_.set();
  }

 private:
  bool& flag_;
  WakeSignal& signal_;
};

}  // namespace tiffany
