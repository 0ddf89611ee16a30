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

}  // namespace tiffany
