// PluginHarness: registration, lifecycle and running a handler on virtual time.
#include <tiffany/handlers/testkit/plugin_harness.hpp>

#include <stdexcept>
#include <utility>

#include <tiffany/http/request_context.hpp>

#include "handlers/testkit/internal/websocket_client_state.hpp"

namespace tiffany::testkit {

// Collects a plugin's handlers and hooks, as the server's loader does.
class PluginHarness::Registrar final : public PluginRegistrar {
 public:
  explicit Registrar(PluginHarness& harness) : harness_(harness) {}
  void add_handler(const std::string& name, HandlerFactory factory) override {
    if (!harness_.factories_.emplace(name, std::move(factory)).second) {
      throw std::invalid_argument("handler \"" + name + "\" is registered twice");
    }
  }
  void set_plugin(std::unique_ptr<Plugin> plugin) override {
    if (harness_.hooks_) throw std::logic_error("set_plugin called twice");
    harness_.hooks_ = std::move(plugin);
  }
  void add_middleware(const std::string& name, MiddlewareFactory factory) override {
    if (!harness_.middleware_factories_.emplace(name, std::move(factory)).second) {
      throw std::invalid_argument("middleware \"" + name + "\" is registered twice");
    }
  }

 private:
  PluginHarness& harness_;
};

// Records every line, and says every level is enabled.
class PluginHarness::RecordingSink final : public LogSink {
 public:
  bool enabled(LogLevel) const noexcept override { return true; }
  void write(LogLevel level, std::string_view line) noexcept override {
    try {
      const std::string* id = http::kRequestId.get();
      std::lock_guard lock(mutex_);
      lines_.push_back(LogLine{level, std::string(line), id != nullptr ? *id : std::string()});
    } catch (...) {
    }
  }
  std::vector<LogLine> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<LogLine> lines_;
};

namespace {

// A middleware with `inner` as the rest of its chain.
class Wrapped final : public Handler {
 public:
  Wrapped(Middleware& middleware, Handler& inner) : middleware_(middleware), inner_(inner) {}
  Task<void> handle(http::Request& request, http::Response& response) override {
    return middleware_.handle(request, response, Next(nullptr, 0, &inner_));
  }

