// hello: an example handler plugin.
//   "hello.greet": path parameter `name`, query parameter `lang`, JSON reply;
//                  route key `greeting` (default "Hello").
//   "hello.fail":  always throws, to show that a failing handler becomes a
//                  500 and a log line while the server carries on.
#include <picojson.h>

#include <memory>
#include <stdexcept>
#include <string>

#include <tiffany/handlers/plugin_api.hpp>

namespace {

class Greet final : public tiffany::Handler {
 public:
  explicit Greet(const tiffany::HandlerParams& params) : greeting_(params.string_or("greeting", "Hello")) {}

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    const std::string name(request.param("name").value_or("world"));
    picojson::object reply;
    reply["greeting"] = picojson::value(greeting_ + ", " + name + "!");
    reply["lang"] = picojson::value(request.query_param("lang").value_or("en"));
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
    co_return;
  }

 private:
  std::string greeting_;
};

class Fail final : public tiffany::Handler {
 public:
  explicit Fail(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response&) override {
    throw std::runtime_error("hello.fail always fails");
    co_return;
  }
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("hello.greet", [](const tiffany::HandlerParams& params) { return std::make_unique<Greet>(params); });
  registrar.add_handler("hello.fail", [](const tiffany::HandlerParams& params) { return std::make_unique<Fail>(params); });
}
