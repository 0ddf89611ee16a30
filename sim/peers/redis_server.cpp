// SimRedis: RESP2 commands in, replies and pub/sub messages out, over simulated sockets.
#include "sim/peers/redis_server.hpp"

#include <cctype>
#include <utility>

#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/accept.hpp>

#include "client/engine/redis/resp_command.hpp"
#include "client/engine/redis/resp_reader.hpp"

namespace tiffany::sim {
namespace {

void append_bulk(std::string& out, const std::string& text) {
  out += "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n";
}

// A subscription's confirmation, or an unsubscription's: [kind, channel, count].
void append_subscription(std::string& out, const char* kind, const std::string& channel, std::size_t count) {
  out += "*3\r\n";
  append_bulk(out, kind);
  append_bulk(out, channel);
  out += ":" + std::to_string(count) + "\r\n";
}

}  // namespace

struct SimRedis::Client {
  Client(int fd, std::uint64_t number) : socket(fd), stream(fd), id(number) {}
  UniqueFd socket;
  SocketStream stream;
  std::uint64_t id;    // in accept order
  std::string outbox;  // replies and messages on their way, in order
  WakeSignal wake;     // the writer's
  bool done = false;   // the reader has ended: the writer ends once the outbox is out
  std::set<std::string> channels;
};

SimRedis::SimRedis(World& world, const std::string& address)
    : world_(world), host_(world.add_host("redis")), listener_(world.network().listen(address, 128)) {
  accepting_ = world_.spawn(host_, serve());
}

void SimRedis::stop() noexcept {
  world_.on(host_, [this] {  // cancels go through the tasks' own scheduler
    accepting_.cancel();
    for (auto& [id, tasks] : tasks_) {
      tasks.first.cancel();
      tasks.second.cancel();
    }
  });
}

void SimRedis::drop_connections() noexcept {
  connections_dropped_ = clients_.size();
  subscriptions_dropped_.clear();
  for (const auto& [channel, subscribed] : subscribers_) subscriptions_dropped_[channel] = subscribed.size();
  accepted_since_drop_ = 0;
  subscribed_since_drop_.clear();
  world_.on(host_, [this] {
    for (auto& [id, tasks] : tasks_) {
      tasks.first.cancel();
      tasks.second.cancel();
    }
  });
}

bool SimRedis::recovered() const noexcept {
  if (accepted_since_drop_ < connections_dropped_) return false;
  for (const auto& [channel, count] : subscriptions_dropped_) {
    const auto again = subscribed_since_drop_.find(channel);
    if (count > 0 && (again == subscribed_since_drop_.end() || again->second < count)) return false;
  }
  return true;
}

Task<void> SimRedis::serve() {
  struct Ends {
    bool& serving;
    ~Ends() { serving = false; }
  } ends{serving_};
  for (;;) {
    const IoResult accepted = co_await Accept{listener_.get()};
    if (!accepted) co_return;
    auto client = std::make_shared<Client>(accepted.value(), ++accepted_);
    ++accepted_since_drop_;
    clients_.push_back(client);
    // Why the handles here, not in the Client: its tasks hold the Client,
    // and a Client holding its tasks' handles would keep them all forever.
    JoinHandle<void> writer = Scheduler::current().spawn(write_client(client));
    JoinHandle<void> reader = Scheduler::current().spawn(serve_client(client));
    tasks_.emplace(client->id, std::pair{std::move(reader), std::move(writer)});
  }
}

Task<void> SimRedis::serve_client(std::shared_ptr<Client> client) {
  // However it ends (the peer left, a bad command, stop()): forgotten, its writer told.
  struct Forgets {
    SimRedis& redis;
    Client& client;
    ~Forgets() {
      for (const std::string& channel : client.channels) redis.subscribers_[channel].erase(client.id);
      client.done = true;
      client.wake.set();
      redis.clients_.remove_if([this](const auto& kept) { return kept.get() == &client; });
      redis.tasks_.erase(client.id);  // the reader's own handle too: dropping it detaches, the task ends as it is
    }
  } forgets{*this, *client};
  redis::RespReader reader;
  char buffer[16 * 1024];
  for (;;) {
    const IoResult read = co_await client->stream.read(buffer, sizeof buffer);
    if (!read || read.bytes() == 0) co_return;
    reader.feed(std::string_view(buffer, read.bytes()));
    redis::RespValue command;
    redis::RespReader::Status status;
    while ((status = reader.next(command)) == redis::RespReader::Status::value) {
      std::vector<std::string> words;
      for (const redis::RespValue& word : command.elements) words.push_back(word.text);
      if (command.type != redis::RespValue::Type::array || words.empty()) co_return;  // not a command: hang up
      answer(*client, words);
    }
    if (status == redis::RespReader::Status::error) co_return;
    client->wake.set();
  }
}

Task<void> SimRedis::write_client(std::shared_ptr<Client> client) {
  for (;;) {
    if (client->outbox.empty()) {
      if (client->done) co_return;
      co_await client->wake.wait();
      continue;
    }
    const std::string out = std::exchange(client->outbox, {});
    const IoResult written = co_await client->stream.write(out.data(), out.size());
    if (!written) co_return;
  }
}

void SimRedis::answer(Client& client, const std::vector<std::string>& command) {
  std::string verb = command[0];
  for (char& c : verb) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string& out = client.outbox;
  if (verb == "PING") {
    // In subscribed mode Redis answers a push, ["pong", ""].
    out += client.channels.empty() ? "+PONG\r\n" : "*2\r\n$4\r\npong\r\n$0\r\n\r\n";
  } else if (verb == "AUTH") {
    out += "+OK\r\n";
  } else if (verb == "SUBSCRIBE" && command.size() > 1) {
    for (std::size_t i = 1; i < command.size(); ++i) {
      client.channels.insert(command[i]);
      ++subscribed_since_drop_[command[i]];
      subscribers_[command[i]].emplace(client.id, &client);
      append_subscription(out, "subscribe", command[i], client.channels.size());
    }
  } else if (verb == "UNSUBSCRIBE") {
    std::vector<std::string> channels(command.begin() + 1, command.end());
    if (channels.empty()) channels.assign(client.channels.begin(), client.channels.end());
    for (const std::string& channel : channels) {
      client.channels.erase(channel);
      subscribers_[channel].erase(client.id);
      append_subscription(out, "unsubscribe", channel, client.channels.size());
    }
  } else if (verb == "PUBLISH" && command.size() == 3) {
    publish(command[1], command[2], client);
  } else {
    out += "-ERR unknown command '" + command[0] + "'\r\n";
  }
}

void SimRedis::publish(const std::string& channel, const std::string& message, Client& publisher) {
  ++published_;
  std::size_t receivers = 0;
  for (const auto& [id, subscriber] : subscribers_[channel]) {
    std::string& out = subscriber->outbox;
    out += "*3\r\n";
    append_bulk(out, "message");
    append_bulk(out, channel);
    append_bulk(out, message);
    subscriber->wake.set();
    ++receivers;
  }
  publisher.outbox += ":" + std::to_string(receivers) + "\r\n";
}

}  // namespace tiffany::sim
