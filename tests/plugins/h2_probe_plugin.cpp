// A plugin for the HTTP/2 tests: handlers that wait, stream, throw or get
// canceled on demand, and a count of the canceled ones.
//   "h2probe.wait":      sleeps ?ms= (default 1000) on the scheduler, then "waited\n";
//   "h2probe.stream":    writes ?pieces= pieces of ?size= bytes ('x'), each awaited;
//   "h2probe.throw":     throws;
//   "h2probe.canceled":  how many handlers of this worker ended canceled, as text.
#include <charconv>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/handlers/plugin_api.hpp>

namespace {

// Why thread_local: each worker counts its own; the tests run one worker.
thread_local int canceled_handlers = 0;

long query_number(const tiffany::http::Request& request, std::string_view name, long fallback) {
  const std::optional<std::string> text = request.query_param(name);
  if (!text) return fallback;
  long value = fallback;
  std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

// Counts the handler as canceled if its frame unwinds with TaskCanceled.
struct CancelWitness {
  bool done = false;
  ~CancelWitness() {
    if (!done) ++canceled_handlers;
  }
};

class Wait final : public tiffany::Handler {
 public:
  explicit Wait(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    CancelWitness witness;
    co_await tiffany::Sleep(std::chrono::milliseconds(query_number(request, "ms", 1000)));
    response.body = "waited\n";
    witness.done = true;
  }
};

class Stream final : public tiffany::Handler {
 public:
  explicit Stream(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    CancelWitness witness;
    const long pieces = query_number(request, "pieces", 4);
    const std::string piece(static_cast<std::size_t>(query_number(request, "size", 1024)), 'x');
    response.set_content_type("application/octet-stream");
    for (long i = 0; i < pieces; ++i) {
      const tiffany::http::Delivery written = co_await response.write(piece);
      if (written == tiffany::http::Delivery::closed) break;
    }
    witness.done = true;
  }
};

class Throw final : public tiffany::Handler {
 public:
  explicit Throw(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response&) override {
    throw std::runtime_error("h2probe.throw was asked to");
    co_return;
  }
};

class Canceled final : public tiffany::Handler {
 public:
  explicit Canceled(const tiffany::HandlerParams&) {}
  tiffany::Task<void> handle(tiffany::http::Request&, tiffany::http::Response& response) override {
    response.body = std::to_string(canceled_handlers);
    co_return;
  }
};

template <class Made>
std::unique_ptr<tiffany::Handler> make(const tiffany::HandlerParams& params) {
  return std::make_unique<Made>(params);
}

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned) {
  registrar.add_handler("h2probe.wait", &make<Wait>);
  registrar.add_handler("h2probe.stream", &make<Stream>);
  registrar.add_handler("h2probe.throw", &make<Throw>);
  registrar.add_handler("h2probe.canceled", &make<Canceled>);
}
