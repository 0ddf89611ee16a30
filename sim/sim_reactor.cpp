// SimReactor: parks operations, attempts them against the simulated network at each poll.
#include "sim/sim_reactor.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <new>
#include <ostream>

#include <tiffany/reactor/splice.hpp>

#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany::sim {
namespace {

bool is_read(IoKind kind) noexcept { return kind == IoKind::recv || kind == IoKind::recv_pooled; }
bool is_write(IoKind kind) noexcept { return kind == IoKind::send || kind == IoKind::send_message; }

}  // namespace

std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address == nullptr) return {};
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(v6->sin6_port));
  }
  return {};
}

void SimReactor::start(IoOperation& op) {
  const IoRequest& request = op.request();
  if (!network_.owns(request.fd)) {
    ++foreign_operations_;
    done_.emplace_back(&op, -EBADF);
    return;
  }
  if (request.kind == kSpliceKind) {
    done_.emplace_back(&op, -EOPNOTSUPP);  // not simulated yet: pipes come with the proxy
    return;
  }
  if (request.kind == IoKind::connect) {
    const int begun =
        network_.connect(request.fd, address_text(request.address), "10.0." + std::to_string(host_) + ".1");
    if (begun < 0) {
      done_.emplace_back(&op, begun);
      return;
    }
  }
  parked_.push_back(&op);
}

bool SimReactor::could_complete(const IoOperation& op) const {
  const IoRequest& request = op.request();
  const std::uint32_t ready = network_.readiness(request.fd);
  if ((ready & POLLNVAL) != 0) return true;  // closed under it: EBADF
  if (request.kind == IoKind::poll) {
    const std::uint32_t wanted = request.poll_mask | POLLERR | POLLHUP;
    return (ready & wanted) != 0;
  }
  if (is_read(request.kind)) return (ready & (POLLIN | POLLERR | POLLHUP)) != 0;
  if (is_write(request.kind)) return (ready & (POLLOUT | POLLERR)) != 0;
  if (request.kind == IoKind::accept) return (ready & POLLIN) != 0;
  if (request.kind == IoKind::connect) return network_.connect_result(request.fd) != -EINPROGRESS;
  return false;
}

long SimReactor::send_gathered(const IoRequest& request) {
  // Why one joined copy: a socket takes a gathered write as one stream of
  // bytes; the network then cuts it where the seed says.
  const auto& message = *static_cast<const msghdr*>(request.buffer);
  std::string joined;
  for (std::size_t i = 0; i < message.msg_iovlen; ++i) {
    joined.append(static_cast<const char*>(message.msg_iov[i].iov_base), message.msg_iov[i].iov_len);
  }
  return network_.send(request.fd, joined.data(), joined.size());
}

bool SimReactor::attempt(IoOperation& op, int& result) {
  const IoRequest& request = op.request();
  long n = -EAGAIN;
  switch (request.kind) {
    case IoKind::poll: {
      const std::uint32_t ready = network_.readiness(request.fd);
      const std::uint32_t mask = ready & (request.poll_mask | POLLERR | POLLHUP | POLLNVAL);
      if (mask == 0) return false;
      result = static_cast<int>(mask);
      return true;
    }
    case IoKind::recv:
      n = network_.recv(request.fd, static_cast<char*>(request.buffer), request.length, request.flags);
      break;
    case IoKind::recv_pooled:
      if (!op.has_buffer()) {
        try {
          op.lend_buffer(SpareReadBuffers::for_this_thread().take());
        } catch (const std::bad_alloc&) {
          result = -ENOMEM;
          return true;
        }
      }
      n = network_.recv(request.fd, static_cast<char*>(op.request().buffer), op.request().length, request.flags);
      if (n == -EAGAIN) op.return_buffer();
      break;
    case IoKind::send: n = network_.send(request.fd, static_cast<const char*>(request.buffer), request.length); break;
    case IoKind::send_message: n = send_gathered(request); break;
    case IoKind::accept: n = network_.accept(request.fd, request.address, request.address_length); break;
    case IoKind::connect:
      n = network_.connect_result(request.fd);
      if (n == -EINPROGRESS) return false;
      break;
    default: n = -EOPNOTSUPP;
  }
  if (n == -EAGAIN) return false;
  result = static_cast<int>(n);
  return true;
}

void SimReactor::record(const IoOperation& op, int result) {
  const IoRequest& request = op.request();
  TraceHash bytes;  // a digest of what was read: the run's hash depends on every byte
  if (result > 0 && is_read(request.kind)) {
    bytes.mix_bytes(std::string_view(static_cast<const char*>(request.buffer), static_cast<std::size_t>(result)));
  }
  trace_.mix(static_cast<std::uint64_t>(host_));
  trace_.mix(static_cast<std::uint64_t>(request.kind));
  trace_.mix(static_cast<std::uint64_t>(request.fd));
  trace_.mix(static_cast<std::uint64_t>(static_cast<std::int64_t>(result)));
  trace_.mix(bytes.value());
  if (std::ostream* lines = trace_.event()) {
    *lines << "io host " << host_ << " kind " << static_cast<int>(request.kind) << " fd " << request.fd << " result "
           << result << " bytes " << std::hex << bytes.value() << std::dec << '\n';
  }
}

void SimReactor::poll(std::optional<std::chrono::nanoseconds>) {
  // Why in start order, each against the network as it is after the ones
  // before: two operations on one socket see its bytes once, in order.
  for (std::size_t i = 0; i < parked_.size();) {
    IoOperation& op = *parked_[i];
    int result = 0;
    if (could_complete(op) && attempt(op, result)) {
      parked_.erase(parked_.begin() + static_cast<std::ptrdiff_t>(i));
      done_.emplace_back(&op, result);
    } else {
      ++i;
    }
  }
  std::vector<std::pair<IoOperation*, int>> delivering;
  delivering.swap(done_);
  for (const auto& [op, result] : delivering) {
    record(*op, result);
    op->complete(result);  // may start or cancel operations: they land in parked_ and done_
  }
}

bool SimReactor::has_due_completions() const {
  return !done_.empty() ||
         std::any_of(parked_.begin(), parked_.end(), [&](const IoOperation* op) { return could_complete(*op); });
}

void SimReactor::cancel(IoOperation& op) noexcept {
  op.orphan();
  parked_.erase(std::remove(parked_.begin(), parked_.end(), &op), parked_.end());
  done_.erase(std::remove_if(done_.begin(), done_.end(), [&](const auto& entry) { return entry.first == &op; }),
              done_.end());
  op.complete(-ECANCELED);
}

void SimReactor::cancel_async(IoOperation& op) noexcept {
  const bool finished = std::any_of(done_.begin(), done_.end(), [&](const auto& entry) { return entry.first == &op; });
  if (finished) return;  // its real result is delivered instead
  parked_.erase(std::remove(parked_.begin(), parked_.end(), &op), parked_.end());
  done_.emplace_back(&op, -ECANCELED);
}

}  // namespace tiffany::sim
