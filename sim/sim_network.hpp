// SimNetwork: an in-process TCP network on virtual time, every delay and cut drawn from the seed.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/socket.h>

#include <tiffany/coro/manual_clock.hpp>

#include "sim/seeded_random.hpp"

namespace tiffany::sim {

/// How the network behaves; every range is drawn from per segment or per call.
struct NetworkProfile {
  std::chrono::nanoseconds min_latency{std::chrono::microseconds(20)};
  std::chrono::nanoseconds max_latency{std::chrono::milliseconds(2)};
  /// A send's bytes travel in segments of 1..max_segment bytes, cut where
  /// the seed says: the receiver sees short reads at any byte.
  std::size_t max_segment = 16 * 1024;
  /// How often a send takes only a prefix of what it was offered (a short write).
  std::uint32_t short_write_per_million = 200'000;
  /// Bytes sent and not yet read, per direction, past which sends stall
  /// (-EAGAIN): a peer that stops reading fills the sender's buffers.
  std::size_t window = 64 * 1024;
};

/// Connected stream sockets between simulated hosts, named by descriptor
/// numbers from kFirstFd up (never reused, and far above any real one, so a
/// stray system call on one fails with EBADF instead of touching a real
/// file). Each call answers as a non-blocking socket call would answer now,
/// in virtual time: results are byte counts or -errno.
///
/// Ordering: each direction delivers in order; segments arrive at seeded
/// times, never before an earlier one. A close with unread input, a reset,
/// or bytes sent to a closed socket produce an RST, as Linux does; an RST
/// drops what the receiver had not read.
class SimNetwork {
 public:
  using time_point = ManualClock::time_point;
  static constexpr int kFirstFd = 1 << 24;

  SimNetwork(const ManualClock& clock, SeededRandom& random, NetworkProfile profile = {}) noexcept
      : clock_(clock), random_(random), profile_(profile) {}

  const NetworkProfile& profile() const noexcept { return profile_; }

  /// Two connected sockets (as socketpair(2), but with the network's latency).
  std::pair<int, int> socket_pair();
  bool owns(int fd) const noexcept { return fd >= kFirstFd; }

  /// A listening socket at `address` ("10.0.0.1:80"), taking up to `backlog`
  /// connections that wait to be accepted. Several may listen on one address
  /// (SO_REUSEPORT, one per worker): each connection goes to one of them,
  /// drawn from the seed.
  int listen(const std::string& address, std::size_t backlog = 128);
  /// A stream socket, not yet connected (socket(2)).
  int socket();
  /// Begins connecting `fd` to `address`: the handshake takes a round trip;
  /// then connect_result() is 0, or -ECONNREFUSED where nothing listens. A
  /// full backlog drops the SYN: the connect never completes (a client's
  /// timeout must end it), as a SYN flood's victims see. `from` names the
  /// client's address in what accept() reports ("10.0.1.1").
  int connect(int fd, const std::string& address, const std::string& from = "10.0.1.1");
  /// -EINPROGRESS until the handshake is done, then its result.
  int connect_result(int fd) const;
  /// accept4(2) without waiting: a connected socket from the backlog whose
  /// handshake has arrived, or -EAGAIN; `peer` gets the client's address.
  int accept(int listen_fd, sockaddr* peer, socklen_t* peer_length);

  /// recv(2) with MSG_DONTWAIT (MSG_PEEK honoured): bytes, 0 at the peer's
  /// FIN, -EAGAIN, -ECONNRESET (once, then 0), -EBADF.
  long recv(int fd, char* into, std::size_t size, int flags);
  /// send(2) with MSG_DONTWAIT: bytes taken (maybe fewer than offered),
  /// -EAGAIN when the window is full, -EPIPE after a shutdown or an RST, -EBADF.
  long send(int fd, const char* data, std::size_t size);
  /// poll(2)'s revents now: POLLIN, POLLOUT, POLLRDHUP, POLLHUP, POLLERR; POLLNVAL for an unknown fd.
  std::uint32_t readiness(int fd) const;
  /// shutdown(SHUT_WR): a FIN after the bytes already sent. 0 or -EBADF.
  int shutdown_write(int fd);
  /// close(2): a FIN (an RST if input was left unread); the number is dead after.
  int close(int fd);
  /// An abortive close (SO_LINGER 0): an RST now, unsent nothing.
  int reset(int fd);

  /// When the next segment not yet due arrives, if any: the driver moves
  /// virtual time there when every host waits.
  std::optional<time_point> next_arrival() const;
  /// Sockets (listeners too) not yet closed.
  std::size_t open_sockets() const noexcept { return sockets_.size() + listeners_.size(); }

 private:
  struct Segment {
    enum class Kind : std::uint8_t { data, fin, rst };
    time_point arrives;
    Kind kind;
    std::string bytes;
  };
  struct Socket {
    int peer = -1;
    std::deque<Segment> inbound;  // what the peer sent, in arrival order
    std::size_t front_read = 0;   // bytes of inbound's front data segment already read
    std::size_t unread = 0;       // bytes in inbound not yet read (the peer's window use)
    time_point last_arrival{};    // of inbound's newest segment: later ones never overtake it
    bool write_shut = false;
    bool reset_reported = false;  // an RST was seen by recv: from then on, end of stream
    // Set up by connect: done (0 or -errno) from `connected_at`; a dropped SYN never is.
    std::optional<time_point> connected_at;
    int connect_error = 0;
    bool connecting = false;
    std::string peer_address;  // "ip:port" of the other end, for accept
  };
  struct Pending {  // a connection in a listener's backlog
    time_point arrives;
    int fd;
  };
  struct Listener {
    std::string address;
    std::size_t backlog;
    std::deque<Pending> queue;
  };

  Socket* find(int fd) noexcept;
  const Socket* find(int fd) const noexcept;
  bool due(const Segment& segment) const noexcept { return segment.arrives <= clock_.now(); }
  std::chrono::nanoseconds latency();
  /// The due RST in `socket`'s input, if any (it overtakes nothing: it is checked first).
  bool reset_due(const Socket& socket) const noexcept;
  bool fin_due(const Socket& socket) const noexcept;
  bool data_due(const Socket& socket) const noexcept;
  /// Queues a segment into `to`'s input, arriving after the network's latency.
  void deliver(Socket& to, Segment::Kind kind, std::string bytes = {});
  time_point arrival_after_latency(const Socket& to);

  const ManualClock& clock_;
  SeededRandom& random_;
  NetworkProfile profile_;
  std::unordered_map<int, Socket> sockets_;
  std::unordered_map<int, Listener> listeners_;
  std::map<std::string, std::vector<int>> listening_at_;  // address → its listeners' fds
  int next_fd_ = kFirstFd;
  int next_port_ = 40000;
};

}  // namespace tiffany::sim
