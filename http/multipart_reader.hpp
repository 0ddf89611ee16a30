// MultipartReader: multipart/form-data parsed as it arrives, piece by piece, in bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <tiffany/http/multipart.hpp>

namespace tiffany::http {

/// An incremental multipart parser (RFC 2046 §5.1, RFC 7578), pulled event
/// by event so a coroutine can `co_await` between them (write a part's bytes
/// to a file, say). Whatever the parts' sizes, it holds one part's header
/// fields and at most a delimiter's worth of bytes split across two pieces:
/// part bodies go through as views into the pieces fed. Strict as
/// parse_multipart (which is built on it): CRLF line ends, a closing
/// delimiter required; the preamble and the epilogue are skipped.
///
///   MultipartReader reader(boundary);
///   for (;;) {
///     switch (reader.next()) {
///       case MultipartReader::Event::part: /* reader.part(): its headers, name, filename */ break;
///       case MultipartReader::Event::data: /* reader.data(): the next bytes of its body */ break;
///       case MultipartReader::Event::part_end: break;
///       case MultipartReader::Event::need_more:
///         if (/* the body has more */) reader.feed(piece); else reader.finish();
///         break;
///       case MultipartReader::Event::done: return;  // the closing delimiter
///       case MultipartReader::Event::error: /* reader.error() */ return;
///     }
///   }
///
/// Lifetime: a piece handed to feed() must stay valid until next() asks for
/// more (need_more) or ends; data() and part() are valid until the next call
/// of next(). Not thread-safe.
class MultipartReader {
 public:
  enum class Event {
    part,       ///< a part's header section was read: part(); data() is empty, where its body begins
    data,       ///< data(): the next bytes of the current part's body (never empty)
    part_end,   ///< the current part's body ended
    need_more,  ///< every byte fed is used: feed() the next piece, or finish()
    done,       ///< the closing delimiter was read; what follows is ignored
    error,      ///< error() says why; final
  };

  /// The longest run of spaces and tabs allowed between a delimiter and its
  /// CRLF (transport padding), so that bytes held across pieces stay bounded.
  static constexpr std::size_t kMaxPadding = 1024;

  explicit MultipartReader(std::string_view boundary, const MultipartLimits& limits = {});

  /// Hands over the next piece of the body (only after need_more).
  void feed(std::string_view piece);
  /// Says the body has ended (only after need_more): next() then reports
  /// done, or an error if the closing delimiter never came.
  void finish() noexcept { finished_ = true; }
  /// The next event.
  Event next();

  const MultipartPart& part() const noexcept { return part_; }
  std::string_view data() const noexcept { return data_; }
  const std::string& error() const noexcept { return error_; }
  /// Bytes it holds across pieces now: at most a delimiter plus kMaxPadding
  /// plus 2 while a body streams, and one part's header section while that arrives.
  std::size_t held_bytes() const noexcept { return carry_.size(); }

 private:
  enum class State { preamble, headers, body, epilogue, failed };
  // What follows a delimiter's boundary text.
  enum class Delimiter { closing, next_part, not_one, incomplete };

  Delimiter classify_delimiter(std::size_t at, std::size_t& end) const noexcept;
  // Acts on the delimiter found at input_[at]; `in_body`: it ends a part.
  bool take_delimiter(std::size_t at, Event& event);
  bool read_header_line();
  Event need_more();
  Event fail(std::string why);
  // How many bytes at the end of input_ could begin a delimiter.
  std::size_t partial_delimiter_at_end() const noexcept;

  std::string delimiter_;  // CRLF "--" boundary
  MultipartLimits limits_;
  State state_ = State::preamble;
  std::string_view input_;       // the piece fed, or carry_
  std::string carry_;            // unused bytes kept across pieces (bounded)
  std::size_t consumed_ = 0;     // input_ bytes already used
  std::size_t search_from_ = 0;  // where to look for the next delimiter
  bool at_body_start_ = true;    // nothing consumed yet: the first delimiter may lack its CRLF
  bool finished_ = false;
  std::size_t parts_ = 0;
  std::size_t header_bytes_ = 0;  // of the current part's header section
  MultipartPart part_;
  std::string_view data_;
  std::string error_;
};

}  // namespace tiffany::http
