// fanout: an example handler plugin showing concurrency inside one request.
//   "fanout.sleepers": Spawns N child tasks that each Sleep, then Joins them
//   all; N × delay finishes in about one delay. Route keys: `children`
//   (default 10), `delay_ms` (default 100); query `?n=` overrides N (≤ 1000).
//   "fanout.upstreams": GETs every URL of `upstreams` at once with the
//   worker's HttpClient (docs/plugins.md, "Calling other services"): `mode`
//   "gather" (default) waits for all, "race" takes the first answer and
//   cancels the others (their connections close). `timeout_ms` (default
//   2000) bounds each request. Answers JSON: per upstream its URL and status
//   and body size, or its error kind and message; the winner in a race; the
//   elapsed time.
#include <picojson.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include <string>

#include <tiffany/client/http_client.hpp>
#include <tiffany/coro/gather.hpp>
#include <tiffany/coro/race.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/plugin_api.hpp>

namespace {

using Clock = std::chrono::steady_clock;

class FanOut final : public tiffany::Handler {
 public:
  explicit FanOut(const tiffany::HandlerParams& params)
      : children_(params.integer_or("children", 10, 1, 1000)),
        delay_ms_(params.integer_or("delay_ms", 100, 0, 60000)) {}

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
    reply["elapsed_ms"] = picojson::value(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
  }

 private:
  // One child task: sleeps, then returns index².
  static tiffany::Task<std::int64_t> child(std::int64_t index, std::int64_t delay_ms) {
    co_await tiffany::Sleep{std::chrono::milliseconds(delay_ms)};
    co_return index* index;
  }

  std::int64_t children_;
  std::int64_t delay_ms_;
};

// One upstream's outcome as JSON: its status and body size, or why it failed.
picojson::value describe(const std::string& url, const tiffany::ClientResult<tiffany::ClientResponse>& reply) {
  picojson::object entry;
  entry["url"] = picojson::value(url);
  if (reply) {
    entry["status"] = picojson::value(static_cast<double>(reply->status));
    entry["bytes"] = picojson::value(static_cast<double>(reply->body.size()));
  } else {  // errors are values: a kind ("connect", "timeout"…) and a message
    entry["error"] = picojson::value(std::string(tiffany::to_string(reply.error().kind)));
    entry["message"] = picojson::value(reply.error().message);
  }
  return picojson::value(entry);
}

class Upstreams final : public tiffany::Handler {
 public:
  explicit Upstreams(const tiffany::HandlerParams& params) : client_(options(params)), race_(mode(params) == "race") {
    const picojson::value* list = params.json("upstreams");
    if (list == nullptr || !list->is<picojson::array>() || list->get<picojson::array>().empty()) {
      throw tiffany::ParamError("upstreams", "expected a non-empty array of http:// or https:// URLs");
    }
    for (const picojson::value& url : list->get<picojson::array>()) {
      if (!url.is<std::string>()) throw tiffany::ParamError("upstreams", "expected URL strings, got " + url.to_str());
      urls_.push_back(url.get<std::string>());
    }
  }

  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response& response) override {
    const auto started = Clock::now();
    // One task per upstream; the client's tasks own copies of their URLs.
    std::vector<tiffany::Task<tiffany::ClientResult<tiffany::ClientResponse>>> calls;
    for (const std::string& url : urls_) calls.push_back(client_.get(url));
    picojson::object reply;
    picojson::array results;
    if (race_) {
      // The first to finish wins; the others are canceled and their connections closed.
      auto first = co_await tiffany::race(std::move(calls));
      results.push_back(describe(urls_[first.index], first.value));
      reply["winner"] = picojson::value(urls_[first.index]);
    } else {
      std::vector<tiffany::ClientResult<tiffany::ClientResponse>> all = co_await tiffany::gather(std::move(calls));
      for (std::size_t i = 0; i < all.size(); ++i) results.push_back(describe(urls_[i], all[i]));
    }
    reply["mode"] = picojson::value(std::string(race_ ? "race" : "gather"));
    reply["results"] = picojson::value(results);
    reply["elapsed_ms"] = picojson::value(std::chrono::duration<double, std::milli>(Clock::now() - started).count());
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
  }

 private:
  static tiffany::HttpClientOptions options(const tiffany::HandlerParams& params) {
    tiffany::HttpClientOptions options;
    options.timeouts.total = std::chrono::milliseconds(params.integer_or("timeout_ms", 2000, 1, 60000));
    return options;
  }
  static std::string mode(const tiffany::HandlerParams& params) {
    std::string mode = params.string_or("mode", "gather");
    if (mode != "gather" && mode != "race")
      throw tiffany::ParamError("mode", "expected \"gather\" or \"race\", got \"" + mode + "\"");
    return mode;
  }

  // Why a client per handler: handlers are built per worker, so its pools
  // are this worker's; a config reload destroys it with its idle connections.
  tiffany::HttpClient client_;
  bool race_;
  std::vector<std::string> urls_;
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("fanout.sleepers",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<FanOut>(params); });
  registrar.add_handler("fanout.upstreams",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<Upstreams>(params); });
}
