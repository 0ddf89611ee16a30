// libFuzzer target: the PROXY protocol header parser, fed whole and fed in pieces, must say the same.
//   build-fuzz/tests/fuzz/proxy_header_fuzzer CORPUS tests/fuzz/proxy_seeds
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "server/transport/proxy/internal/proxy_header_parser.hpp"

namespace {

using tiffany::proxy_protocol::ProxyHeader;
using tiffany::proxy_protocol::ProxyHeaderParser;

struct Run {
  ProxyHeaderParser::Status status = ProxyHeaderParser::Status::need_more;
  std::size_t used = 0;
};

// Feeds `input` in pieces whose sizes cycle through `cuts` (1 to 16 bytes each).
Run feed(ProxyHeaderParser& parser, std::string_view input, std::string_view cuts) {
  Run run;
  std::size_t at = 0, turn = 0;
  while (at < input.size() && run.status == ProxyHeaderParser::Status::need_more) {
    std::size_t piece = cuts.empty() ? input.size() : 1 + static_cast<unsigned char>(cuts[turn++ % cuts.size()]) % 16;
    if (piece > input.size() - at) piece = input.size() - at;
    const auto result = parser.feed(input.substr(at, piece));
    run.status = result.status;
    run.used += result.used;
    at += piece;
  }
  return run;
}

bool same(const ProxyHeader& a, const ProxyHeader& b) {
  return a.version == b.version && a.local == b.local && std::memcmp(&a.source, &b.source, sizeof a.source) == 0 &&
         std::memcmp(&a.destination, &b.destination, sizeof a.destination) == 0 && a.alpn.view() == b.alpn.view() &&
         a.authority.view() == b.authority.view() && a.ssl == b.ssl && a.ssl_client == b.ssl_client &&
         a.ssl_verify == b.ssl_verify && a.ssl_version.view() == b.ssl_version.view() &&
         a.ssl_cn.view() == b.ssl_cn.view();
}

[[noreturn]] void differ(const char* what, const ProxyHeaderParser& whole, const ProxyHeaderParser& cut) {
  std::fprintf(stderr, "whole and pieces differ in %s\n  whole: %s\n  cut:   %s\n", what, whole.error(), cut.error());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first bytes (up to 4) say how to cut; the rest is the input.
  const std::size_t cut_bytes = 1 + data[0] % 4 < size ? 1 + data[0] % 4 : size;
  const std::string_view cuts(reinterpret_cast<const char*>(data), cut_bytes);
  const std::string_view input(reinterpret_cast<const char*>(data) + cut_bytes, size - cut_bytes);

  ProxyHeaderParser whole_parser;
  const Run whole = feed(whole_parser, input, {});
  ProxyHeaderParser cut_parser;
  const Run cut = feed(cut_parser, input, cuts);
  if (whole.status != cut.status) differ("status", whole_parser, cut_parser);
  if (whole.used != cut.used) differ("bytes used", whole_parser, cut_parser);
  if (whole.status == ProxyHeaderParser::Status::error && std::strcmp(whole_parser.error(), cut_parser.error()) != 0) {
    differ("error message", whole_parser, cut_parser);
  }
  if (whole.status == ProxyHeaderParser::Status::done) {
    if (!same(whole_parser.header(), cut_parser.header())) differ("header", whole_parser, cut_parser);
    if (whole.used > input.size() || whole.used != whole_parser.consumed()) differ("consumed", whole_parser, cut_parser);
    if (whole_parser.header().version == 1 && whole.used > ProxyHeaderParser::kMaxV1Bytes) {
      differ("v1 length", whole_parser, cut_parser);
    }
    // What follows the header is never taken: feeding more changes nothing.
    if (whole_parser.feed(input).used != 0) differ("after done", whole_parser, cut_parser);
  }
  if (whole.status == ProxyHeaderParser::Status::need_more && whole.used != input.size()) {
    differ("need_more used", whole_parser, cut_parser);
  }
  return 0;
}
