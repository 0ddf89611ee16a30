// PubSubBus: the process's pub/sub channels across workers: each worker's hub, and how a message reaches the others.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tiffany/coro/remote_queue.hpp>

namespace tiffany::pubsub {

class WorkerHub;

/// What every worker's hub of one bus shares: a message published on one
/// worker is handed to every other through its scheduler's RemoteQueue (the
/// reactor's eventfd wakes it), and delivered there to that worker's
/// subscribers. The text is built once and shared, never copied per worker.
/// Thread-safe.
class PubSubBus {
 public:
  /// The process's bus named `name` (made on first use; kept while a hub holds it).
  static std::shared_ptr<PubSubBus> named(const std::string& name);

  /// `hub`, on the worker whose scheduler owns `queue`, hears of what other workers publish.
  void join(const std::shared_ptr<WorkerHub>& hub, std::shared_ptr<RemoteQueue> queue);
  void leave(const WorkerHub* hub);
  /// Hands `text` for `channel` to every hub but `from`, each on its own worker.
  void forward(const WorkerHub* from, const std::string& channel, const std::shared_ptr<const std::string>& text);

 private:
  struct Member {
    const WorkerHub* hub;
    std::weak_ptr<WorkerHub> alive;
    std::shared_ptr<RemoteQueue> queue;
  };
  std::mutex mutex_;
  std::vector<Member> members_;
};

}  // namespace tiffany::pubsub
