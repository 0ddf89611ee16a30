// kv: an example plugin, a key-value store of JSON values over HTTP.
//   "kv.get":    GET a key          → 200 {"key": K, "value": V} | 404
//   "kv.put":    PUT a key, JSON body; `?ttl_ms=N` expires it → 204 | 400 | 507 when full
//   "kv.delete": DELETE a key       → 204 | 404
// Each route names its key with the `:key` path parameter.
// Middleware "kv.auth" (`{"use": "kv.auth", "token": "..."}`): writes (PUT,
// DELETE) need `Authorization: Bearer <token>` → else 401; reads pass. It
// sets the request attribute "kv.writer" for the handlers to log.
// Shows: a per-process store made in Plugin::start (AppContext, no global),
// an expiry sweeper started on each worker (WorkerContext::spawn, canceled at
// drain) with per-worker counters, the plugin Logger, and the JSON helpers.
#include <picojson.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/json_body.hpp>

#include "kv_store.hpp"

namespace {

using tiffany::http::Status;

// Plugin-wide settings (a plugin has no config section of its own yet;
// route keys belong to one route).
constexpr std::size_t kMaxKeys = 10000;
constexpr std::chrono::milliseconds kSweepEvery{1000};

kv::Clock::time_point now() { return tiffany::Scheduler::current().now(); }

// Every worker drops expired keys once a second, until the worker drains
// and cancels it.
tiffany::Task<void> sweep_expired(kv::Store& store, kv::WorkerStats& stats, const tiffany::Logger& logger) {
  try {
    for (;;) {
      co_await tiffany::Sleep{kSweepEvery};
      const std::size_t dropped = store.sweep(now());
      ++stats.sweeps;
      stats.expired += dropped;
      if (dropped != 0) logger.logf(tiffany::LogLevel::info, "swept %zu expired keys", dropped);
    }
  } catch (const tiffany::TaskCanceled&) {
    logger.info("sweeper canceled");
    throw;  // a canceled task ends canceled
  }
}

class KvPlugin final : public tiffany::Plugin {
 public:
  void start(tiffany::AppContext& app) override {
    app.emplace<kv::Store>(kMaxKeys);
    app.logger().notice("store ready for " + std::to_string(kMaxKeys) + " keys on " + std::to_string(app.workers()) +
                        " workers");
  }
  void start_worker(tiffany::WorkerContext& worker) override {
    kv::WorkerStats& stats = worker.emplace<kv::WorkerStats>();
    worker.spawn(sweep_expired(worker.app().get<kv::Store>(), stats, worker.logger()));
  }
  void stop_worker(tiffany::WorkerContext& worker) override {
    const kv::WorkerStats& stats = worker.get<kv::WorkerStats>();
    worker.logger().logf(tiffany::LogLevel::info, "worker %d drains after %zu sweeps (%zu keys expired)",
                         worker.index(), stats.sweeps, stats.expired);
  }
  void stop(tiffany::AppContext& app) override {
    app.logger().notice("stopping with " + std::to_string(app.get<kv::Store>().size()) + " keys");
  }
};

// What every kv handler holds: the worker context (the store is reached
// through it at request time; the factory may run in a config check).
class KvHandler : public tiffany::Handler {
 public:
  explicit KvHandler(const tiffany::HandlerParams& params) : worker_(params.worker()) {}

 protected:
  kv::Store& store() const { return worker_.app().get<kv::Store>(); }
  const tiffany::Logger& logger() const { return worker_.logger(); }
  static std::string key_of(const tiffany::http::Request& request) {
    return std::string(request.param("key").value_or(""));
  }

 private:
  tiffany::WorkerContext& worker_;
};

class Get final : public KvHandler {
 public:
  using KvHandler::KvHandler;
  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    const std::string key = key_of(request);
    std::optional<picojson::value> value = store().get(key, now());
    if (!value) {
      tiffany::http::write_json_error(response, Status::not_found, "no key \"" + key + "\"");
      co_return;
    }
    picojson::object reply;
    reply["key"] = picojson::value(key);
    reply["value"] = std::move(*value);
    tiffany::http::write_json(response, picojson::value(std::move(reply)));
  }
};

