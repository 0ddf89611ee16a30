// A plugin whose handler blocks its worker thread (what a handler must not
// do), so the slow-task warning has a culprit to name.
#include <chrono>
#include <memory>
#include <thread>

#include <tiffany/handlers/plugin_api.hpp>

namespace {

class Block final : public tiffany::Handler {
 public:
  explicit Block(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response& response) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    response.body = "blocked\n";
    co_return;
  }
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("blocking.sleep", [](const tiffany::HandlerParams& params) { return std::make_unique<Block>(params); });
}
