// A plugin built with -D_GLIBCXX_USE_CXX11_ABI=0: the server must refuse it by
// name before loading it (loading would fail on an undefined mangled symbol).
#include <tiffany/handlers/plugin_api.hpp>

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("old_abi.text", [](const tiffany::HandlerParams& params) -> std::unique_ptr<tiffany::Handler> {
    // Why this call: HandlerParams::string takes a std::string, so with the
    // old string ABI its mangled name exists nowhere in the server.
    (void)params.string("body");
    return nullptr;
  });
}
