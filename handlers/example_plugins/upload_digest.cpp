// upload_digest: an example plugin that streams request bodies.
//   "upload_digest.digest": reads the body as it arrives, never holding it,
//       and answers its length and FNV-1a 64 checksum as JSON. Route keys:
//       `max_bytes` (refuses with 413, without reading the body, when
//       Content-Length declares more; 0: no limit of its own) and
//       `first_read_delay_ms` (work done before the first read, e.g. an
//       authorisation lookup; the client's "Expect: 100-continue" is
//       answered only when the first read starts).
//   "upload_digest.parts": a multipart/form-data upload parsed as it
//       arrives (http::StreamedMultipart): each part's name, filename, length
//       and checksum, in order, as JSON; 415 for another Content-Type, 400
//       for a malformed body.
#include <picojson.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <tiffany/coro/syscalls.hpp>
#include <tiffany/handlers/plugin_api.hpp>
#include <tiffany/http/streamed_multipart.hpp>

namespace {

// FNV-1a, 64 bits: a checksum a test recomputes in a few lines.
class Fnv1a64 {
 public:
  void update(std::string_view bytes) noexcept {
    for (const char byte : bytes) {
      hash_ ^= static_cast<unsigned char>(byte);
      hash_ *= 0x100000001b3ULL;
    }
  }
  std::string hex() const {
    char digits[17];
    const auto [end, error] = std::to_chars(digits, digits + sizeof digits, hash_, 16);
    return std::string(16 - static_cast<std::size_t>(end - digits), '0') + std::string(digits, end);
  }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

class Digest final : public tiffany::Handler {
 public:
  explicit Digest(const tiffany::HandlerParams& params)
      : max_bytes_(params.integer_or("max_bytes", 0, 0, std::int64_t{1} << 40)),
        first_read_delay_ms_(params.integer_or("first_read_delay_ms", 0, 0, 60000)) {}

  bool streams_request_body() const noexcept override { return true; }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    const std::optional<std::string_view> declared = request.headers.get("Content-Length");
    std::uint64_t length = 0;
    if (declared) std::from_chars(declared->data(), declared->data() + declared->size(), length);
    if (max_bytes_ > 0 && length > static_cast<std::uint64_t>(max_bytes_)) {
      // Answered without reading: a client that sent "Expect: 100-continue" never uploads the body.
      response.status = 413;
      response.body = "refused: " + std::to_string(length) + " bytes declared, at most " +
                      std::to_string(max_bytes_) + "\n";
      co_return;
    }
    if (first_read_delay_ms_ > 0) co_await tiffany::Sleep{std::chrono::milliseconds(first_read_delay_ms_)};
    Fnv1a64 digest;
    std::uint64_t bytes = 0;
    std::uint64_t pieces = 0;
    for (;;) {
      const tiffany::http::BodyChunk chunk = co_await request.body_reader().read();
      if (!chunk) {
        // The end, or a failure the server answers itself (413, 408, 400).
        if (chunk.failed()) co_return;
        break;
      }
      digest.update(chunk.bytes);  // the piece is valid until the next read
      bytes += chunk.bytes.size();
      ++pieces;
    }
    picojson::object reply;
    reply["bytes"] = picojson::value(static_cast<double>(bytes));
    reply["pieces"] = picojson::value(static_cast<double>(pieces));
    reply["fnv1a64"] = picojson::value(digest.hex());
    reply["streamed"] = picojson::value(request.body_reader().streaming());
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(reply).serialize();
  }

 private:
  std::int64_t max_bytes_;
  std::int64_t first_read_delay_ms_;
};

class Parts final : public tiffany::Handler {
 public:
  explicit Parts(const tiffany::HandlerParams&) {}

  bool streams_request_body() const noexcept override { return true; }

  tiffany::Task<void> handle(tiffany::http::Request& request, tiffany::http::Response& response) override {
    using Event = tiffany::http::MultipartReader::Event;
    std::optional<tiffany::http::StreamedMultipart> form = tiffany::http::StreamedMultipart::of(request);
    if (!form) {
      response.status = 415;
      response.body = "expected multipart/form-data with a boundary\n";
      co_return;
    }
    picojson::array parts;
    Fnv1a64 digest;
    std::uint64_t bytes = 0;
    for (;;) {
      const Event event = co_await form->next();
      if (event == Event::part) {
        digest = Fnv1a64();
        bytes = 0;
        picojson::object part;
        part["name"] = picojson::value(form->part().name);
        if (form->part().filename) part["filename"] = picojson::value(*form->part().filename);
        parts.emplace_back(part);
      } else if (event == Event::data) {
        digest.update(form->data());  // valid until the next event
        bytes += form->data().size();
      } else if (event == Event::part_end) {
        picojson::object& part = parts.back().get<picojson::object>();
        part["bytes"] = picojson::value(static_cast<double>(bytes));
        part["fnv1a64"] = picojson::value(digest.hex());
      } else if (event == Event::done) {
        break;
      } else {  // error: a body that failed to arrive is answered by the server
        if (tiffany::http::BodyChunk(form->body_status()).failed()) co_return;
        response.status = 400;
        response.body = "malformed multipart body: " + form->error() + "\n";
        co_return;
      }
    }
    response.headers.add("Content-Type", "application/json");
    response.body = picojson::value(parts).serialize();
  }
};

}  // namespace

extern "C" const unsigned tiffany_plugin_abi_version = tiffany::kPluginAbiVersion;

extern "C" void tiffany_plugin_init(tiffany::PluginRegistrar& registrar, unsigned /*abi_version*/) {
  registrar.add_handler("upload_digest.digest",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<Digest>(params); });
  registrar.add_handler("upload_digest.parts",
                        [](const tiffany::HandlerParams& params) { return std::make_unique<Parts>(params); });
}
