// fanout: an example handler plugin showing concurrency inside one request.
//   "fanout.sleepers": Spawns N child tasks that each Sleep, then Joins them
//   all; N × delay finishes in about one delay. Route keys: `children`
//   (default 10), `delay_ms` (default 100); query `?n=` overrides N (≤ 1000).
#include <picojson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/plugin_api.hpp>

namespace {

using Clock = std::chrono::steady_clock;

class FanOut final : public tiffany::Handler {
 public:
  explicit FanOut(const tiffany::HandlerParams& params)
      : children_(params.integer_or("children", 10, 1, 1000)), delay_ms_(params.integer_or("delay_ms", 100, 0, 60000)) {}

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    std::int64_t n = children_;
    if (const auto asked = request.query_param("n")) n = std::clamp<std::int64_t>(std::atoll(asked->c_str()), 1, 1000);
    const auto started = Clock::now();

    std::vector<tiffany::JoinHandle<std::int64_t>> children;
    for (std::int64_t i = 0; i < n; ++i) children.push_back(co_await tiffany::Spawn{child(i, delay_ms_)});
    std::int64_t sum = 0;
    for (auto& handle : children) sum += co_await tiffany::Join{std::move(handle)};

    picojson::object reply;
    reply["children"] = picojson::value(static_cast<double>(n));
    reply["delay_ms"] = picojson::value(static_cast<double>(delay_ms_));
    reply["sum_of_squares"] = picojson::value(static_cast<double>(sum));
    reply["elapsed_ms"] =
        picojson::value(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
  }

 private:
  // One child task: sleeps, then returns index².
  static tiffany::Task<std::int64_t> child(std::int64_t index, std::int64_t delay_ms) {
    co_await tiffany::Sleep{std::chrono::milliseconds(delay_ms)};
    co_return index * index;
  }

  std::int64_t children_;
  std::int64_t delay_ms_;
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("fanout.sleepers",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<FanOut>(params); });
}
