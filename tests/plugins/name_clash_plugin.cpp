// A plugin that registers a name the built-in "text" handler already has.
#include <memory>

#include <tiffany/handlers/plugin_api.hpp>

namespace {
class Nothing final : public tiffany::Handler {
 public:
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response&) override { co_return; }
};
}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("text", [](const tiffany::HandlerParams&) { return std::make_unique<Nothing>(); });
}
