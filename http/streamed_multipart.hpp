// StreamedMultipart: a multipart body parsed as it is read from a BodyReader (uploads in bounded memory).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <tiffany/coro/task.hpp>
#include <tiffany/http/body_reader.hpp>
#include <tiffany/http/multipart_reader.hpp>

namespace tiffany::http {

struct Request;

/// MultipartReader fed from a request's BodyReader: next() reads the body
/// whenever the parser needs more, so a streaming handler takes
/// multipart/form-data uploads part by part, holding at most a delimiter's
/// worth of bytes between pieces (MultipartReader::held_bytes):
///
///   std::optional<http::StreamedMultipart> form = http::StreamedMultipart::of(request);
///   if (!form) { response.status = 415; co_return; }
///   for (;;) {
///     const auto event = co_await form->next();
///     if (event == http::MultipartReader::Event::data) file.write(form->data());
///     else if (event == http::MultipartReader::Event::done) break;
///     else if (event == http::MultipartReader::Event::error) co_return;  // form->error()
///   }
///
/// Lifetime: `body` (and the request) must outlive it; data() and part()
/// are valid until the next call of next(). One next() at a time.
class StreamedMultipart {
 public:
  StreamedMultipart(BodyReader& body, std::string_view boundary, const MultipartLimits& limits = {});
  /// For `request`'s body when its Content-Type is multipart/form-data with
  /// a valid boundary; nullopt otherwise (answer 415 or 400).
  static std::optional<StreamedMultipart> of(Request& request, const MultipartLimits& limits = {});

  /// The next event: part, data, part_end, done or error; never need_more
  /// (it reads the body instead). done comes at the closing delimiter: what
  /// follows it (an epilogue) is not read, and the server drops it after the
  /// response. After error, error() says why, and
  /// body_status() tells a body that failed to arrive (BodyChunk::failed)
  /// from a malformed one.
  Task<MultipartReader::Event> next();

  const MultipartPart& part() const noexcept { return reader_.part(); }
  std::string_view data() const noexcept { return reader_.data(); }
  const std::string& error() const noexcept { return error_.empty() ? reader_.error() : error_; }
  /// How the last read of the body ended: data while it goes on, end once read whole, or a failure.
  BodyStatus body_status() const noexcept { return body_status_; }
  /// Bytes the parser holds across pieces now.
  std::size_t held_bytes() const noexcept { return reader_.held_bytes(); }

 private:
  BodyReader* body_;
  MultipartReader reader_;
  BodyStatus body_status_ = BodyStatus::data;
  std::string error_;
};

}  // namespace tiffany::http
