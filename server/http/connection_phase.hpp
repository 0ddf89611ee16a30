// ConnectionPhase, ResponsePhase: where an HTTP/1.1 connection and its response stand, and which changes are allowed.
#pragma once

#include <cstdint>

namespace tiffany::http {

/// Whether an HTTP/1.1 connection goes on after the response being
/// answered. Changes only through HttpConnection::enter, which checks each
/// change against may_follow(); it never goes back to open, so every phase
/// but open ends the connection after this response. A burst ends idle
/// (AfterBurst::idle) only while it is open, so a state reused for the next
/// burst, or by another connection, finds it open.
enum class ConnectionPhase : std::uint8_t {
  open,      ///< another request may follow this response (keep-alive)
  closing,   ///< this response is the last: its head says Connection: close
  upgraded,  ///< the 101 went out: the stream is a WebSocket's until its handler returns, then closes
  broken,    ///< a write failed, or a 500 replaced a head the handler set wrong: nothing more is written; it closes
};

/// True when a connection in `from` may go to `to`:
///   open     -> closing | upgraded | broken
///   closing  -> upgraded | broken     (an Upgrade request does not keep alive: the parser says close)
///   upgraded -> broken                (a write the handler makes after the 101 fails)
/// broken is where a connection ends.
constexpr bool may_follow(ConnectionPhase from, ConnectionPhase to) noexcept {
  switch (from) {
    case ConnectionPhase::open:
      return to == ConnectionPhase::closing || to == ConnectionPhase::upgraded || to == ConnectionPhase::broken;
    case ConnectionPhase::closing: return to == ConnectionPhase::upgraded || to == ConnectionPhase::broken;
    case ConnectionPhase::upgraded: return to == ConnectionPhase::broken;
    case ConnectionPhase::broken: return false;
  }
  return false;
}

/// The phase's name in log lines (report_state_bug).
/// Why a switch, not a table: enter() names a phase it found forbidden, and
/// g++ 12 (-Warray-bounds) cannot tell that such a value is in range.
constexpr const char* name(ConnectionPhase phase) noexcept {
  switch (phase) {
    case ConnectionPhase::open: return "open";
    case ConnectionPhase::closing: return "closing";
    case ConnectionPhase::upgraded: return "upgraded";
    case ConnectionPhase::broken: return "broken";
  }
  return "?";
}

/// How the current response goes on the wire, from nothing written to its
/// end. Changes only through HttpConnection::enter (append_head enters what
/// its head starts), checked against may_follow(); each response starts
/// anew at none (answer(), reject()).
enum class ResponsePhase : std::uint8_t {
  none,       ///< no head of it is written yet
  whole,      ///< it went whole: head and body (or a plain error in its place)
  identity,   ///< a streamed body's head went; its bytes follow as they are (sized, bodyless, or to the close)
  chunked,    ///< a streamed body's head went with Transfer-Encoding: chunked; each piece is a chunk
  switching,  ///< its head is a 101 (Connection: Upgrade): a WebSocket speaks after it
  ended,      ///< the streamed body's end is written (the last chunk, the content coding's tail)
};

/// True when a response in `from` may go to `to`:
///   none     -> whole | identity | chunked | switching
///   identity -> ended
///   chunked  -> ended
/// whole, switching and ended are where a response ends.
constexpr bool may_follow(ResponsePhase from, ResponsePhase to) noexcept {
  switch (from) {
    case ResponsePhase::none: return to != ResponsePhase::none && to != ResponsePhase::ended;
    case ResponsePhase::identity:
    case ResponsePhase::chunked: return to == ResponsePhase::ended;
    case ResponsePhase::whole:
    case ResponsePhase::switching:
    case ResponsePhase::ended: return false;
  }
  return false;
}

/// The phase's name in log lines (report_state_bug); a switch as name(ConnectionPhase) is.
constexpr const char* name(ResponsePhase phase) noexcept {
  switch (phase) {
    case ResponsePhase::none: return "none";
    case ResponsePhase::whole: return "whole";
    case ResponsePhase::identity: return "identity";
    case ResponsePhase::chunked: return "chunked";
    case ResponsePhase::switching: return "switching";
    case ResponsePhase::ended: return "ended";
  }
  return "?";
}

}  // namespace tiffany::http
