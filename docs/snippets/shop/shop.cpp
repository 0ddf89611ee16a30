// shop: the plugin docs/plugins.md builds step by step (compiled by the test suite).
#include <picojson.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/cookies.hpp>
#include <tiffany/http/json_body.hpp>
#include <tiffany/http/redirect.hpp>

namespace {

using tiffany::http::Status;

// Process-wide state: every worker shares it, so it locks.
class Carts {
 public:
  void add(const std::string& cart, const std::string& item) {
    std::lock_guard lock(mutex_);
    ++items_[cart][item];
  }
  picojson::object contents(const std::string& cart) const {
    std::lock_guard lock(mutex_);
    picojson::object items;
    if (const auto found = items_.find(cart); found != items_.end()) {
      for (const auto& [item, count] : found->second) items[item] = picojson::value(static_cast<double>(count));
    }
    return items;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::string, int>> items_;
};

// Per-worker state: one thread, no lock.
struct Served {
  long requests = 0;
};

// A background task on each worker, canceled when the server drains.
tiffany::Task<void> report(tiffany::WorkerContext& worker) {
  for (;;) {
    co_await tiffany::Sleep{std::chrono::minutes(1)};
    worker.logger().logf(tiffany::LogLevel::info, "worker %d served %ld requests", worker.index(),
                         worker.get<Served>().requests);
  }
}

class ShopPlugin final : public tiffany::Plugin {
 public:
  void start(tiffany::AppContext& app) override { app.emplace<Carts>(); }
  void start_worker(tiffany::WorkerContext& worker) override {
    worker.emplace<Served>();
    worker.spawn(report(worker));
  }
  void stop(tiffany::AppContext& app) override { app.logger().notice("closing the shop"); }
};

// GET /carts/:id → {"cart": "42", "currency": "CHF", "items": {...}}
class ShowCart final : public tiffany::Handler {
 public:
  explicit ShowCart(const tiffany::HandlerParams& params)
      : worker_(params.worker()), currency_(params.string_or("currency", "EUR")) {}

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    ++worker_.get<Served>().requests;
    const std::string cart(request.param("id").value_or(""));
    picojson::object reply;
    reply["cart"] = picojson::value(cart);
    reply["currency"] = picojson::value(currency_);
    reply["items"] = picojson::value(worker_.app().get<Carts>().contents(cart));
    if (!request.cookie("visited")) {
      tiffany::http::SetCookie visited("visited", "1");
      visited.path = "/";
      visited.http_only = true;
      tiffany::http::set_cookie(response, visited);
    }
    tiffany::http::write_json(response, picojson::value(std::move(reply)));
    co_return;
  }

 private:
  tiffany::WorkerContext& worker_;
  std::string currency_;
};

// POST /carts/:id/items, form `item=apple&item=pear` → 303 to the cart.
class AddItems final : public tiffany::Handler {
 public:
  explicit AddItems(const tiffany::HandlerParams& params) : worker_(params.worker()) {}

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    ++worker_.get<Served>().requests;
    const std::optional<tiffany::http::FormFields> form = request.form();
    if (!form || !form->contains("item")) {
      tiffany::http::write_json_error(response, Status::bad_request, "expected a form with item=...");
      co_return;
    }
    const std::string cart(request.param("id").value_or(""));
    for (const std::string_view item : form->get_all("item")) {
      worker_.app().get<Carts>().add(cart, std::string(item));
    }
    worker_.logger().info("added " + std::to_string(form->get_all("item").size()) + " items to cart " + cart);
    tiffany::http::redirect(response, "/carts/" + cart, Status::see_other);
    co_return;
  }

 private:
  tiffany::WorkerContext& worker_;
};

}  // namespace

void register_shop_middleware(tiffany::PluginRegistrar& registrar);  // shop_middleware.cpp
void register_shop_upload(tiffany::PluginRegistrar& registrar);      // shop_upload.cpp
void register_shop_assistant(tiffany::PluginRegistrar& registrar);   // shop_assistant.cpp

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.set_plugin(std::make_unique<ShopPlugin>());
  registrar.add_handler("shop.cart", [](const tiffany::HandlerParams& params) {
    return std::make_unique<ShowCart>(params);
  });
  registrar.add_handler("shop.add", [](const tiffany::HandlerParams& params) {
    return std::make_unique<AddItems>(params);
  });
  register_shop_middleware(registrar);
  register_shop_upload(registrar);
  register_shop_assistant(registrar);
}
