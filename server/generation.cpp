// Generation: build (handlers, TLS, checks, sockets), start, drain and end one configuration.
#include "server/generation.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "conf/config_error.hpp"
#include "server/build_protocols.hpp"

namespace tiffany {
namespace {

// Opens the access log's destination; throws ConfigError naming its JSON path.
UniqueFd open_access_log(const Config& config) {
  if (config.access_log.path == "-") return UniqueFd(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0));
  UniqueFd fd(::open(config.access_log.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) {
    throw ConfigError(config.file, config.access_log.json_path + ".path",
                      "cannot open \"" + config.access_log.path + "\" for appending: " + std::strerror(errno));
  }
  return fd;
}

// A second descriptor of the same listening socket.
ListenSocket duplicate(const ListenSocket& socket) {
  UniqueFd fd(::fcntl(socket.fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!fd) throw std::system_error(errno, std::system_category(), "dup");
  return ListenSocket{std::move(fd), socket.bound};
}

}  // namespace

Generation::Generation(Config config, unsigned number, SocketOffers& offers)
    : config_(std::move(config)), number_(number) {
  if (config_.workers == 0) config_.workers = std::max(1u, std::thread::hardware_concurrency());
  handlers_ = load_handlers(config_);
  tls_contexts_ = build_tls_contexts(config_);           // certificates and keys are read here
  peer_limits_ = build_peer_connection_limits(config_);  // per-address counts, shared by the workers
  // Every route and handler param is checked before binding.
  (void)build_protocols(config_, handlers_->registry, handlers_->builtins_checking, tls_contexts_);
  if (config_.access_log.enabled) access_log_file_ = open_access_log(config_);
  bind_listeners(offers);
}

void Generation::bind_listeners(SocketOffers& offers) {
  const std::size_t workers = config_.workers;
  sockets_.resize(workers);
  for (const ListenerConfig& listener : config_.listeners) {
    SocketOffer* offer = nullptr;
    for (SocketOffer& candidate : offers) {
      if (!candidate.taken && candidate.address.same_endpoint(listener.address)) {
        offer = &candidate;
        offer->taken = true;
        break;
      }
    }
    ListenAddress address = listener.address;
    bool probing = offer == nullptr && !listener.share_port;
    try {
      if (offer != nullptr) address = offer->sockets.front().bound;
      if (probing) address = probe_unshared_address(address);  // port 0: the port the kernel chose
      probing = false;
      bool bind_beside = offer == nullptr || reuses_port(offer->sockets.front().fd.get());
      for (std::size_t w = 0; w < workers; ++w) {
        // Why take, not bind anew: a socket closed with its old owner would
        // reset the connections waiting in its backlog.
        if (offer != nullptr && w < offer->sockets.size()) {
          sockets_[w].push_back(std::move(offer->sockets[w]));
          continue;
        }
        if (bind_beside) {
          try {
            sockets_[w].push_back(open_listen_socket(address));
            address.port = sockets_[w].back().bound.port;  // port 0: the others join the port the first got
            continue;
          } catch (const std::system_error& e) {
            // Why: the kernel lets a socket join a SO_REUSEPORT group only
            // under the same user, and systemd's socket (ReusePort=) is root's.
            if (offer == nullptr || e.code() != std::errc::address_in_use) throw;
            bind_beside = false;
          }
        }
        // e.g. systemd's one socket: the workers beyond the offered sockets share them
        sockets_[w].push_back(duplicate(sockets_[w % offer->sockets.size()].back()));
      }
    } catch (const std::system_error& e) {
      std::string message =
          "listener \"" + listener.name + "\" cannot listen on " + listener.address.to_string() + ": " + e.what();
      if (probing && e.code() == std::errc::address_in_use) {
        message += " (another socket listens there; servers meant to share a port set \"share_port\": true)";
      }
      throw ConfigError(config_.file, listener.json_path + ".address", message);
    }
    bound_.push_back(address);
  }
}

SocketOffers Generation::offer_sockets() const {
  SocketOffers offers;
  for (std::size_t i = 0; i < config_.listeners.size(); ++i) {
    SocketOffer& offer = offers.emplace_back();
    offer.address = config_.listeners[i].address;  // as configured: port 0 finds its own socket again
    for (const auto& worker : sockets_) offer.sockets.push_back(duplicate(worker[i]));
  }
  return offers;
}

Generation::~Generation() {
  stop();
  join();
}

WorkerBackend Generation::start() {
  handlers_->plugins.start(config_.workers);
  WorkerBackend backend;
  for (std::size_t w = 0; w < config_.workers; ++w) {
    std::vector<ListenSocket> own;
    for (const ListenSocket& socket : sockets_[w]) own.push_back(duplicate(socket));
    workers_.push_back(std::make_unique<Worker>(w, config_, handlers_->registry, handlers_->builtins, tls_contexts_,
                                                peer_limits_, std::move(own), access_log_fd(), &handlers_->plugins));
    backend = workers_.back()->start();
  }
  return backend;
}

void Generation::drain(std::chrono::milliseconds idle_grace, Handover handover) {
  for (auto& worker : workers_) worker->drain(idle_grace, handover);
  // Why close ours too: a socket no generation holds any more must stop
  // accepting (a shutdown refuses new connections); a socket the next
  // generation took stays open through its own descriptors.
  sockets_.clear();
}

void Generation::wait_until_not_accepting(std::chrono::milliseconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (const auto& worker : workers_) {
    while (worker->accepting() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

void Generation::stop() {
  for (auto& worker : workers_) worker->stop();
}

bool Generation::finished() const noexcept {
  for (const auto& worker : workers_) {
    if (!worker->finished()) return false;
  }
  return true;
}

std::size_t Generation::open_connections() const noexcept {
  std::size_t open = 0;
  for (const auto& worker : workers_) open += worker->open_connections();
  return open;
}

void Generation::join() {
  for (auto& worker : workers_) worker->join();
  handlers_->plugins.stop();  // once: later calls do nothing
}

}  // namespace tiffany
