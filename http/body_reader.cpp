// BodyReader: a streamed body from its source, or a whole body as one piece.
#include <tiffany/http/body_reader.hpp>

namespace tiffany::http {

Task<BodyChunk> BodyReader::read() {
  if (source_ != nullptr) return source_->read_body();
  return read_whole();
}

Task<BodyChunk> BodyReader::read_whole() {
  // Why a flag and not an offset: the body is one piece, handed over once.
  if (whole_given_ || whole_ == nullptr || whole_->empty()) {
    whole_given_ = true;
    co_return BodyChunk(BodyStatus::end);
  }
  whole_given_ = true;
  co_return BodyChunk(BodyStatus::data, *whole_);
}

}  // namespace tiffany::http
