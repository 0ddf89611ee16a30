// connect_to_redis: tcp_connect with the TLS settings, then AUTH and PING under one deadline.
#include "handlers/builtin/pubsub/redis_connect.hpp"

#include <utility>

#include <tiffany/coro/deadline.hpp>
#include <tiffany/net/tcp_connect.hpp>

#include "client/engine/redis/resp_command.hpp"
#include "client/engine/redis/resp_reader.hpp"

namespace tiffany::pubsub {
namespace {

ConnectOptions connect_options(const RedisSettings& settings) {
  ConnectOptions options;
  options.timeout = settings.timeout;
  if (settings.tls) {
    TlsClientOptions tls;
    tls.verify_peer = settings.tls->verify;
    tls.ca_file = settings.tls->ca_file;
    tls.server_name = settings.tls->server_name;
    options.tls = std::move(tls);
  }
  return options;
}

std::string seconds(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

RedisConnection failed(std::string why, bool settings_problem = false) {
  RedisConnection result;
  result.error = std::move(why);
  result.settings_problem = settings_problem;
  return result;
}

}  // namespace

Task<RedisConnection> connect_to_redis(const RedisSettings& settings) {
  ConnectResult connected = co_await tcp_connect(settings.host, settings.port, connect_options(settings));
  if (!connected) co_return failed(connected.error().message, connected.error().kind == ConnectErrorKind::tls);
  std::unique_ptr<ByteStream> stream = std::move(connected.stream());

  const bool auth = !settings.password.empty();
  std::string hello;
  if (auth && settings.user.empty()) redis::append_command(hello, {"AUTH", settings.password});
  if (auth && !settings.user.empty()) redis::append_command(hello, {"AUTH", settings.user, settings.password});
  redis::append_command(hello, {"PING"});
  const char* asked = auth ? "AUTH and PING" : "PING";
  // Why one deadline for the write and the answers: a Redis that stopped (SIGSTOP) still has its
  // connections completed by the kernel; only its silence tells, and that must not take longer.
  Deadline deadline = Deadline::after(settings.timeout);
  const Timed<IoResult> wrote = co_await deadline.guard(stream->write(hello.data(), hello.size()));
  if (wrote.timed_out()) co_return failed(std::string("Redis did not take ") + asked + " in " + seconds(settings.timeout));
  if (!*wrote) co_return failed("writing to Redis failed: " + wrote->message());

  redis::RespReader reader;
  int answers = 0;
  const int expected = auth ? 2 : 1;
  while (answers < expected) {
    ReadLease input;
    const Timed<IoResult> got = co_await deadline.guard(stream->read_pooled(input));
    if (got.timed_out()) co_return failed(std::string("no answer to ") + asked + " in " + seconds(settings.timeout));
    if (!*got) co_return failed("reading from Redis failed: " + got->message());
    if (got->bytes() == 0) co_return failed(std::string("Redis closed the connection before answering ") + asked);
    reader.feed(input.bytes());
    redis::RespValue reply;
    redis::RespReader::Status status = reader.next(reply);
    for (; status == redis::RespReader::Status::value; status = reader.next(reply)) {
      const bool to_auth = auth && answers == 0;
      ++answers;
      if (reply.type == redis::RespValue::Type::error) {
        // WRONGPASS (a wrong password or user), NOAUTH (a password is needed), NOPERM (the ACL).
        co_return failed(std::string("Redis refused ") + (to_auth ? "AUTH" : "PING") + ": " + reply.text, true);
      }
    }
    if (status == redis::RespReader::Status::error) co_return failed("Redis's answer broke RESP2: " + reader.why());
  }
  RedisConnection ready;
  ready.stream = std::move(stream);
  co_return ready;
}

}  // namespace tiffany::pubsub
