// ClientWatch: the watcher task (a HangupWait on the socket); HttpConnection's use of it around the handler and its 499.
#include "server/http/client_watch.hpp"

#include <poll.h>

#include <exception>

#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/yield.hpp>
#include <tiffany/reactor/readiness.hpp>

#include "server/http/http_connection.hpp"
#include "server/log/error_log.hpp"

namespace tiffany::http {

void ClientWatch::start(int socket, TaskId owner) {
  stop();
  state_ = std::make_shared<State>();
  state_->owner = owner;
  watcher_ = Scheduler::current().spawn(watch(state_, socket));
}

void ClientWatch::stop() noexcept {
  if (state_ != nullptr && state_->armed) {
    state_->armed = false;
    watcher_.cancel();
  }
  // Why let go without a join: the watcher holds only its share of the
  // state, and a canceled poll needs no buffer, so nothing waits for it.
  watcher_.reset();
}

Task<void> ClientWatch::watch(std::shared_ptr<State> state, int socket) {
  const IoResult ready = co_await HangupWait(socket);
  // Why look: a poll that completed in the turn the watch was stopped
  // resumes us with its result rather than with the cancellation.
  if (!state->armed) co_return;
  if (!ready || (ready.value() & (POLLRDHUP | POLLHUP | POLLERR)) == 0) co_return;  // the poll failed: no news
  state->armed = false;
  state->gone = true;
  Scheduler::current().cancel(state->owner);
}

void HttpConnection::watch_client_if_wanted() {
  if (!watch_client_ || socket_ < 0 || client_watch_.watching()) return;
  // Why not yet: epoll lets one reader wait on a socket, and the body's reads are the handler's.
  if (body_phase_ != BodyPhase::none && body_state_ == BodyStatus::data) return;
  client_watch_.start(socket_, task_);
}

void HttpConnection::handler_routed() {
  watch_client_ = exchange_.watches_client();
  watch_client_if_wanted();
}

void HttpConnection::handler_ended(HandlerEnd& end) {
  watch_client_ = false;
  client_watch_.stop();
  if (client_watch_.gone()) {
    client_watch_.clear();
    end.client_gone = true;
    return;
  }
  end.websocket = websocket_ != nullptr;
  if (body_phase_ == BodyPhase::none) return;
  end.body = body_state_;
  end.body_error_status = body_error_status_;
  // Why whatever the verdict: every other answer closes the connection anyway.
  if (body_state_ == BodyStatus::data) settle_unread_body();
}

Task<void> HttpConnection::after_client_gone(const std::exception_ptr& failure) {
  close_after_response();
  bool delivered = false;
  try {
    if (failure) std::rethrow_exception(failure);
  } catch (const TaskCanceled&) {
    delivered = true;
  } catch (...) {
  }
  if (!delivered) {
    // Why: the handler ended before our cancellation reached it (it did not
    // wait again, or it caught it); taken here, it cannot end a later wait
    // of this task (the flush of earlier pipelined answers, the close).
    try {
      co_await Yield{};
    } catch (const TaskCanceled&) {
    }
  }
  const Request& request = parser_.request();
  if (error_log().enabled(LogLevel::info)) {
    const char* label = exchange_.handler_label_or("handler");
    error_log().log(LogLevel::info, "the client closed the connection while %s ran on %s %s; canceled it",
                    label, request.method.c_str(), request.path.c_str());
  }
  if (response_.streaming()) co_return;  // its head went out: the access log keeps that status
  // Why 499: nginx's status for a request whose client left before the answer; nothing goes on the wire.
  sent_status_ = 499;
  sent_length_ = 0;
}

}  // namespace tiffany::http
