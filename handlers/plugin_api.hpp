// The handler plugin ABI: what a plugin .so exports, and what it registers with.
#pragma once

#include <memory>
#include <string>

#include <tiffany/handlers/handler_registry.hpp>
#include <tiffany/handlers/middleware/middleware.hpp>
#include <tiffany/handlers/plugin_build_flags.hpp>
#include <tiffany/handlers/plugin_context.hpp>
#include <tiffany/handlers/plugin_logger.hpp>

namespace tiffany {

/// The plugin ABI number this build of Tiffany speaks. It changes whenever a
/// type that crosses the plugin boundary (Handler, Request, Response, Task,
/// the scheduler and reactor awaitables, HandlerParams) changes layout or
/// meaning; a plugin built for another number is refused at start-up.
/// 2: Task frames, TaskRecord, move-only futures, BodySink::send_file,
/// Plugin, AppContext, WorkerContext, Logger, PluginRegistrar::set_plugin,
/// HandlerParams::worker().
/// 3: the build flags in kPluginAbiVersion; middleware (Middleware, Next,
/// PluginRegistrar::add_middleware, Request::attributes); the contexts'
/// state in detail::ContextState.
/// 4: the kernel side of Scheduler behind detail::Kernel, TaskRecord in
/// tiffany::detail (the awaitables' symbols changed names);
/// Response's referenced body (set_body_reference): a larger Response,
/// whose new fields the server's functions taking a Response (redirect,
/// set_cookie, ...) write.
/// 5: streaming request bodies: Handler::streams_request_body (a new
/// virtual), Request's BodyReader (a larger Request), BodySource.
/// 6: the HTTP client in the SDK: ClientRequest's host and timeouts,
/// HttpClientOptions::base_url (larger types than ABI 5's client had), and
/// the first baseline that holds the client.
/// 7: ByteStream says what callers need (encrypted, socket,
/// has_buffered_input, input_ready, wait_readable, shutdown_write: new
/// virtuals); Reactor::queues_operations (a new virtual); Response::cut.
/// 8: writes say what became of them: BodySink::write_body and send_file,
/// Response::write and send_file, and WebSocket::send (send_text,
/// send_binary) return http::Delivery (sent or closed), not bool;
/// IoRequest::poll_first.
inline constexpr unsigned kPluginAbiNumber = 8;

/// What a plugin exports as `tiffany_plugin_abi_version`: the ABI number in
/// the low 16 bits, and above them the build flags of whoever compiled this
/// header (detail::PluginBuildFlag), so that the server also refuses a plugin
/// compiled with settings that change standard types' layout.
inline constexpr unsigned kPluginAbiVersion = kPluginAbiNumber | (detail::kPluginBuildFlags << 16);

/// Handed to a plugin's entry point to register its handlers.
/// Valid only during the call to tiffany_plugin_init.
class PluginRegistrar {
 public:
  virtual ~PluginRegistrar() = default;
  /// Registers `factory` as `name` (letters, digits, '.', '_', '-'; e.g.
  /// "shop.cart"). Throws std::invalid_argument if the name is malformed or
  /// already taken (by a built-in or another plugin).
  virtual void add_handler(const std::string& name, HandlerFactory factory) = 0;
  /// Gives the plugin its lifecycle hooks and contexts (see Plugin): at most
  /// once; throws std::logic_error on a second call. Without it a plugin
  /// still has contexts (HandlerParams::worker()), just no hooks.
  virtual void set_plugin(std::unique_ptr<Plugin> plugin) = 0;
  /// Registers a middleware `factory` as `name` (same rules as handler
  /// names; names of handlers and of middleware are apart), for config
  /// entries `{"use": "<name>", ...}` on a listener or a route. Throws
  /// std::invalid_argument if the name is malformed or already taken.
  virtual void add_middleware(const std::string& name, MiddlewareFactory factory) = 0;
};

}  // namespace tiffany

// Why: plugins are built with hidden visibility; these two must stay visible.
extern "C" {
/// Every plugin defines this as `tiffany::kPluginAbiVersion`. The loader reads
/// it before calling anything else in the plugin.
__attribute__((visibility("default"))) extern const unsigned tiffany_plugin_abi_version;

/// The plugin's entry point, called once per process at start-up (before any
/// worker starts) with the server's ABI version. Register handlers through
/// `registrar`; throw (any std::exception) to refuse loading, with a message.
__attribute__((visibility("default"))) void tiffany_plugin_init(tiffany::PluginRegistrar& registrar,
                                                              unsigned abi_version);
}
