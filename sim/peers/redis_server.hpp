// SimRedis: a Redis on the simulated network, with the pub/sub that Tiffany's link uses.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/task.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "sim/world.hpp"

namespace tiffany::sim {

/// A Redis server as a peer of the simulation: RESP2 over simulated sockets,
/// answering what pub/sub's link sends (PING, AUTH, SUBSCRIBE, UNSUBSCRIBE,
/// PUBLISH) as Redis does, subscriptions shared by all its connections
/// (a PUBLISH reaches every connection subscribed to the channel, in order).
/// It listens on `address` once built and serves on a host of its own;
/// stop() it and let the world run before destroying it.
class SimRedis {
 public:
  SimRedis(World& world, const std::string& address);
  SimRedis(const SimRedis&) = delete;
  SimRedis& operator=(const SimRedis&) = delete;

  /// Cancels its tasks (the accept loop and every connection's), which then
  /// close their sockets as they unwind: run the world until they have.
  void stop() noexcept;
  /// Its tasks have all ended.
  bool stopped() const noexcept { return !serving_ && clients_.empty(); }
  /// Closes every connection, as a restarted Redis would have (it keeps
  /// listening): its clients must connect and subscribe again.
  void drop_connections() noexcept;
  /// Since the last drop, as many connections and subscriptions are back.
  bool recovered() const noexcept;

  std::size_t connections() const noexcept { return clients_.size(); }
  std::uint64_t published() const noexcept { return published_; }

 private:
  struct Client;
  Task<void> serve();
  Task<void> serve_client(std::shared_ptr<Client> client);
  static Task<void> write_client(std::shared_ptr<Client> client);
  void answer(Client& client, const std::vector<std::string>& command);
  void publish(const std::string& channel, const std::string& message, Client& publisher);

  World& world_;
  Host& host_;
  UniqueFd listener_;
  JoinHandle<void> accepting_;
  bool serving_ = true;
  std::list<std::shared_ptr<Client>> clients_;
  // Why keyed by the connection's number, never its address: iteration
  // order is delivery and cancellation order, and must be the seed's alone.
  std::map<std::uint64_t, std::pair<JoinHandle<void>, JoinHandle<void>>> tasks_;  // a client's reader and writer
  std::map<std::string, std::map<std::uint64_t, Client*>> subscribers_;           // by channel
  std::uint64_t accepted_ = 0;
  std::uint64_t published_ = 0;
  // The last drop: what was open then, and what has come back since.
  std::size_t connections_dropped_ = 0;
  std::map<std::string, std::size_t> subscriptions_dropped_;  // by channel
  std::size_t accepted_since_drop_ = 0;
  std::map<std::string, std::size_t> subscribed_since_drop_;  // by channel
};

}  // namespace tiffany::sim
