// SelfDependencyScanner: frame headers followed across reads, PRIORITY payloads read.
#include "server/http2/self_dependency_scanner.hpp"

#include <algorithm>
#include <cstring>

namespace tiffany::http2 {
namespace {

constexpr unsigned char kPriority = 0x2;

std::uint32_t big_endian(const unsigned char* bytes, std::size_t size) noexcept {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < size; ++i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

std::size_t SelfDependencyScanner::scan(std::string_view bytes, std::int32_t& stream) noexcept {
  stream = 0;
  std::size_t at = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  while (at < bytes.size()) {
    const std::size_t left = bytes.size() - at;
    if (preface_left_ > 0) {
      const std::size_t taken = std::min(preface_left_, left);
      preface_left_ -= taken;
      at += taken;
      continue;
    }
    if (!in_payload_) {
      const std::size_t taken = std::min(kHeaderSize - header_have_, left);
      std::memcpy(header_ + header_have_, data + at, taken);
      header_have_ += taken;
      at += taken;
      if (header_have_ < kHeaderSize) continue;
      header_have_ = 0;
      payload_left_ = big_endian(header_, 3);
      // Why only five bytes long: another length is a FRAME_SIZE_ERROR nghttp2 answers itself.
      priority_ = header_[3] == kPriority && payload_left_ == kPrioritySize;
      dependency_have_ = 0;
      frame_stream_ = static_cast<std::int32_t>(big_endian(header_ + 5, 4) & 0x7fffffffU);
      in_payload_ = payload_left_ > 0;
      continue;
    }
    const std::size_t taken = std::min(payload_left_, left);
    if (priority_) {
      std::memcpy(dependency_ + dependency_have_, data + at, taken);
      dependency_have_ += taken;
    }
    payload_left_ -= taken;
    at += taken;
    if (payload_left_ > 0) continue;
    in_payload_ = false;
    if (priority_ && frame_stream_ != 0 &&
        static_cast<std::int32_t>(big_endian(dependency_, 4) & 0x7fffffffU) == frame_stream_) {
      stream = frame_stream_;
      return at;
    }
  }
  return bytes.size();
}

}  // namespace tiffany::http2
