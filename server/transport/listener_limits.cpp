// ListenerLimits: per-address counts under a lock, a listener's room on one worker.
#include "server/transport/listener_limits.hpp"

#include <netinet/in.h>

#include <cstring>
#include <random>

#include "conf/config.hpp"

namespace tiffany {
namespace {

PeerConnectionLimit::Address address_of(const sockaddr_storage& peer) {
  PeerConnectionLimit::Address address{};
  if (peer.ss_family == AF_INET6) {
    std::memcpy(address.data(), &reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr, 16);
  } else {
    address[10] = 0xff;
    address[11] = 0xff;
    std::memcpy(address.data() + 12, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, 4);
  }
  return address;
}

std::uint64_t mix(std::uint64_t value) noexcept {  // splitmix64's finaliser
  value ^= value >> 30;
  value *= 0xbf58476d1ce4e5b9ULL;
  value ^= value >> 27;
  value *= 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace

std::size_t PeerConnectionLimit::Hash::operator()(const Address& address) const noexcept {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  std::memcpy(&high, address.data(), 8);
  std::memcpy(&low, address.data() + 8, 8);
  return static_cast<std::size_t>(mix(mix(high ^ seed) ^ low));
}

PeerConnectionLimit::PeerConnectionLimit(std::size_t limit)
    : limit_(limit), open_(16, Hash{(std::uint64_t{std::random_device{}()} << 32) | std::random_device{}()}) {}

PeerConnectionLimit::Entry* PeerConnectionLimit::admit(const sockaddr_storage& peer) {
  const Address address = address_of(peer);
  std::lock_guard lock(mutex_);
  auto [at, added] = open_.try_emplace(address, 0);
  if (at->second >= limit_) return nullptr;
  ++at->second;
  return &*at;
}

bool PeerConnectionLimit::admit_again(Entry& entry) {
  std::lock_guard lock(mutex_);
  if (entry.second >= limit_) return false;
  ++entry.second;
  return true;
}

void PeerConnectionLimit::release(Entry& entry) noexcept {
  std::lock_guard lock(mutex_);
  if (--entry.second == 0) {
    const Address address = entry.first;  // a copy: erase() frees the entry holding the key
    open_.erase(address);
  }
}

std::size_t PeerConnectionLimit::addresses() const {
  std::lock_guard lock(mutex_);
  return open_.size();
}

PeerConnectionLimits build_peer_connection_limits(const Config& config) {
  PeerConnectionLimits limits;
  for (const ListenerConfig& listener : config.listeners) {
    const std::size_t per_ip = listener.connection_limits.max_connections_per_ip;
    limits.push_back(per_ip == 0 ? nullptr : std::make_unique<PeerConnectionLimit>(per_ip));
  }
  return limits;
}

Task<void> ListenerLimits::wait_for_room() {
  while (full()) {
    Future<void> freed = room_.emplace_back().future();
    co_await std::move(freed);
  }
}

void ListenerLimits::remove(PeerConnectionLimit::Entry* peer) noexcept {
  --size_;
  if (peer != nullptr) per_address_->release(*peer);
  for (Promise<void>& waiting : std::exchange(room_, {})) waiting.set_value();  // the loop re-checks
}

}  // namespace tiffany
