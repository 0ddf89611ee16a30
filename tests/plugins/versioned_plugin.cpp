// A plugin built twice (TIFFANY_TEST_PLUGIN_VERSION 1 and 2) with the same handler name, so a
// reload test can replace the file and see which build answers.
#include <memory>
#include <string>

#include <tiffany/handlers/plugin_api.hpp>

namespace {

class Version final : public tiffany::Handler {
 public:
  explicit Version(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response& response) override {
    response.body = "version " + std::to_string(TIFFANY_TEST_PLUGIN_VERSION) + "\n";
    co_return;
  }
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("versioned.hello",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<Version>(params); });
}
