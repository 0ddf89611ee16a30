// probe: an example handler plugin that connects out (docs/plugins.md, "Connecting out").
//   "probe.check": connects to the route's `host` and `port` (TLS when `tls`
//   is true, trusting `ca_file` or else the system's CAs), within
//   `timeout_ms`, and answers how it went: 200 {"connected":true,"peer":…,
//   "alpn":…}, or 502 {"connected":false,"kind":"refused","error":…}.
#include <picojson.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/net/tcp_connect.hpp>

namespace {

class Check final : public tiffany::Handler {
 public:
  explicit Check(const tiffany::HandlerParams& params)
      : host_(params.string("host")), port_(static_cast<std::uint16_t>(params.integer_or("port", 80, 1, 65535))) {
    options_.timeout = std::chrono::milliseconds(params.integer_or("timeout_ms", 2000, 1, 60000));
    if (params.boolean_or("tls", false)) {
      options_.tls.emplace();
      if (params.json("ca_file") != nullptr) options_.tls->ca_file = params.path("ca_file");
      options_.tls->alpn = {"http/1.1"};
    }
  }

  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response& response) override {
    // Resolves on this worker's reactor, races the addresses, then TLS if asked.
    tiffany::ConnectResult connection = co_await tiffany::tcp_connect(host_, port_, options_);
    picojson::object reply;
    reply["connected"] = picojson::value(connection.ok());
    if (connection) {
      reply["peer"] = picojson::value(connection.peer().to_string());
      reply["alpn"] = picojson::value(std::string(connection.stream()->alpn()));
    } else {  // an error is a value: its kind and a message naming the target
      reply["kind"] = picojson::value(std::string(tiffany::to_string(connection.error().kind)));
      reply["error"] = picojson::value(connection.error().message);
      response.set_status(tiffany::http::Status::bad_gateway);
    }
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
  }  // the stream, and its socket, close here

 private:
  std::string host_;
  std::uint16_t port_;
  tiffany::ConnectOptions options_;
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("probe.check", [](const tiffany::HandlerParams& params) {
    return std::make_unique<Check>(params);
  });
}
