// happy_eyeballs: the attempt schedule, the board the attempts report to, and the real TCP attempt.
#include "net/internal/happy_eyeballs.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <exception>
#include <memory>
#include <optional>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/socket_calls.hpp>

namespace tiffany::detail {
namespace {

// Where the attempts report; shared with them, so an attempt finishing after
// the race was decided still writes to live memory.
struct Board {
  std::optional<std::size_t> winner;
  UniqueFd socket;
  std::size_t finished = 0;
  std::vector<std::pair<SocketAddress, int>> failures;
  std::optional<Promise<void>> changed;  // while the race waits for news

  void notify() {
    if (!changed) return;
    Promise<void> waiting = std::move(*changed);
    changed.reset();
    waiting.set_value();
  }
};

Task<void> run_attempt(std::shared_ptr<Board> board, std::size_t index, SocketAddress address,
                       const ConnectAttempt& attempt) {
  std::optional<AttemptOutcome> outcome;
  try {
    outcome.emplace(co_await attempt(address));
  } catch (const TaskCanceled&) {
    throw;  // a loser, or the whole connect was canceled: nothing to report
  } catch (...) {
    outcome.emplace(EIO);  // Why: an attempt that throws must still count, or the race would wait forever
  }
  ++board->finished;
  if (outcome->error == 0 && outcome->socket.valid()) {
    if (!board->winner) {
      board->winner = index;
      board->socket = std::move(outcome->socket);
    }  // else a second success, too late: its socket closes with `outcome`
  } else {
    board->failures.emplace_back(address, outcome->error != 0 ? outcome->error : ECONNABORTED);
  }
  board->notify();
}

Task<void> await_news(Future<void> news) { co_await std::move(news); }

}  // namespace

std::vector<SocketAddress> interleave_families(const std::vector<SocketAddress>& addresses) {
  if (addresses.empty()) return {};
  const int first_family = addresses.front().family();
  std::vector<SocketAddress> first;
  std::vector<SocketAddress> other;
  for (const SocketAddress& address : addresses) (address.family() == first_family ? first : other).push_back(address);
  std::vector<SocketAddress> ordered;
  ordered.reserve(addresses.size());
  for (std::size_t i = 0; i < first.size() || i < other.size(); ++i) {
    if (i < first.size()) ordered.push_back(first[i]);
    if (i < other.size()) ordered.push_back(other[i]);
  }
  return ordered;
}

Task<EyeballsOutcome> happy_eyeballs(std::vector<SocketAddress> addresses, std::chrono::nanoseconds delay,
                                     ConnectAttempt attempt) {
  auto board = std::make_shared<Board>();
  std::vector<JoinHandle<void>> attempts;
  attempts.reserve(addresses.size());
  std::exception_ptr canceled;
  try {
    while (!board->winner) {
      if (attempts.size() < addresses.size()) {
        const std::size_t index = attempts.size();
        attempts.push_back(co_await Spawn{run_attempt(board, index, addresses[index], attempt)});
      } else if (board->finished == attempts.size()) {
        break;  // every address failed
      }
      board->changed.emplace();
      Future<void> news = board->changed->future();
      if (attempts.size() < addresses.size()) {
        // Why a deadline: the next attempt starts after `delay` even if this one hangs.
        Deadline next_attempt = Deadline::after(delay);
        const Timed<void> waited = co_await next_attempt.guard(await_news(std::move(news)));
        (void)waited;  // news (a winner, or a failure: start the next now) or the delay passed
      } else {
        co_await await_news(std::move(news));
      }
      board->changed.reset();
    }
  } catch (const TaskCanceled&) {
    canceled = std::current_exception();
  }
  board->changed.reset();
  // Why join: a canceled connect is released by the kernel first; no attempt may outlive this call.
  for (JoinHandle<void>& loser : attempts) loser.cancel();
  for (JoinHandle<void>& loser : attempts) {
    try {
      co_await Join{std::move(loser)};
    } catch (...) {  // TaskCanceled, as intended
    }
  }
  if (canceled) std::rethrow_exception(canceled);
  EyeballsOutcome outcome;
  outcome.failures = std::move(board->failures);
  if (board->winner) {
    outcome.socket = std::move(board->socket);
    outcome.address = addresses[*board->winner];
  }
  co_return outcome;
}

Task<AttemptOutcome> connect_tcp(SocketAddress address) {
  UniqueFd socket(SocketCalls::current().socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket) co_return AttemptOutcome(errno);
  const IoResult connected = co_await Connect{socket.get(), address.data(), address.length()};
  if (!connected) co_return AttemptOutcome(connected.error());
  const int one = 1;
  SocketCalls::current().setsockopt(socket.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  co_return AttemptOutcome(std::move(socket));
}

}  // namespace tiffany::detail
