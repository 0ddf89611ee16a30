// Generation: what the server builds from one reading of the config — handlers and plugins, TLS
// contexts, listening sockets, the access log and the workers — so a reload can build the next beside it.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

#include "conf/config.hpp"
#include "server/build_tls_contexts.hpp"
#include "server/listen_socket.hpp"
#include "server/load_handlers.hpp"
#include "server/socket_offers.hpp"
#include "server/transport/listener_limits.hpp"
#include "server/worker.hpp"

namespace tiffany {

/// One configuration being served. The first is built at start-up; each
/// reload builds the next while this one serves on, then drains this one.
/// Main thread only (its workers run their own threads).
class Generation {
 public:
  /// Loads the plugins, builds the handlers and TLS contexts, checks every
  /// route and handler param, opens the access log and binds every
  /// listener. A listener takes the sockets of the first untaken offer on
  /// its configured address instead of binding (no connection is refused,
  /// none waiting in a backlog is lost; workers beyond the offer's sockets
  /// bind beside them, or share them when they lack SO_REUSEPORT or belong
  /// to another user). The
  /// others check first that no other socket listens on their address,
  /// unless they say share_port. Throws ConfigError naming the file and JSON
  /// path of the first problem.
  Generation(Config config, unsigned number, SocketOffers& offers);
  Generation(const Generation&) = delete;
  Generation& operator=(const Generation&) = delete;
  /// Ends the workers still running (stop, join), then stops the plugins.
  ~Generation();

  /// Starts the plugins (Plugin::start) and then the workers, each with its
  /// own descriptors of the listening sockets. Returns the I/O backend the
  /// workers chose. Throws std::runtime_error naming a plugin that would
  /// not start, or what a worker failed with.
  WorkerBackend start();
  /// Stop accepting, finish requests in flight (answered with Connection:
  /// close), close idle connections after `idle_grace`; see Worker::drain.
  /// Closes its descriptors of the listening sockets: take offer_sockets()
  /// before, or they stop listening. `handover`: another generation or
  /// binary holds the sockets on (a reload or an upgrade), not a shutdown.
  void drain(std::chrono::milliseconds idle_grace, Handover handover);
  /// After drain(): waits up to `limit` until no worker accepts any more.
  void wait_until_not_accepting(std::chrono::milliseconds limit) const;
  /// Ends every worker now, whatever is in flight.
  void stop();
  /// Have all the workers ended (drained, stopped or failed)?
  bool finished() const noexcept;
  std::size_t open_connections() const noexcept;
  /// Waits for every worker's thread, then stops the plugins.
  void join();

  unsigned number() const noexcept { return number_; }
  const Config& config() const noexcept { return config_; }
  /// [listener]: the address each listener really bound (its port when the config said 0).
  const std::vector<ListenAddress>& bound() const noexcept { return bound_; }
  /// Its listening sockets, duplicated, for the next generation to take.
  SocketOffers offer_sockets() const;
  /// [worker][listener]: its listening sockets (the workers hold duplicates).
  const std::vector<std::vector<ListenSocket>>& sockets() const noexcept { return sockets_; }
  /// The access log's descriptor, or -1.
  int access_log_fd() const noexcept { return access_log_file_ ? access_log_file_.get() : -1; }

 private:
  void bind_listeners(SocketOffers& offers);

  Config config_;
  unsigned number_;
  std::unique_ptr<LoadedHandlers> handlers_;
  TlsContexts tls_contexts_;                        // [listener], shared by the workers
  PeerConnectionLimits peer_limits_;                // [listener], shared by the workers
  UniqueFd access_log_file_;                        // when the log goes to a file
  std::vector<std::vector<ListenSocket>> sockets_;  // [worker][listener]; the workers get duplicates
  std::vector<ListenAddress> bound_;                // [listener]
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace tiffany
