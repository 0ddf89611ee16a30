// SimNetwork: segments with seeded arrival times, per-direction windows, FIN and RST.
#include "sim/sim_network.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tiffany::sim {

std::pair<int, int> SimNetwork::socket_pair() {
  const int a = next_fd_++;
  const int b = next_fd_++;
  sockets_[a].peer = b;
  sockets_[b].peer = a;
  return {a, b};
}

SimNetwork::Socket* SimNetwork::find(int fd) noexcept {
  const auto it = sockets_.find(fd);
  return it == sockets_.end() ? nullptr : &it->second;
}

const SimNetwork::Socket* SimNetwork::find(int fd) const noexcept {
  const auto it = sockets_.find(fd);
  return it == sockets_.end() ? nullptr : &it->second;
}

bool SimNetwork::reset_due(const Socket& socket) const noexcept {
  return std::any_of(socket.inbound.begin(), socket.inbound.end(),
                     [&](const Segment& s) { return s.kind == Segment::Kind::rst && due(s); });
}

bool SimNetwork::fin_due(const Socket& socket) const noexcept {
  return std::any_of(socket.inbound.begin(), socket.inbound.end(),
                     [&](const Segment& s) { return s.kind == Segment::Kind::fin && due(s); });
}

bool SimNetwork::data_due(const Socket& socket) const noexcept {
  return !socket.inbound.empty() && socket.inbound.front().kind == Segment::Kind::data && due(socket.inbound.front());
}

std::chrono::nanoseconds SimNetwork::latency() {
  const auto spread = static_cast<std::uint64_t>((profile_.max_latency - profile_.min_latency).count());
  return profile_.min_latency + std::chrono::nanoseconds(random_.below(spread + 1));
}

SimNetwork::time_point SimNetwork::arrival_after_latency(const Socket& to) {
  return std::max(to.last_arrival, clock_.now() + latency());
}

int SimNetwork::listen(const std::string& address, std::size_t backlog) {
  const int fd = next_fd_++;
  listeners_[fd] = Listener{.address = address, .backlog = backlog, .queue = {}};
  listening_at_[address].push_back(fd);
  return fd;
}

int SimNetwork::socket() {
  const int fd = next_fd_++;
  sockets_[fd].peer = -1;
  return fd;
}

int SimNetwork::connect(int fd, const std::string& address, const std::string& from) {
  Socket* socket = find(fd);
  if (socket == nullptr) return -EBADF;
  if (socket->connecting || socket->peer >= 0) return -EISCONN;
  socket->connecting = true;
  const time_point syn_arrives = clock_.now() + latency();
  const auto listening = listening_at_.find(address);
  if (listening == listening_at_.end()) {
    socket->connected_at = syn_arrives + latency();  // the RST comes back
    socket->connect_error = -ECONNREFUSED;
    return 0;
  }
  const std::vector<int>& group = listening->second;
  Listener& listener = listeners_.at(group[random_.below(group.size())]);
  if (listener.queue.size() >= listener.backlog) return 0;  // the SYN is dropped: never connected
  const int server_fd = next_fd_++;
  Socket& server = sockets_[server_fd];
  server.peer = fd;
  server.peer_address = from + ":" + std::to_string(next_port_++);
  socket = find(fd);  // the map may have moved it
  socket->peer = server_fd;
  socket->peer_address = address;
  socket->connected_at = syn_arrives + latency();
  // Why both ends' arrivals start at the handshake: nothing either sends
  // can arrive before the connection exists.
  socket->last_arrival = *socket->connected_at;
  server.last_arrival = syn_arrives;
  listener.queue.push_back(Pending{.arrives = syn_arrives, .fd = server_fd});
  return 0;
}

int SimNetwork::connect_result(int fd) const {
  const Socket* socket = find(fd);
  if (socket == nullptr) return -EBADF;
  if (!socket->connected_at || *socket->connected_at > clock_.now()) return -EINPROGRESS;
  return socket->connect_error;
}

