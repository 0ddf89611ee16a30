// The shop's middleware "shop.region": picks the customer's region for the handlers.
#include <memory>
#include <set>
#include <string>

#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/json_body.hpp>

namespace {

// {"use": "shop.region", "regions": ["ch", "de"], "default": "ch"}
class Region final : public tiffany::Middleware {
 public:
  explicit Region(const tiffany::HandlerParams& params) : default_(params.string("default")) {
    const picojson::value* regions = params.json("regions");
    if (regions == nullptr || !regions->is<picojson::array>()) {
      throw tiffany::ParamError("regions", "expected an array of region codes");
    }
    for (const picojson::value& region : regions->get<picojson::array>()) regions_.insert(region.to_str());
    if (!regions_.contains(default_)) throw tiffany::ParamError("default", "expected one of the regions");
  }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response,
                             tiffany::Next next) override {
    const std::string region(request.headers.get("X-Region").value_or(default_));
    if (!regions_.contains(region)) {  // answer at once: the handler never runs
      tiffany::http::write_json_error(response, tiffany::http::Status::bad_request, "unknown region " + region);
      co_return;
    }
    request.set_attribute("region", region);  // handlers read request.attribute("region")
    co_await next(request, response);         // the rest of the chain, then the handler
    if (!response.streaming()) response.headers.set("X-Region", region);  // then edit the response
  }

 private:
  std::string default_;
  std::set<std::string> regions_;
};

}  // namespace

void register_shop_middleware(tiffany::PluginRegistrar& registrar) {
  registrar.add_middleware("shop.region", [](const tiffany::HandlerParams& params) {
    return std::unique_ptr<tiffany::Middleware>(std::make_unique<Region>(params));
  });
}
