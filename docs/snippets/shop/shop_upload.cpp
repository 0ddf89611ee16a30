// The shop's handler "shop.upload": takes a product photo as it arrives, never holding it whole.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include <tiffany/handlers/plugin_api.hpp>

namespace {

// {"method": "POST", "path": "/photos/:name", "handler": "shop.upload", "dir": "/var/shop/photos"}
class Upload final : public tiffany::Handler {
 public:
  explicit Upload(const tiffany::HandlerParams& params) : dir_(params.string_or("dir", "")) {}

  // Run as soon as the header section is routed; the body is ours to read.
  bool streams_request_body() const noexcept override { return true; }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    if (request.headers.get("Content-Type").value_or("") != "image/jpeg") {
      response.status = 415;  // answered without reading: the body is never uploaded
      co_return;
    }
    std::ofstream file;
    if (!dir_.empty()) file.open(dir_ + "/" + std::string(request.param("name").value_or("photo")) + ".jpg");
    std::uint64_t bytes = 0;
    for (;;) {
      const tiffany::http::BodyChunk chunk = co_await request.body_reader().read();
      if (chunk.failed()) co_return;  // too large, too slow, cut off: the server answers
      if (!chunk) break;              // the end
      bytes += chunk.bytes.size();
      if (file) file.write(chunk.bytes.data(), static_cast<std::streamsize>(chunk.bytes.size()));
    }
    response.status = 201;
    response.body = "stored " + std::to_string(bytes) + " bytes\n";
  }

 private:
  std::string dir_;
};

}  // namespace

void register_shop_upload(tiffany::PluginRegistrar& registrar) {
  registrar.add_handler("shop.upload", [](const tiffany::HandlerParams& params) {
    return std::make_unique<Upload>(params);
  });
}
