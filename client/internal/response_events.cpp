// next_response_event: parse what is buffered, else one read under the right stage deadline.
#include "client/internal/response_events.hpp"

#include <cerrno>

#include <tiffany/coro/deadline.hpp>

#include "client/internal/stage_deadline.hpp"

namespace tiffany::detail {

Task<ResponseStep> next_response_event(ClientConnection& connection) {
  using Event = http::ResponseParser::Event;
  http::ResponseParser& parser = connection.parser();
  for (;;) {
    ResponseStep step;
    step.result = parser.feed(connection.pending());
    connection.consume(step.result.consumed);
    if (step.result.event != Event::need_more) co_return step;

    const bool first = connection.response_bytes == 0;
    const StageEnd end = first ? stage_end(ClientStage::first_byte, connection.first_byte_timeout, connection.total_end)
                               : stage_end(ClientStage::read, connection.read_timeout, connection.total_end);
    Deadline deadline = Deadline::unarmed();
    if (end.when) deadline.rearm(*end.when);
    char* space = connection.read_space();
    Timed<IoResult> got = co_await deadline.guard(connection.stream().read(space, connection.read_size()));
    if (got.timed_out()) {
      step.timed_out = end.stage;
      co_return step;
    }
    if (!got->ok()) {
      step.read_error = got->error();
      co_return step;
    }
    if (connection.input_before_request()) {
      // Why a reset: what was read came before the request went out (stray
      // bytes or EOF of an idle connection), never its response.
      step.read_error = ECONNRESET;
      co_return step;
    }
    if (got->bytes() == 0) {
      step.result = parser.finish();
      co_return step;
    }
    connection.received(got->bytes());
    connection.response_bytes += got->bytes();
  }
}

}  // namespace tiffany::detail
