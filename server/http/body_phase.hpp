// BodyPhase: where a request body streamed to an HTTP/1.1 handler stands, and which changes are allowed.
#pragma once

#include <cstdint>

namespace tiffany::http {

/// A streamed request body on an HTTP/1.1 connection, from its header
/// section to the next request. Changes only through HttpConnection::enter,
/// which checks each against may_follow().
enum class BodyPhase : std::uint8_t {
  none,       ///< no body streams to a handler (none came, or the parser reads it whole)
  uninvited,  ///< it streams, but its client waits for "100 Continue", not sent yet
  streaming,  ///< the handler reads it as it arrives (invited, or it needed no invitation)
  dropping,   ///< the answer went out first; the unread rest is read and dropped
};

/// True when a body in `from` may go to `to`:
///   none      -> uninvited | streaming          (its header section: begin_streamed_body)
///   uninvited -> streaming | dropping | none     (invited by the first read, or never: a final head went)
///   streaming -> dropping | none
///   dropping  -> none                            (end_streamed_body)
constexpr bool may_follow(BodyPhase from, BodyPhase to) noexcept {
  switch (from) {
    case BodyPhase::none: return to == BodyPhase::uninvited || to == BodyPhase::streaming;
    case BodyPhase::uninvited: return to == BodyPhase::streaming || to == BodyPhase::dropping || to == BodyPhase::none;
    case BodyPhase::streaming: return to == BodyPhase::dropping || to == BodyPhase::none;
    case BodyPhase::dropping: return to == BodyPhase::none;
  }
  return false;
}

/// The phase's name in log lines (report_state_bug).
constexpr const char* name(BodyPhase phase) noexcept {
  constexpr const char* kNames[] = {"none", "uninvited", "streaming", "dropping"};
  return kNames[static_cast<std::uint8_t>(phase)];
}

}  // namespace tiffany::http
