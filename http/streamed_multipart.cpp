// StreamedMultipart: MultipartReader's need_more answered by reading the body.
#include <tiffany/http/streamed_multipart.hpp>

#include <tiffany/http/media_type.hpp>
#include <tiffany/http/request.hpp>

namespace tiffany::http {

StreamedMultipart::StreamedMultipart(BodyReader& body, std::string_view boundary, const MultipartLimits& limits)
    : body_(&body), reader_(boundary, limits) {}

std::optional<StreamedMultipart> StreamedMultipart::of(Request& request, const MultipartLimits& limits) {
  const std::string_view content_type = request.headers.get("Content-Type").value_or("");
  if (!media_type_is(content_type, "multipart/form-data")) return std::nullopt;
  const std::optional<std::string> boundary = multipart_boundary(content_type);
  if (!boundary) return std::nullopt;
  return StreamedMultipart(request.body_reader(), *boundary, limits);
}

Task<MultipartReader::Event> StreamedMultipart::next() {
  for (;;) {
    const MultipartReader::Event event = reader_.next();
    if (event != MultipartReader::Event::need_more) co_return event;
    // Why the piece may be fed as a view: the reader uses it up before it
    // asks for more, and only then is the body read again.
    const BodyChunk chunk = co_await body_->read();
    body_status_ = chunk.status;
    if (chunk) {
      reader_.feed(chunk.bytes);
    } else if (chunk.failed()) {
      error_ = "the body did not arrive whole";
      co_return MultipartReader::Event::error;
    } else {
      reader_.finish();
    }
  }
}

}  // namespace tiffany::http
