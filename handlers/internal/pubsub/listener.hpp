// Listener: what a worker's hub delivers to (a pub/sub WebSocket client, an SDK Subscription).
#pragma once

#include <string>

#include <tiffany/handlers/pubsub.hpp>

namespace tiffany::pubsub {

/// One subscriber as a WorkerHub sees it. Called on the hub's worker.
class Listener {
 public:
  /// A message on one of its channels.
  virtual void offer(const Message& message) = 0;
  /// Redis has confirmed `channel`, which subscribe() had not (see WorkerHub::subscribe).
  virtual void confirmed(const std::string& channel) = 0;

 protected:
  ~Listener() = default;
};

}  // namespace tiffany::pubsub
