// AresChannel: c-ares on the reactor (socket watching, timeouts, answers) and the cache in front of it.
#include "net/internal/ares_channel.hpp"

#include <netdb.h>
#include <sys/epoll.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/promise.hpp>
#include <tiffany/reactor/readiness.hpp>

namespace tiffany::detail {
namespace {

constexpr std::chrono::milliseconds kIdleWake{1000};  // when c-ares names no timeout

void initialise_library() {
  static std::once_flag once;
  std::call_once(once, [] { ares_library_init(ARES_LIB_INIT_ALL); });
}

bool host_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/// Why a name cannot be one (RFC 1035 lengths, letters, digits, '-', '_'), or empty.
std::string bad_name_reason(std::string_view host) {
  if (host.empty()) return "the name is empty";
  if (host.ends_with('.')) host.remove_suffix(1);
  if (host.size() > 253) return "the name is longer than 253 characters";
  std::size_t label = 0;
  for (const char c : host) {
    if (c == '.') {
      if (label == 0) return "the name has an empty label";
      label = 0;
    } else if (!host_character(c)) {
      return "the name has a character that is not a letter, digit, '-' or '_'";
    } else if (++label > 63) {
      return "a label is longer than 63 characters";
    }
  }
  if (label == 0) return "the name has an empty label";
  return {};
}

ResolveErrorKind kind_of(int status) {
  switch (status) {
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
    case ARES_ENONAME:
      return ResolveErrorKind::not_found;
    case ARES_ETIMEOUT:
      return ResolveErrorKind::timeout;
    case ARES_ESERVFAIL:
    case ARES_EREFUSED:
    case ARES_ECONNREFUSED:
    case ARES_EFORMERR:
    case ARES_ENOTIMP:
    case ARES_EBADRESP:
    case ARES_EOF:
      return ResolveErrorKind::server_failure;
    case ARES_EBADNAME:
      return ResolveErrorKind::bad_name;
    default:
      return ResolveErrorKind::other;
  }
}

ResolveError error_for(const std::string& host, ResolveErrorKind kind, std::string_view why) {
  return ResolveError{kind, "resolving \"" + host + "\": " + std::string(why)};
}

Task<IoResult> wait_readable(int fd) { co_return co_await ReadWait{fd}; }

}  // namespace

struct AresChannel::Lookup {
  AresChannel* channel;
  std::string host;  // as asked, for messages
  std::string key;   // the cache's
  Promise<ResolveResult> answer;
};

AresChannel::AresChannel(ResolverOptions options) : options_(std::move(options)), cache_(options_.max_cached) {
  initialise_library();
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_) throw std::system_error(errno, std::generic_category(), "resolver: epoll_create1");
  ares_options settings{};
  settings.sock_state_cb = &AresChannel::on_socket_state;
  settings.sock_state_cb_data = this;
  settings.timeout = static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(
      options_.attempt_timeout.count(), 1, INT_MAX));
  settings.tries = std::max(options_.tries, 1);
  char lookups[] = "fb";  // /etc/hosts, then DNS
  settings.lookups = lookups;
  const int mask = ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_LOOKUPS;
  if (const int status = ares_init_options(&channel_, &settings, mask); status != ARES_SUCCESS) {
    throw std::runtime_error(std::string("resolver: c-ares would not start: ") + ares_strerror(status));
  }
  if (!options_.servers.empty()) {
    std::string csv;
    for (const std::string& server : options_.servers) csv += (csv.empty() ? "" : ",") + server;
    if (const int status = ares_set_servers_ports_csv(channel_, csv.c_str()); status != ARES_SUCCESS) {
      ares_destroy(channel_);
      throw std::runtime_error("resolver: bad name server list \"" + csv + "\" (expected ip or ip:port, [ipv6]:port): " +
                               ares_strerror(status));
    }
  }
}

AresChannel::~AresChannel() {
  // Why: answers every lookup still pending with ARES_EDESTRUCTION; their
  // callbacks see it and touch nothing but their own Lookup.
  ares_destroy(channel_);
}

ResolveCache::TimePoint AresChannel::now() const {
  return options_.clock ? options_.clock() : Scheduler::current().now();
}

Task<ResolveResult> AresChannel::resolve(std::shared_ptr<AresChannel> self, std::string host) {
  if (auto numeric = SocketAddress::from_numeric(host)) co_return ResolveResult(std::vector<SocketAddress>{*numeric});
  if (const std::string why = bad_name_reason(host); !why.empty()) {
    co_return error_for(host, ResolveErrorKind::bad_name, why);
  }
  std::string key = ResolveCache::key(host);
  if (const ResolveResult* cached = self->cache_.find(key, self->now())) co_return *cached;
  if (auto asked = self->in_flight_.find(key); asked != self->in_flight_.end()) {
    SharedFuture<ResolveResult> same = asked->second;  // a copy: the entry goes when the answer comes
    co_return co_await same;
  }

  auto* lookup = new Lookup{self.get(), host, key, {}};
  SharedFuture<ResolveResult> answer = lookup->answer.future().share();
  self->in_flight_.emplace(std::move(key), answer);
  ares_addrinfo_hints hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  ++self->pending_;
  // Why the callback owns `lookup`: c-ares always calls it exactly once (an
  // answer, a failure, or ARES_EDESTRUCTION), perhaps before this returns
  // (/etc/hosts), and perhaps after this task is gone (it was canceled).
  ares_getaddrinfo(self->channel_, host.c_str(), nullptr, &hints, &AresChannel::on_answer, lookup);
  if (self->pending_ > 0 && !self->driving_) {
    Scheduler::current().spawn(drive(DriverMark(self)));  // detached: it ends when no lookup is pending
  }
  co_return co_await answer;
}