int SimNetwork::accept(int listen_fd, sockaddr* peer, socklen_t* peer_length) {
  const auto it = listeners_.find(listen_fd);
  if (it == listeners_.end()) return find(listen_fd) != nullptr ? -EINVAL : -EBADF;
  std::deque<Pending>& queue = it->second.queue;
  if (queue.empty() || queue.front().arrives > clock_.now()) return -EAGAIN;
  const int fd = queue.front().fd;
  queue.pop_front();
  if (peer != nullptr && peer_length != nullptr) {
    const Socket& socket = sockets_.at(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    const std::size_t colon = socket.peer_address.rfind(':');
    inet_pton(AF_INET, socket.peer_address.substr(0, colon).c_str(), &address.sin_addr);
    address.sin_port = htons(static_cast<std::uint16_t>(std::stoi(socket.peer_address.substr(colon + 1))));
    std::memcpy(peer, &address, std::min<std::size_t>(*peer_length, sizeof address));
    *peer_length = sizeof address;
  }
  return fd;
}

void SimNetwork::deliver(Socket& to, Segment::Kind kind, std::string bytes) {
  const time_point arrives = arrival_after_latency(to);
  to.last_arrival = arrives;
  to.inbound.push_back(Segment{.arrives = arrives, .kind = kind, .bytes = std::move(bytes)});
}

long SimNetwork::recv(int fd, char* into, std::size_t size, int flags) {
  Socket* socket = find(fd);
  if (socket == nullptr) return listeners_.contains(fd) ? -ENOTCONN : -EBADF;
  if (socket->peer < 0) return socket->connect_error != 0 ? socket->connect_error : -ENOTCONN;
  if (socket->reset_reported) return 0;
  if (reset_due(*socket)) {
    socket->inbound.clear();
    socket->front_read = 0;
    socket->unread = 0;
    socket->reset_reported = true;
    return -ECONNRESET;
  }
  const bool peek = (flags & MSG_PEEK) != 0;
  std::size_t copied = 0;
  std::size_t front_read = socket->front_read;
  for (auto it = socket->inbound.begin(); it != socket->inbound.end() && copied < size && due(*it); ++it) {
    if (it->kind != Segment::Kind::data) break;
    const std::size_t take = std::min(size - copied, it->bytes.size() - front_read);
    std::memcpy(into + copied, it->bytes.data() + front_read, take);
    copied += take;
    front_read = take == it->bytes.size() - front_read ? 0 : front_read + take;
    if (front_read != 0) break;  // this segment still has bytes: the buffer is full
  }
  if (copied == 0) {
    if (fin_due(*socket) && !data_due(*socket)) return 0;
    return -EAGAIN;
  }
  if (!peek) {
    std::size_t left = copied;
    while (left > 0) {  // drop what was read: whole segments, then part of the front one
      Segment& front = socket->inbound.front();
      const std::size_t in_front = front.bytes.size() - socket->front_read;
      if (left >= in_front) {
        left -= in_front;
        socket->front_read = 0;
        socket->inbound.pop_front();
      } else {
        socket->front_read += left;
        left = 0;
      }
    }
    socket->unread -= copied;
  }
  return static_cast<long>(copied);
}

long SimNetwork::send(int fd, const char* data, std::size_t size) {
  Socket* socket = find(fd);
  if (socket == nullptr) return listeners_.contains(fd) ? -ENOTCONN : -EBADF;
  if (socket->peer < 0) return socket->connect_error != 0 ? -EPIPE : -ENOTCONN;
  if (socket->write_shut || socket->reset_reported || reset_due(*socket)) return -EPIPE;
  Socket* peer = find(socket->peer);
  if (peer == nullptr) {
    // Why an RST: bytes reaching a closed socket are refused, and the sender
    // learns it from the reset (a first send succeeds, later ones fail).
    if (!std::any_of(socket->inbound.begin(), socket->inbound.end(),
                     [](const Segment& s) { return s.kind == Segment::Kind::rst; })) {
      deliver(*socket, Segment::Kind::rst);
    }
    return static_cast<long>(size);
  }
  const std::size_t room = profile_.window - std::min(profile_.window, peer->unread);
  if (size == 0) return 0;
  if (room == 0) return -EAGAIN;
  std::size_t taken = std::min(size, room);
  if (taken > 1 && random_.chance(profile_.short_write_per_million)) taken = random_.between(1, taken);
  for (std::size_t sent = 0; sent < taken;) {
    const std::size_t piece = std::min<std::size_t>(taken - sent, random_.between(1, profile_.max_segment));
    deliver(*peer, Segment::Kind::data, std::string(data + sent, piece));
    sent += piece;
  }
  peer->unread += taken;
  return static_cast<long>(taken);
}

std::uint32_t SimNetwork::readiness(int fd) const {
  if (const auto listener = listeners_.find(fd); listener != listeners_.end()) {
    const std::deque<Pending>& queue = listener->second.queue;
    return !queue.empty() && queue.front().arrives <= clock_.now() ? POLLIN : 0;
  }
  const Socket* socket = find(fd);
  if (socket == nullptr) return POLLNVAL;
  if (socket->connecting && connect_result(fd) == -EINPROGRESS) return 0;
  if (socket->connecting && socket->connect_error != 0) return POLLOUT | POLLERR | POLLHUP;
  if (socket->peer < 0 && !socket->connecting) return POLLOUT | POLLHUP;  // never connected
  if (socket->reset_reported) return POLLIN | POLLOUT | POLLHUP | POLLRDHUP;
  if (reset_due(*socket)) return POLLIN | POLLOUT | POLLERR | POLLHUP | POLLRDHUP;
  std::uint32_t events = 0;
  if (data_due(*socket)) events |= POLLIN;
  if (fin_due(*socket)) events |= POLLIN | POLLRDHUP;
  const Socket* peer = find(socket->peer);
  const bool room = peer == nullptr || peer->unread < profile_.window;
  if (room && !socket->write_shut) events |= POLLOUT;
  if (socket->write_shut && fin_due(*socket)) events |= POLLHUP;  // both directions shut
  return events;
}

int SimNetwork::shutdown_write(int fd) {
  Socket* socket = find(fd);
  if (socket == nullptr) return -EBADF;
  if (socket->write_shut) return 0;
  socket->write_shut = true;
  if (Socket* peer = find(socket->peer)) deliver(*peer, Segment::Kind::fin);
  return 0;
}

int SimNetwork::close(int fd) {
  if (const auto listener = listeners_.find(fd); listener != listeners_.end()) {
    // Why resets: the kernel resets the connections still queued on a listener that closes.
    for (const Pending& pending : listener->second.queue) reset(pending.fd);
    std::vector<int>& group = listening_at_[listener->second.address];
    group.erase(std::remove(group.begin(), group.end(), fd), group.end());
    if (group.empty()) listening_at_.erase(listener->second.address);
    listeners_.erase(listener);
    return 0;
  }
  Socket* socket = find(fd);
  if (socket == nullptr) return -EBADF;
  // Why an RST for unread input (Linux, RFC 2525 §2.17): the peer must not
  // take a close that lost its bytes for an orderly end.
  const bool unread = socket->unread > 0 && !socket->reset_reported;
  if (Socket* peer = find(socket->peer)) {
    if (unread) {
      deliver(*peer, Segment::Kind::rst);
    } else if (!socket->write_shut) {
      deliver(*peer, Segment::Kind::fin);
    }
  }
  sockets_.erase(fd);
  return 0;
}

int SimNetwork::reset(int fd) {
  Socket* socket = find(fd);
  if (socket == nullptr) return -EBADF;
  if (Socket* peer = find(socket->peer)) deliver(*peer, Segment::Kind::rst);
  sockets_.erase(fd);
  return 0;
}

std::optional<SimNetwork::time_point> SimNetwork::next_arrival() const {
  std::optional<time_point> next;
  const time_point now = clock_.now();
  const auto consider = [&](time_point at) {
    if (at > now && (!next || at < *next)) next = at;
  };
  for (const auto& [fd, listener] : listeners_) {
    for (const Pending& pending : listener.queue) consider(pending.arrives);
  }
  for (const auto& [fd, socket] : sockets_) {
    if (socket.connected_at) consider(*socket.connected_at);
    for (const Segment& segment : socket.inbound) {
      if (segment.arrives > now && (!next || segment.arrives < *next)) next = segment.arrives;
      if (segment.arrives > now) break;  // arrivals are in order: the first future one is this socket's earliest
    }
  }
  return next;
}

}  // namespace tiffany::sim
