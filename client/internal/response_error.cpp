// response_error: maps timeouts, read errors and the response parser's errors to ClientError values.
#include "client/internal/response_error.hpp"

#include <cstring>

namespace tiffany::detail {

ClientError response_error(const ResponseStep& step, const http::ResponseParser& parser, const std::string& what,
                           const ClientConnection& connection) {
  using Kind = http::ResponseParser::ErrorKind;
  if (step.timed_out != ClientStage::none) {
    const char* waiting = step.timed_out == ClientStage::first_byte ? "no response within the first_byte timeout"
                          : step.timed_out == ClientStage::read     ? "the response stalled past the read timeout"
                                                                    : "the total timeout passed";
    return {ClientErrorKind::timeout, what + ": " + waiting, step.timed_out};
  }
  if (step.read_error != 0) {
    const ClientErrorKind kind = connection.response_bytes == 0 ? ClientErrorKind::closed : ClientErrorKind::truncated;
    return {kind, what + ": reading the response: " + std::strerror(step.read_error), ClientStage::none};
  }
  if (step.result.event == http::ResponseParser::Event::closed) {
    return {ClientErrorKind::closed, what + ": the server closed the connection before responding", ClientStage::none};
  }
  switch (parser.error_kind()) {
    case Kind::too_large: return {ClientErrorKind::too_large, what + ": " + parser.error_message(), ClientStage::none};
    case Kind::truncated: return {ClientErrorKind::truncated, what + ": " + parser.error_message(), ClientStage::none};
    default: return {ClientErrorKind::protocol, what + ": " + parser.error_message(), ClientStage::none};
  }
}

}  // namespace tiffany::detail
