// Exchange::respond: one request from its head to its log line, whatever protocol carried it.
#include <string>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/http/http_status.hpp>

#include "server/http/exchange.hpp"
#include "server/log/error_log.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http {

Task<void> ResponseWire::after_client_gone(const std::exception_ptr&) {
  co_return;  // handler_ended never says so on a wire that does not watch its client
}

void Exchange::plain_error(Response& response, int status) {
  response.clear();
  response.status = status;
  response.headers.set("Content-Type", "text/plain; charset=utf-8");
  response.body = std::to_string(status) + " " + std::string(reason_phrase(status)) + "\n";
}

Task<void> Exchange::respond(Request& request, Response& response, Deadline& deadline) {
  begin(request);
  const auto started = Scheduler::current().now();
  Handler* target = nullptr;
  bool runs = true;  // a handler (or the listener's middleware) makes the answer
  if (request.path == "*") {
    // OPTIONS * (RFC 9110 §9.3.7): about the server, not a resource; the
    // parsers let only OPTIONS use the asterisk-form.
    response.status = 200;
    runs = false;
  } else if (site_.middleware == nullptr) {
    // Why routed here: with no listener middleware the handler runs with no step before it.
    target = route(request, response);
    runs = target != nullptr;  // else the plain 404 or 405 is in `response`
    if (runs) wire_.handler_routed();
  }
  if (!runs) {
    wire_.send_whole(response, false);
  } else {
    arm_handler_deadline(deadline);
    HandlerEnd end;
    std::exception_ptr canceled;  // a cancellation that unwinds the request (cancel_unwinds)
    try {
      const Timed<void> ran =
          co_await within(deadline, TimeoutStage::handler, handle(request, response, target));
      end.timed_out = ran.timed_out();
    } catch (const TaskCanceled&) {
      if (wire_.cancel_unwinds()) {
        canceled = std::current_exception();
      } else {
        end.failure = std::current_exception();
      }
    } catch (...) {
      end.failure = std::current_exception();
    }
    wire_.handler_ended(end);
    // Why not yet with a WebSocket: its session's tasks read and write through the wire, so they end first.
    if (canceled && !end.websocket) std::rethrow_exception(canceled);
    if (end.client_gone) {
      co_await wire_.after_client_gone(end.failure);
    } else {
      const Judgment judgment = judge(request, response, end);
      if (judgment.verdict == Verdict::end_websocket) {
        co_await wire_.end_websocket(end.failure != nullptr || end.timed_out);
        if (canceled) std::rethrow_exception(canceled);
      } else {
        send_verdict(request, response, judgment);
      }
    }
  }
  const auto took = Scheduler::current().now() - started;
  const ResponseWire::Sent sent = wire_.sent();
  if (sent.logged) {
    finish(request, sent.status, sent.body_bytes, took);
  } else {
    reset();  // its content coding ends too
  }
}

void Exchange::send_verdict(const Request& request, Response& response, const Judgment& judgment) {
  switch (judgment.verdict) {
    case Verdict::error:
      plain_error(response, judgment.status);
      wire_.send_error(response);
      return;
    case Verdict::cut:
    case Verdict::unanswered:
      wire_.cut();
      return;
    case Verdict::answer:
    case Verdict::end_websocket:  // respond() ends it
      break;
  }
  if (response.streaming()) {
    const std::optional<std::uint64_t> declared = response.content_length();
    const bool as_declared =
        !declared || head_request_ || status_forbids_body(response.status) || identity_bytes_ == *declared;
    if (!as_declared && error_log().enabled(LogLevel::error)) {
      error_log().log(LogLevel::error, "%s streamed %llu bytes but declared %llu on %s %s%s; ending it as broken",
                      handler_label(), static_cast<unsigned long long>(identity_bytes_),
                      static_cast<unsigned long long>(*declared), request.method.c_str(), request.path.c_str(),
                      over_);
    }
    std::string_view tail;
    if (compression_.streaming() && !wire_.write_closed()) tail = compression_.finish_stream();
    wire_.end_stream(tail, as_declared);
    return;
  }
  if (response.status >= 200 && response.status < 300 && wire_.websocket_by_connect()) {
    // Why: a 2xx to an extended CONNECT tells the client its tunnel is open (RFC 8441 §5), and this one is not.
    plain_error(response, 400);
    response.body = "this resource does not speak WebSocket\n";
    wire_.send_whole(response, false);
    return;
  }
  const bool encoded = compression_.apply_whole(response, head_request_);
  wire_.send_whole(response, encoded);
}

}  // namespace tiffany::http
