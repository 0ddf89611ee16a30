// EpollReactor: non-blocking attempts, epoll for readiness, results at the next poll.
#include "reactor/internal/epoll_reactor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <cerrno>
#include <system_error>

#include <tiffany/reactor/splice.hpp>

#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany {
namespace {

constexpr int kMaxEvents = 256;

bool would_block(int error) noexcept { return error == EAGAIN || error == EWOULDBLOCK; }

}  // namespace

EpollReactor::EpollReactor()
    : epoll_fd_(::epoll_create1(EPOLL_CLOEXEC)), wake_fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!epoll_fd_) throw std::system_error(errno, std::system_category(), "epoll_create1");
  if (!wake_fd_) throw std::system_error(errno, std::system_category(), "eventfd");
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = wake_fd_.get();
  if (::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, wake_fd_.get(), &event) != 0) {
    throw std::system_error(errno, std::system_category(), "epoll_ctl(eventfd)");
  }
}

EpollReactor::~EpollReactor() = default;

void EpollReactor::wake() noexcept {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_.get(), &one, sizeof one);
}

bool EpollReactor::wants_write(const IoRequest& request) noexcept {
  switch (request.kind) {
    case IoKind::send:
    case IoKind::send_message:
    case IoKind::connect: return true;
    case IoKind::poll: return (request.poll_mask & POLLOUT) != 0;
    default: return request.kind == kSpliceKind && (request.poll_mask & POLLOUT) != 0;
  }
}

std::uint32_t EpollReactor::reader_events(const IoRequest& request) noexcept {
  // Why a poll's own mask: HangupWait asks for the peer's FIN alone
  // (EPOLLRDHUP), so bytes arriving must not end it.
  if (request.kind != IoKind::poll) return EPOLLIN;
  return ((request.poll_mask & POLLIN) != 0 ? std::uint32_t{EPOLLIN} : 0u) |
         ((request.poll_mask & POLLRDHUP) != 0 ? std::uint32_t{EPOLLRDHUP} : 0u);
}

bool EpollReactor::attempt(IoOperation& op, bool retry, int& result) noexcept {
  const IoRequest& r = op.request();
  for (;;) {
    ssize_t n = -1;
    if (r.kind == kSpliceKind) {  // not a named IoKind (see splice.hpp), so not a case below
      const auto& ends = *static_cast<const SpliceEnds*>(r.buffer);
      n = ::splice(ends.in, nullptr, ends.out, nullptr, r.length, static_cast<unsigned>(r.flags));
    }
    switch (r.kind) {
      case IoKind::poll:
        return false;  // only epoll can say; the result is the readiness it reports
      case IoKind::recv:
        n = ::recv(r.fd, r.buffer, r.length, r.flags | MSG_DONTWAIT);
        break;
      case IoKind::recv_pooled:
        // Why: a spare is taken only for the attempt and given back if no
        // bytes are there, so a waiting connection holds no buffer.
        if (!op.has_buffer()) {
          try {
            op.lend_buffer(SpareReadBuffers::for_this_thread().take());
          } catch (const std::bad_alloc&) {
            result = -ENOMEM;
            return true;
          }
        }
        n = ::recv(r.fd, r.buffer, r.length, r.flags | MSG_DONTWAIT);
        if (n < 0 && would_block(errno)) {
          op.return_buffer();
          return false;
        }
        break;
      case IoKind::send:
        n = ::send(r.fd, r.buffer, r.length, r.flags | MSG_DONTWAIT | MSG_NOSIGNAL);
        break;
      case IoKind::send_message:
        n = ::sendmsg(r.fd, static_cast<const msghdr*>(r.buffer), r.flags | MSG_DONTWAIT | MSG_NOSIGNAL);
        break;
      case IoKind::accept: {
        // Why: accept has no MSG_DONTWAIT; a blocking listener would stall the worker.
        const int flags = ::fcntl(r.fd, F_GETFL);
        if (flags >= 0 && (flags & O_NONBLOCK) == 0) ::fcntl(r.fd, F_SETFL, flags | O_NONBLOCK);
        n = ::accept4(r.fd, r.address, r.address_length, SOCK_CLOEXEC | SOCK_NONBLOCK);
        break;
      }
      case IoKind::connect:
        if (retry) {  // the socket became writable: the connect has finished, one way or another
          int error = 0;
          socklen_t length = sizeof error;
          result = ::getsockopt(r.fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? -error : -errno;
          return true;
        }
        ::fcntl(r.fd, F_SETFL, ::fcntl(r.fd, F_GETFL) | O_NONBLOCK);
        n = ::connect(r.fd, r.address, r.connect_length);
        if (n < 0 && errno == EINPROGRESS) return false;
        break;
    }
    if (n >= 0) {
      result = static_cast<int>(n);
      return true;
    }
    if (errno == EINTR) continue;
    if (would_block(errno)) return false;
    result = -errno;
    return true;
  }
}

void EpollReactor::start(IoOperation& op) {
  int result = 0;
  if (attempt(op, false, result)) {
    finish(op, result);
    return;
  }
  park(op);
}

void EpollReactor::finish(IoOperation& op, int result) { done_.emplace_back(&op, result); }

void EpollReactor::park(IoOperation& op) {
  const int fd = op.request().fd;
  Interest& interest = interests_[fd];
  (wants_write(op.request()) ? interest.writer : interest.reader) = &op;
  ++parked_;
  update_interest(fd, interest);
}

void EpollReactor::update_interest(int fd, Interest& interest) noexcept {
  const std::uint32_t wanted = (interest.reader ? reader_events(interest.reader->request()) : 0u) |
                               (interest.writer ? EPOLLOUT : 0u);
  if (wanted == 0) {
    // Why: epoll reports ERR/HUP even for an empty mask; a reset connection
    // that nobody waits on would wake every poll. Forget the fd instead.
    if (interest.known_to_epoll) ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_DEL, fd, nullptr);
    interests_.erase(fd);
    return;
  }
  if (wanted == interest.registered && interest.known_to_epoll) return;
  epoll_event event{};
  event.events = wanted;
  event.data.fd = fd;
  // Why: a closed fd leaves epoll by itself and its number may come back, so
  // fall back between MOD and ADD instead of trusting our bookkeeping.
  int rc = ::epoll_ctl(epoll_fd_.get(), interest.known_to_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
  if (rc != 0 && errno == ENOENT) rc = ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &event);
  if (rc != 0 && errno == EEXIST) rc = ::epoll_ctl(epoll_fd_.get(), EPOLL_CTL_MOD, fd, &event);
  interest.known_to_epoll = rc == 0;
  interest.registered = rc == 0 ? wanted : 0;
  if (rc != 0) {  // e.g. EPERM for a regular file: report the failure to whoever waits
    const int error = errno;
    for (IoOperation** slot : {&interest.reader, &interest.writer}) {
      if (*slot != nullptr) {
        --parked_;
        finish(*std::exchange(*slot, nullptr), -error);
      }
    }
    interests_.erase(fd);
  }
}

