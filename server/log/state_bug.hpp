// report_state_bug: what a state machine does with a transition its table forbids.
#pragma once

namespace tiffany {

/// A state machine was asked for a transition its table does not allow: a
/// bug in our code, never the peer's doing. Logs it at error level, naming
/// the machine and both states, and returns, so that the caller ends what it
/// serves (a connection, a stream) rather than go on in a state nobody
/// designed. With TIFFANY_ABORT_ON_BUG set in the environment (the test
/// suites set it, and a debugging operator may) it aborts instead, so the
/// bug cannot pass unseen.
void report_state_bug(const char* machine, const char* from, const char* to) noexcept;

/// The one way a phase changes: to `next` when its table allows it
/// (`may_follow(phase, next)`, found beside the phase's enum, as `name` is),
/// and true; else the bug is reported (report_state_bug, naming `machine`),
/// `phase` stays, and false: the caller ends what it serves.
template <class Phase>
[[nodiscard]] bool change_phase(Phase& phase, Phase next, const char* machine) noexcept {
  if (may_follow(phase, next)) {
    phase = next;
    return true;
  }
  report_state_bug(machine, name(phase), name(next));
  return false;
}

}  // namespace tiffany
