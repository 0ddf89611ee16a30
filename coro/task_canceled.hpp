// TaskCanceled: what a canceled task sees at its suspension point.
#pragma once

#include <exception>

namespace tiffany {

/// Thrown inside a task at the suspension point where its cancellation is
/// delivered, so destructors and catch blocks run. If it escapes the task,
/// the task ends canceled (not failed) and its joiner gets it rethrown.
class TaskCanceled : public std::exception {
 public:
  const char* what() const noexcept override { return "task canceled"; }
};

}  // namespace tiffany