void EpollReactor::unpark(IoOperation& op) noexcept {
  const auto it = interests_.find(op.request().fd);
  if (it != interests_.end()) {
    for (IoOperation** slot : {&it->second.reader, &it->second.writer}) {
      if (*slot == &op) {
        *slot = nullptr;
        --parked_;
        update_interest(it->first, it->second);
        return;
      }
    }
  }
  // Not parked: maybe finished and waiting for delivery.
  done_.erase(std::remove_if(done_.begin(), done_.end(), [&](const auto& entry) { return entry.first == &op; }),
              done_.end());
}

void EpollReactor::cancel(IoOperation& op) noexcept {
  // Why: nothing in the kernel refers to the operation (no buffer was
  // handed over), so forgetting it is enough.
  op.orphan();
  unpark(op);
  op.complete(-ECANCELED);
}

void EpollReactor::cancel_async(IoOperation& op) noexcept {
  const bool finished = std::any_of(done_.begin(), done_.end(), [&](const auto& entry) { return entry.first == &op; });
  if (finished) return;  // its real result (e.g. an accepted fd) is delivered instead
  unpark(op);
  finish(op, -ECANCELED);
}

void EpollReactor::on_ready(int fd, std::uint32_t events) {
  const auto it = interests_.find(fd);
  if (it == interests_.end()) return;
  Interest& interest = it->second;
  const bool failed = (events & (EPOLLERR | EPOLLHUP)) != 0;
  if (interest.reader != nullptr && (failed || (events & reader_events(interest.reader->request())) != 0)) {
    int result = static_cast<int>(events & (POLLIN | POLLOUT | POLLERR | POLLHUP | POLLPRI | POLLRDHUP));
    if (interest.reader->request().kind == IoKind::poll || attempt(*interest.reader, true, result)) {
      --parked_;
      finish(*std::exchange(interest.reader, nullptr), result);
    }
  }
  if (interest.writer != nullptr && (failed || (events & EPOLLOUT))) {
    int result = static_cast<int>(events & (POLLIN | POLLOUT | POLLERR | POLLHUP | POLLPRI));
    if (interest.writer->request().kind == IoKind::poll || attempt(*interest.writer, true, result)) {
      --parked_;
      finish(*std::exchange(interest.writer, nullptr), result);
    }
  }
  update_interest(fd, interest);
}

void EpollReactor::poll(std::optional<std::chrono::nanoseconds> timeout) {
  if (!done_.empty()) timeout = std::chrono::nanoseconds::zero();  // results are waiting already
  timespec ts{};
  if (timeout) {
    ts.tv_sec = timeout->count() / 1'000'000'000;
    ts.tv_nsec = timeout->count() % 1'000'000'000;
  }
  epoll_event events[kMaxEvents];
  const int count = ::epoll_pwait2(epoll_fd_.get(), events, kMaxEvents, timeout ? &ts : nullptr, nullptr);
  if (count < 0 && errno != EINTR) throw std::system_error(errno, std::system_category(), "epoll_pwait2");
  for (int i = 0; i < count; ++i) {
    if (events[i].data.fd == wake_fd_.get()) {
      std::uint64_t drained = 0;
      [[maybe_unused]] const ssize_t n = ::read(wake_fd_.get(), &drained, sizeof drained);
      continue;
    }
    on_ready(events[i].data.fd, events[i].events);
  }
  delivering_.swap(done_);
  for (const auto& [op, result] : delivering_) op->complete(result);
  delivering_.clear();
}

}  // namespace tiffany
