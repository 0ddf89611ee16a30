// SimReactor: the Reactor over the simulated network, results delivered at the next poll.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <tiffany/reactor/reactor.hpp>

#include "sim/sim_network.hpp"
#include "sim/trace_hash.hpp"

namespace tiffany::sim {

/// "10.0.0.1:80" or "[::1]:80": how the simulated network names the address at `address`.
std::string address_text(const sockaddr* address);

/// One host's reactor on the simulated network: the same contract as
/// EpollReactor (an operation never completes inside start(); its result is
/// delivered by the next poll), but poll() never waits: the driver owns
/// time and moves it when every host waits. Each completion is mixed into
/// the run's trace hash: host, kind, descriptor, result, and the bytes.
///
/// An operation on a descriptor the network does not own fails with EBADF
/// and is counted (foreign_operations()): I/O that bypassed the simulation.
class SimReactor final : public Reactor {
 public:
  SimReactor(SimNetwork& network, TraceHash& trace, int host, bool queues_operations) noexcept
      : network_(network), trace_(trace), host_(host), queues_operations_(queues_operations) {}

  void start(IoOperation& op) override;
  void cancel(IoOperation& op) noexcept override;
  void cancel_async(IoOperation& op) noexcept override;
  void poll(std::optional<std::chrono::nanoseconds> timeout) override;
  bool has_pending() const noexcept override { return !parked_.empty() || !done_.empty(); }
  void wake() noexcept override {}
  std::string describe() const override { return "simulated"; }
  bool queues_operations() const noexcept override { return queues_operations_; }

  /// True when poll() would complete an operation now: the driver's test of
  /// whether this host can make progress at the current virtual time.
  bool has_due_completions() const;
  /// Operations started on descriptors the network does not own.
  std::size_t foreign_operations() const noexcept { return foreign_operations_; }

 private:
  bool could_complete(const IoOperation& op) const;
  /// Runs `op` against the network; true with `result` when it finished.
  bool attempt(IoOperation& op, int& result);
  long send_gathered(const IoRequest& request);
  void record(const IoOperation& op, int result);

  SimNetwork& network_;
  TraceHash& trace_;
  int host_;
  bool queues_operations_;
  std::vector<IoOperation*> parked_;                // in start order: attempted in that order
  std::vector<std::pair<IoOperation*, int>> done_;  // finished, delivered at the next poll
  std::size_t foreign_operations_ = 0;
};

}  // namespace tiffany::sim