class Put final : public KvHandler {
 public:
  explicit Put(const tiffany::HandlerParams& params)
      : KvHandler(params), max_ttl_ms_(params.integer_or("max_ttl_ms", 86'400'000, 1, 31'536'000'000)) {}

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    std::optional<picojson::value> value = tiffany::http::read_json(request, response);
    if (!value) co_return;  // 400 or 415, with the reason
    std::optional<kv::Clock::time_point> expires;
    if (const std::optional<std::string> ttl = request.query_param("ttl_ms")) {
      char* end = nullptr;
      const long long ms = std::strtoll(ttl->c_str(), &end, 10);
      if (ttl->empty() || *end != '\0' || ms < 1 || ms > max_ttl_ms_) {
        tiffany::http::write_json_error(response, Status::bad_request,
                                        "ttl_ms must be 1 to " + std::to_string(max_ttl_ms_));
        co_return;
      }
      expires = now() + std::chrono::milliseconds(ms);
    }
    const std::string key = key_of(request);
    if (!store().put(key, std::move(*value), expires)) {
      logger().warn("store full, refused key \"" + key + "\"");
      tiffany::http::write_json_error(response, static_cast<Status>(507), "store full");
      co_return;
    }
    logger().logf(tiffany::LogLevel::debug, "stored \"%s\" (writer: %s)", key.c_str(),
                  std::string(request.attribute("kv.writer").value_or("anyone")).c_str());
    response.set_status(Status::no_content);
  }

 private:
  std::int64_t max_ttl_ms_;
};

class Delete final : public KvHandler {
 public:
  using KvHandler::KvHandler;
  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    const std::string key = key_of(request);
    if (!store().erase(key, now())) {
      tiffany::http::write_json_error(response, Status::not_found, "no key \"" + key + "\"");
      co_return;
    }
    logger().info("deleted \"" + key + "\"");
    response.set_status(Status::no_content);
  }
};

// kv.auth: a shared bearer token guards the writes.
class WriteToken final : public tiffany::Middleware {
 public:
  explicit WriteToken(const tiffany::HandlerParams& params) : expected_("Bearer " + params.string("token")) {
    if (expected_.size() < std::string_view("Bearer ").size() + 16) {
      throw tiffany::ParamError("token", "expected a token of at least 16 characters");
    }
  }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response,
                             tiffany::Next next) override {
    const bool write = request.method == "PUT" || request.method == "DELETE";
    if (write) {
      const std::optional<std::string_view> given = request.headers.get("Authorization");
      if (!given || !same(*given, expected_)) {
        response.headers.set("WWW-Authenticate", "Bearer realm=\"kv\"");
        tiffany::http::write_json_error(response, Status::unauthorized, "writes need the kv token");
        co_return;
      }
      request.set_attribute("kv.writer", "token");
    }
    co_await next(request, response);
  }

 private:
  // Why this way: the time taken depends on the lengths only, not on where the first difference is.
  static bool same(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    unsigned char difference = 0;
    for (std::size_t i = 0; i < a.size(); ++i) difference |= static_cast<unsigned char>(a[i] ^ b[i]);
    return difference == 0;
  }

  std::string expected_;
};

template <class H>
tiffany::HandlerFactory factory() {
  return [](const tiffany::HandlerParams& params) { return std::make_unique<H>(params); };
}

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.set_plugin(std::make_unique<KvPlugin>());
  registrar.add_handler("kv.get", factory<Get>());
  registrar.add_handler("kv.put", factory<Put>());
  registrar.add_handler("kv.delete", factory<Delete>());
  registrar.add_middleware("kv.auth", [](const tiffany::HandlerParams& params) -> std::unique_ptr<tiffany::Middleware> {
    return std::make_unique<WriteToken>(params);
  });
}
