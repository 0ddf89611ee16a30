// Test helper: a small UDP DNS server on 127.0.0.1 that answers A and AAAA from a table, on its own thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// Answers queries for the names it was given (A and AAAA records with one
/// TTL; NOERROR with no answer for the other type), NXDOMAIN for the rest,
/// or nothing at all when silent. Counts the queries per name and type.
class DnsResponder {
 public:
  struct Name {
    std::vector<std::string> ipv4;
    std::vector<std::string> ipv6;
    std::uint32_t ttl = 60;
  };

  DnsResponder() : socket_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(socket_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(socket_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      socket_.reset();
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  DnsResponder(const DnsResponder&) = delete;
  DnsResponder& operator=(const DnsResponder&) = delete;
  ~DnsResponder() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  /// "127.0.0.1:<port>", for ResolverOptions::servers.
  std::string server() const { return "127.0.0.1:" + std::to_string(port_); }
  bool ready() const { return socket_.valid(); }

  void add(const std::string& name, Name records) {
    std::lock_guard lock(mutex_);
    names_[lower(name)] = std::move(records);
  }
  void set_silent(bool silent) { silent_ = silent; }
  /// Queries received for `name` of `type` (1: A, 28: AAAA; 0: any).
  int queries(const std::string& name, int type = 0) const {
    std::lock_guard lock(mutex_);
    int count = 0;
    for (const auto& [key, n] : queries_) {
      if (key.first == lower(name) && (type == 0 || key.second == type)) count += n;
    }
    return count;
  }

 private:
  static std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  }

  void serve() {
    unsigned char query[512];
    while (!stop_) {
      pollfd ready{socket_.get(), POLLIN, 0};
      if (::poll(&ready, 1, 20) <= 0) continue;
      sockaddr_storage from{};
      socklen_t from_length = sizeof from;
      const ssize_t size = ::recvfrom(socket_.get(), query, sizeof query, 0, reinterpret_cast<sockaddr*>(&from),
                                      &from_length);
      if (size < 17) continue;
      std::vector<unsigned char> reply = answer(query, static_cast<std::size_t>(size));
      if (reply.empty() || silent_) continue;
      ::sendto(socket_.get(), reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), from_length);
    }
  }

  // Builds the reply to one query (a question section only), or nothing if malformed.
  std::vector<unsigned char> answer(const unsigned char* query, std::size_t size) {
    std::size_t at = 12;
    std::string name;
    while (at < size && query[at] != 0) {
      const std::size_t label = query[at];
      if (at + 1 + label >= size) return {};
      if (!name.empty()) name += '.';
      name.append(reinterpret_cast<const char*>(query + at + 1), label);
      at += 1 + label;
    }
    if (at + 5 > size) return {};
    const std::size_t question_end = at + 5;
    const int type = (query[at + 1] << 8) | query[at + 2];
    name = lower(name);
    Name records;
    bool known = false;
    {
      std::lock_guard lock(mutex_);
      ++queries_[{name, type}];
      if (auto found = names_.find(name); found != names_.end()) {
        records = found->second;
        known = true;
      }
    }
    std::vector<unsigned char> reply(query, query + question_end);
    reply[2] = 0x81;                    // QR, RD
    reply[3] = known ? 0x80 : 0x83;     // RA; NOERROR or NXDOMAIN
    reply[6] = reply[7] = 0;            // answers, set below
    reply[8] = reply[9] = reply[10] = reply[11] = 0;
    int answers = 0;
    auto add_record = [&](int record_type, const void* data, std::size_t length) {
      const unsigned char fixed[] = {0xc0, 0x0c, static_cast<unsigned char>(record_type >> 8),
                                     static_cast<unsigned char>(record_type), 0, 1,
                                     static_cast<unsigned char>(records.ttl >> 24),
                                     static_cast<unsigned char>(records.ttl >> 16),
                                     static_cast<unsigned char>(records.ttl >> 8), static_cast<unsigned char>(records.ttl),
                                     0, static_cast<unsigned char>(length)};
      reply.insert(reply.end(), fixed, fixed + sizeof fixed);
      reply.insert(reply.end(), static_cast<const unsigned char*>(data),
                   static_cast<const unsigned char*>(data) + length);
      ++answers;
    };
    if (type == 1) {
      for (const std::string& text : records.ipv4) {
        in_addr address{};
        ::inet_pton(AF_INET, text.c_str(), &address);
        add_record(1, &address, sizeof address);
      }
    } else if (type == 28) {
      for (const std::string& text : records.ipv6) {
        in6_addr address{};
        ::inet_pton(AF_INET6, text.c_str(), &address);
        add_record(28, &address, sizeof address);
      }
    }
    reply[7] = static_cast<unsigned char>(answers);
    return reply;
  }

  UniqueFd socket_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> silent_{false};
  mutable std::mutex mutex_;
  std::map<std::string, Name> names_;
  std::map<std::pair<std::string, int>, int> queries_;
};

}  // namespace tiffany::testing
