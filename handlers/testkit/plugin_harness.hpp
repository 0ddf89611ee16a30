// PluginHarness: one plugin on one virtual-time worker, for handler unit tests (SDK test kit).
#pragma once

#include <picojson.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tiffany/coro/manual_clock.hpp>
#include <tiffany/coro/scheduler.hpp>
#include <tiffany/handlers/handler.hpp>
#include <tiffany/handlers/handler_params.hpp>
#include <tiffany/handlers/middleware/middleware.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/handlers/testkit/request_builder.hpp>
#include <tiffany/handlers/testkit/scripted_body.hpp>
#include <tiffany/handlers/testkit/websocket_client.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::testkit {

/// One line a plugin logged through its Logger while the harness lived.
struct LogLine {
  LogLevel level;
  std::string text;        ///< `plugin "kv" on route /kv/:key: stored a`
  std::string request_id;  ///< the request's id, empty outside a request
};

/// What a handler produced for one request.
struct Outcome {
  http::Response response;            ///< status, headers, whole body
  std::vector<std::string> streamed;  ///< pieces written with co_await response.write()

  int status() const noexcept { return response.status; }
  /// The first value of header `name`.
  std::optional<std::string_view> header(std::string_view name) const noexcept { return response.headers.get(name); }
  /// The whole body: `response.body_bytes()` (`body` or referenced bytes), then every streamed piece.
  std::string body() const;
  /// The body parsed as JSON; throws std::runtime_error if it is not.
  picojson::value json() const;
};

/// A BodySink that records streamed pieces in an Outcome instead of sending
/// them: attach it to the Response a handler writes (PluginHarness does).
class CollectingSink final : public http::BodySink {
 public:
  explicit CollectingSink(Outcome& outcome) : outcome_(outcome) {}
  Task<http::Delivery> write_body(http::Response& response, std::string_view piece) override;

 private:
  Outcome& outcome_;
};

/// A plugin, its contexts and one worker on a scheduler with a ManualClock,
/// with no reactor and no sockets: handlers run exactly as on a worker
/// (task-local request id and route set, the plugin's hooks run in the
/// server's order), timers fire on virtual time, and every Logger line is
/// recorded. Typical use, with the plugin's sources compiled into the test:
///
///   tiffany::testkit::PluginHarness harness(tiffany_plugin_init, "kv");
///   auto put = harness.handler("kv.put", R"({"max_keys": 10})");
///   auto outcome = harness.run(*put, RequestBuilder("PUT", "/kv/a").body("1").param("key", "a"));
///   EXPECT_EQ(outcome.status(), 204);
///
/// Threads: one; not thread-safe. One harness at a time (it installs the
/// process's log sink). Handlers must not wait on sockets (no reactor here).
class PluginHarness {
 public:
  using InitFunction = void (*)(PluginRegistrar&, unsigned);

  /// Calls `init` (a plugin's tiffany_plugin_init) to collect its handlers
  /// and hooks, then runs Plugin::start and Plugin::start_worker as the
  /// server does (worker 0 of 1). `plugin_name` names the plugin in its
  /// log lines. Rethrows what init or a start hook throws.
  explicit PluginHarness(InitFunction init, std::string plugin_name = "test");
  /// No plugin: only contexts, for testing a handler class directly.
  explicit PluginHarness(std::string plugin_name = "test");
  PluginHarness(const PluginHarness&) = delete;
  PluginHarness& operator=(const PluginHarness&) = delete;
  /// Drains like the server: stop_worker, background tasks canceled, then stop.
  ~PluginHarness();

  AppContext& app() noexcept { return *app_; }
  WorkerContext& worker() noexcept { return *worker_; }
  Scheduler& scheduler() noexcept { return *scheduler_; }
  ManualClock& clock() noexcept { return clock_; }

  /// Route params for a factory, from a JSON object's text; the harness
  /// keeps them alive and knows the worker context. Throws
  /// std::invalid_argument when `params_json` is not a JSON object.
  HandlerParams params(std::string_view params_json = "{}");
  /// Builds the handler the plugin registered as `name` (as a route with
  /// `params_json` would); throws std::invalid_argument for an unknown
  /// name, ParamError for bad params or a key the factory never read.
  std::unique_ptr<Handler> handler(const std::string& name, std::string_view params_json = "{}");

  /// Runs `handler` on `request` until it finishes, moving virtual time on
  /// (in 1 ms steps, firing the plugin's timers too) while it only waits
  /// on timers; the request gets id `request_id` and the route `route`.
  /// While it waits on another thread (`offload`), virtual time stands still
  /// and the harness waits in real time, up to kRealTimeLimit in all.
  /// Rethrows what the handler throws; throws std::runtime_error if it has
  /// not finished after `limit` of virtual time.
  static constexpr std::chrono::seconds kRealTimeLimit{60};
  Outcome run(Handler& handler, http::Request& request, std::string_view route = "/test",
              std::chrono::milliseconds limit = std::chrono::seconds(60), std::string request_id = "test-request");
  /// A body given with RequestBuilder::body_in_pieces is read through a
  /// ScriptedBody, piece by piece.
  Outcome run(Handler& handler, const RequestBuilder& request, std::string_view route = "/test");

  /// Runs `handler` on `request` made a WebSocket handshake (Upgrade,
  /// Connection, Sec-WebSocket-Key and Sec-WebSocket-Version are added
  /// unless it sets them) until it has accepted it, or answered otherwise
  /// (then it has finished: see handshake()); virtual time moves on as in
  /// run(). The handler goes on as a task: drive it with run_until_idle()
  /// and advance(), and talk to it through the WebSocketClient (its
  /// WebSocket is a scripted one: whole messages, no wire). run() answers
  /// a handshake 501, as a connection that cannot switch protocols would.
  /// Rethrows what the handler throws before accepting.
  WebSocketClient open_websocket(Handler& handler, const RequestBuilder& request, std::string_view route = "/test");

  /// Builds the middleware the plugin registered as `name` from an entry's
  /// settings (every key but "use"); errors as handler().
  std::unique_ptr<Middleware> middleware(const std::string& name, std::string_view settings_json = "{}");
  /// Runs `middleware` on `request` with `inner` as the rest of its chain
  /// (it runs only if the middleware calls next), as run() does a handler.
  Outcome run(Middleware& middleware, Handler& inner, const RequestBuilder& request, std::string_view route = "/test");

  /// Moves virtual time on by `by`, running whatever becomes due (background tasks too).
  void advance(std::chrono::nanoseconds by) { scheduler_->advance(by); }
  /// Runs the ready tasks (none waits).
  void run_until_idle() { scheduler_->run_until_idle(); }

  /// Every line logged so far, oldest first.
  std::vector<LogLine> logs() const;
  /// True if a logged line's text contains `part`.
  bool logged(std::string_view part) const;

 private:
  class Registrar;
  class RecordingSink;

  void start();

  ManualClock clock_;
  std::unique_ptr<RecordingSink> sink_;
  std::unique_ptr<AppContext> app_;
  std::unique_ptr<WorkerContext> worker_;
  std::map<std::string, HandlerFactory> factories_;
  std::map<std::string, MiddlewareFactory> middleware_factories_;
  std::unique_ptr<Plugin> hooks_;
  std::deque<picojson::object> params_;  // Why a deque: HandlerParams point into it
  std::unique_ptr<Scheduler> scheduler_;
  bool started_ = false;
  bool worker_started_ = false;
};

}  // namespace tiffany::testkit
