#!/usr/bin/env bash
# Fails if server/http2/ drops the result of an nghttp2 call that can fail:
# a statement that begins with one (even cast to void, or after an if). Why: those calls
# fail for lack of memory (or a session in a state the code did not
# expect), and a dropped failure leaves the connection waiting for a
# GOAWAY, a window update or a reset that never goes. Check the result
# (Http2Connection::check ends the connection on a fatal one).
# The setters of callbacks and options return nothing and are not listed.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
calls='submit_[a-z_]+|session_consume[a-z_]*|session_resume_data|session_terminate_session[a-z0-9_]*|session_set_local_window_size|session_set_stream_user_data|session_upgrade[a-z0-9_]*|session_change[a-z_]*'
# A call that starts a statement: at the line's start, or after `;`, `{` or `)` (an if's condition, a cast to void).
offenders=$(grep -nE "(^|[;{)])[[:space:]]*nghttp2_(${calls})\(" server/http2/*.cpp || true)
if [ -n "$offenders" ]; then
  echo "nghttp2 results dropped (check them):"
  echo "$offenders"
  exit 1
fi