void AresChannel::on_answer(void* argument, int status, int /*timeouts*/, ares_addrinfo* result) {
  std::unique_ptr<Lookup> lookup(static_cast<Lookup*>(argument));
  if (status == ARES_EDESTRUCTION) {  // the channel is going: touch nothing of it
    lookup->answer.set_value(error_for(lookup->host, ResolveErrorKind::other, "the resolver was shut down"));
    return;
  }
  AresChannel& channel = *lookup->channel;
  --channel.pending_;
  channel.in_flight_.erase(lookup->key);
  if (status != ARES_SUCCESS || result == nullptr || result->nodes == nullptr) {
    if (result != nullptr) ares_freeaddrinfo(result);
    if (status == ARES_SUCCESS) status = ARES_ENODATA;
    ResolveResult failed(error_for(lookup->host, kind_of(status), ares_strerror(status)));
    if (kind_of(status) == ResolveErrorKind::not_found) {
      channel.remember(lookup->key, failed, static_cast<int>(channel.options_.negative_ttl.count()));
    }
    lookup->answer.set_value(std::move(failed));
    return;
  }
  std::vector<SocketAddress> addresses;
  int ttl = INT_MAX;
  for (const ares_addrinfo_node* node = result->nodes; node != nullptr; node = node->ai_next) {
    SocketAddress address(node->ai_addr, node->ai_addrlen);
    if (address.empty()) continue;
    address.set_port(0);
    if (std::find(addresses.begin(), addresses.end(), address) != addresses.end()) continue;
    addresses.push_back(address);
    ttl = std::min(ttl, node->ai_ttl);
  }
  ares_freeaddrinfo(result);
  if (addresses.empty()) {
    lookup->answer.set_value(error_for(lookup->host, ResolveErrorKind::not_found, "no IPv4 or IPv6 address"));
    return;
  }
  ResolveResult found(std::move(addresses));
  channel.remember(lookup->key, found, ttl);
  lookup->answer.set_value(std::move(found));
}

void AresChannel::remember(const std::string& key, const ResolveResult& result, int ttl_seconds) {
  const auto ttl = std::min(std::chrono::seconds(std::max(ttl_seconds, 0)), options_.max_ttl);
  if (ttl.count() <= 0) return;
  const auto time = now();
  cache_.store(key, result, time + ttl, time);
}

void AresChannel::on_socket_state(void* self, ares_socket_t fd, int readable, int writable) {
  const int epoll_fd = static_cast<AresChannel*>(self)->epoll_.get();
  if (!readable && !writable) {  // c-ares is about to close it
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    return;
  }
  epoll_event event{};
  event.events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u);
  event.data.fd = fd;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event) != 0 && errno == ENOENT) {
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
  }
}

std::chrono::nanoseconds AresChannel::next_timeout() {
  timeval room{};
  const timeval* next = ares_timeout(channel_, nullptr, &room);
  if (next == nullptr) return kIdleWake;
  const auto wait = std::chrono::seconds(next->tv_sec) + std::chrono::microseconds(next->tv_usec);
  return std::max<std::chrono::nanoseconds>(wait, std::chrono::milliseconds(1));
}

void AresChannel::process_ready() {
  epoll_event events[16];
  const int ready = ::epoll_wait(epoll_.get(), events, 16, 0);
  if (ready <= 0) {
    ares_process_fd(channel_, ARES_SOCKET_BAD, ARES_SOCKET_BAD);  // timeouts only
    return;
  }
  for (int i = 0; i < ready; ++i) {
    const int fd = events[i].data.fd;
    const bool in = (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0;
    const bool out = (events[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0;
    ares_process_fd(channel_, in ? fd : ARES_SOCKET_BAD, out ? fd : ARES_SOCKET_BAD);
  }
}

AresChannel::DriverMark::DriverMark(std::shared_ptr<AresChannel> channel) noexcept : channel_(std::move(channel)) {
  channel_->driving_ = true;
}

AresChannel::DriverMark::~DriverMark() {
  if (channel_) channel_->driving_ = false;  // a moved-from mark holds nothing
}

Task<void> AresChannel::drive(DriverMark mark) {
  AresChannel* const self = &mark.channel();  // alive as long as `mark`, the frame's
  while (self->pending_ > 0) {
    {
      Deadline deadline = Deadline::after(self->next_timeout());
      const Timed<IoResult> ready = co_await deadline.guard(wait_readable(self->epoll_.get()));
      (void)ready;  // ready or timed out: c-ares tells which lookups can move
    }
    self->process_ready();
  }
}

}  // namespace tiffany::detail
