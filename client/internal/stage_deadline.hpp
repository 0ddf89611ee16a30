// stage_end: when a stage of an outbound request must end, given its own limit and the request's total.
#pragma once

#include <chrono>
#include <optional>

#include <tiffany/client/client_error.hpp>
#include <tiffany/coro/scheduler.hpp>

namespace tiffany::detail {

/// The end of a stage and the stage to blame if it passes: the stage's own
/// limit (zero: none) or the total's end, whichever comes first.
struct StageEnd {
  std::optional<Scheduler::Clock::time_point> when;
  ClientStage stage = ClientStage::none;
};

inline StageEnd stage_end(ClientStage stage, std::chrono::milliseconds limit,
                          std::optional<Scheduler::Clock::time_point> total_end) {
  StageEnd end;
  if (limit.count() > 0) end = {Scheduler::current().now() + limit, stage};
  if (total_end && (!end.when || *total_end <= *end.when)) end = {total_end, ClientStage::total};
  return end;
}

}  // namespace tiffany::detail