 private:
  Middleware& middleware_;
  Handler& inner_;
};

constexpr std::string_view kHandlerLabel = "handler under test";

// The server's per-request set-up: the request id and route as task-local values.
Task<void> serve(Handler& handler, http::Request& request, http::Response& response, std::string id,
                 http::RouteInfo route) {
  http::kRequestId.set(std::move(id));
  http::kRoute.set(route);
  co_await handler.handle(request, response);
}

}  // namespace

Task<http::Delivery> CollectingSink::write_body(http::Response& response, std::string_view piece) {
  response.mark_head_sent();
  outcome_.streamed.emplace_back(piece);
  co_return http::Delivery::sent;
}

std::string Outcome::body() const {
  std::string all(response.body_bytes());
  for (const std::string& piece : streamed) all += piece;
  return all;
}

picojson::value Outcome::json() const {
  picojson::value value;
  const std::string text = body();
  const std::string error = picojson::parse(value, text);
  if (!error.empty()) throw std::runtime_error("response body is not JSON (" + error + "): " + text);
  return value;
}

PluginHarness::PluginHarness(std::string plugin_name)
    : sink_(std::make_unique<RecordingSink>()),
      app_(std::make_unique<AppContext>(std::move(plugin_name), 1)),
      worker_(std::make_unique<WorkerContext>(*app_, 0)),
      scheduler_(std::make_unique<Scheduler>(SchedulerOptions{.clock = &clock_})) {
  set_log_sink(sink_.get());
  start();
}

PluginHarness::PluginHarness(InitFunction init, std::string plugin_name)
    : sink_(std::make_unique<RecordingSink>()),
      app_(std::make_unique<AppContext>(std::move(plugin_name), 1)),
      worker_(std::make_unique<WorkerContext>(*app_, 0)),
      scheduler_(std::make_unique<Scheduler>(SchedulerOptions{.clock = &clock_})) {
  set_log_sink(sink_.get());
  try {
    Registrar registrar(*this);
    init(registrar, kPluginAbiVersion);
    start();
  } catch (...) {
    set_log_sink(nullptr);
    throw;
  }
}

void PluginHarness::start() {
  if (hooks_) hooks_->start(*app_);
  started_ = true;
  if (hooks_) hooks_->start_worker(*worker_);
  worker_started_ = true;
  worker_->attach(*scheduler_);
  scheduler_->run_until_idle();
}

PluginHarness::~PluginHarness() {
  try {
    if (worker_started_ && hooks_) hooks_->stop_worker(*worker_);
  } catch (...) {
  }
  worker_->cancel_tasks();
  scheduler_->run_until_idle();
  worker_->release_tasks();
  scheduler_.reset();  // destroys what is left before the state it may use
  try {
    if (started_ && hooks_) hooks_->stop(*app_);
  } catch (...) {
  }
  worker_->clear_state();
  app_->clear_state();
  set_log_sink(nullptr);
}

HandlerParams PluginHarness::params(std::string_view params_json) {
  picojson::value value;
  const std::string error = picojson::parse(value, std::string(params_json));
  if (!error.empty() || !value.is<picojson::object>()) {
    throw std::invalid_argument("test params are not a JSON object: " + std::string(params_json));
  }
  params_.push_back(value.get<picojson::object>());
  return HandlerParams(params_.back(), ".", worker_.get());
}

std::unique_ptr<Handler> PluginHarness::handler(const std::string& name, std::string_view params_json) {
  const auto found = factories_.find(name);
  if (found == factories_.end()) throw std::invalid_argument("the plugin registered no handler \"" + name + "\"");
  const HandlerParams route_params = params(params_json);
  std::unique_ptr<Handler> built = found->second(route_params);
  if (const auto unknown = route_params.unknown_keys(); !unknown.empty()) {
    throw ParamError(unknown.front(), "unknown key for handler \"" + name + "\"");
  }
  return built;
}

Outcome PluginHarness::run(Handler& handler, http::Request& request, std::string_view route,
                           std::chrono::milliseconds limit, std::string request_id) {
  Outcome outcome;
  CollectingSink sink(outcome);
  outcome.response.attach(&sink);
  JoinHandle<void> done = scheduler_->spawn(
      serve(handler, request, outcome.response, std::move(request_id), http::RouteInfo{route, kHandlerLabel}));
  scheduler_->run_until_idle();
  const auto real_limit = std::chrono::steady_clock::now() + kRealTimeLimit;
  for (std::chrono::milliseconds waited{0}; !done.finished();) {
    // Why real time here: work on another thread (the offload pool) takes
    // the time it takes; virtual time stands still while only that is pending.
    if (scheduler_->external_waits() > 0 && std::chrono::steady_clock::now() < real_limit) {
      scheduler_->remote_queue()->wait(std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
      scheduler_->run_until_idle();
      continue;
    }
    if (waited >= limit) {
      done.cancel();
      scheduler_->run_until_idle();
      outcome.response.attach(nullptr);
      throw std::runtime_error("the handler had not finished after " + std::to_string(limit.count()) +
                               " ms of virtual time");
    }
    scheduler_->advance(std::chrono::milliseconds(1));
    waited += std::chrono::milliseconds(1);
  }
  done.take_result();  // rethrows the handler's exception
  outcome.response.attach(nullptr);
  return outcome;
}

std::unique_ptr<Middleware> PluginHarness::middleware(const std::string& name, std::string_view settings_json) {
  const auto found = middleware_factories_.find(name);
  if (found == middleware_factories_.end()) {
    throw std::invalid_argument("the plugin registered no middleware \"" + name + "\"");
  }
  const HandlerParams settings = params(settings_json);
  std::unique_ptr<Middleware> built = found->second(settings);
  if (const auto unknown = settings.unknown_keys(); !unknown.empty()) {
    throw ParamError(unknown.front(), "unknown key for middleware \"" + name + "\"");
  }
  return built;
}

Outcome PluginHarness::run(Middleware& middleware, Handler& inner, const RequestBuilder& request,
                           std::string_view route) {
  Wrapped wrapped(middleware, inner);
  return run(wrapped, request, route);
}

Outcome PluginHarness::run(Handler& handler, const RequestBuilder& request, std::string_view route) {
  http::Request built = request.build();
  ScriptedBody body(request.body_pieces(), request.body_ending());
  if (request.streams_body()) built.body_reader().attach(&body);
  return run(handler, built, route);
}

WebSocketClient PluginHarness::open_websocket(Handler& handler, const RequestBuilder& request,
                                              std::string_view route) {
  http::Request built = request.build();
  for (const auto& [name, value] : {std::pair{"Upgrade", "websocket"}, std::pair{"Connection", "Upgrade"},
                                    std::pair{"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                                    std::pair{"Sec-WebSocket-Version", "13"}}) {
    if (!built.headers.contains(name)) built.headers.add(name, value);
  }
  auto state = std::make_unique<WebSocketClient::State>(*this, std::move(built), std::string(route));
  state->outcome.response.attach(&state->sink);
  state->done = scheduler_->spawn(serve(handler, state->request, state->outcome.response, "test-request",
                                        http::RouteInfo{state->route, kHandlerLabel}));
  scheduler_->run_until_idle();
  for (std::chrono::milliseconds waited{0}; !state->done.finished() && state->sink.socket() == nullptr;
       waited += std::chrono::milliseconds(1)) {
    if (waited >= std::chrono::seconds(60)) {
      state->done.cancel();
      scheduler_->run_until_idle();
      throw std::runtime_error("the handler had neither accepted the WebSocket nor answered after 60 s of virtual time");
    }
    scheduler_->advance(std::chrono::milliseconds(1));
  }
  if (state->done.finished() && state->sink.socket() == nullptr) state->take_result();
  return WebSocketClient(std::move(state));
}

std::vector<LogLine> PluginHarness::logs() const { return sink_->lines(); }

bool PluginHarness::logged(std::string_view part) const {
  for (const LogLine& line : sink_->lines()) {
    if (line.text.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace tiffany::testkit
