// libFuzzer target for the outbound client's ResponseParser: the input's
// first byte says which responses answer HEAD (bits 0-5) and whether an
// upgrade was asked (bit 7); the rest is what a server sent. Fed whole, fed
// in pieces cut by the input's own bytes, and in pieces with every sized
// body's bytes taken past the parser as the proxy's splice does
// (skip_sized_body), the events must be the same;
// a completed sized body must hold exactly Content-Length bytes, a body
// event must lie inside the bytes fed, and nothing may follow an error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/engine/response_parser.hpp"

namespace {

using namespace tiffany::http;
using Event = ResponseParser::Event;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Record {
  Event event = Event::need_more;
  int status = 0;
  BodyFraming framing = BodyFraming::none;
  std::uint64_t content_length = 0;
  bool keep_alive = false;
  ResponseParser::ErrorKind error = ResponseParser::ErrorKind::none;
  std::string body;     // the body bytes before this event (joined: splits may cut them differently)
  std::string message;  // the error's message: printed when the runs differ, not compared

  bool operator==(const Record& other) const {
    return event == other.event && status == other.status && framing == other.framing &&
           content_length == other.content_length && keep_alive == other.keep_alive && error == other.error &&
           body == other.body;
  }
};

class Run {
 public:
  // `splices`: a sized body's bytes go past the parser, which is told how many (the proxy's splice).
  Run(std::uint8_t flags, bool splices) : flags_(flags), splices_(splices), parser_(limits()) {
    parser_.expect(expected(0));
  }

  static ResponseLimits limits() {
    ResponseLimits limits;
    limits.max_header_bytes = 2048;
    limits.max_header_count = 16;
    limits.max_trailer_bytes = 512;
    limits.max_trailer_count = 4;
    limits.max_chunk_extension_bytes = 64;
    limits.max_interim_responses = 4;
    return limits;
  }

  // Returns false once the parser has failed.
  bool feed(std::string_view input) {
    for (;;) {
      if (splices_ && parser_.sized_body_left() > 0 && !input.empty()) {
        const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(parser_.sized_body_left(), input.size()));
        const auto skipped = parser_.skip_sized_body(count);
        body_.append(input.substr(0, count));  // what the splice moved: the body's own bytes
        body_total_ += count;
        input.remove_prefix(count);
        check(skipped.event == Event::complete || (skipped.event == Event::need_more && parser_.sized_body_left() > 0));
        if (skipped.event == Event::complete && !record(skipped.event)) return false;
        continue;
      }
      const auto result = parser_.feed(input);
      check(result.consumed <= input.size());
      if (result.event == Event::body) {
        check(!result.body.empty());
        check(result.body.data() >= input.data() &&
              result.body.data() + result.body.size() <= input.data() + input.size());
        body_.append(result.body);
        body_total_ += result.body.size();
      }
      input.remove_prefix(result.consumed);
      if (result.event == Event::need_more) {
        check(input.empty());
        return true;
      }
      if (result.event != Event::body && !record(result.event)) return false;
    }
  }

  void finish() {
    if (!failed_) record(parser_.finish().event);
  }

  const std::vector<Record>& records() const { return records_; }

 private:
  ExpectedResponse expected(std::size_t index) const {
    ExpectedResponse expected;
    expected.head_request = index < 6 && (flags_ >> index & 1) != 0;
    expected.upgrade = (flags_ & 0x80) != 0;
    return expected;
  }

  bool record(Event event) {
    Record r;
    r.event = event;
    r.body.swap(body_);
    const ResponseHead& head = parser_.head();
    switch (event) {
      case Event::interim:
        check(head.status >= 100 && head.status < 200 && r.body.empty());
        r.status = head.status;
        break;
      case Event::headers:
        check(r.body.empty());
        r.status = head.status;
        r.framing = head.framing;
        r.content_length = head.content_length;
        framing_ = head.framing;
        content_length_ = head.content_length;
        body_total_ = 0;
        break;
      case Event::complete:
        r.keep_alive = parser_.keep_alive();
        // A complete sized body is exactly its Content-Length; a bodiless response has none.
        if (framing_ == BodyFraming::content_length) check(body_total_ == content_length_);
        if (framing_ == BodyFraming::none) check(body_total_ == 0);
        if (framing_ == BodyFraming::until_eof) check(!r.keep_alive);
        parser_.expect(expected(++responses_));
        break;
      case Event::error:
        r.error = parser_.error_kind();
        check(r.error != ResponseParser::ErrorKind::none && !parser_.error_message().empty());
        r.message = parser_.error_message();
        // Nothing after an error.
        check(parser_.feed("HTTP/1.1 200 OK\r\n\r\n").event == Event::error);
        check(parser_.finish().event == Event::error);
        failed_ = true;
        break;
      default: break;
    }
    records_.push_back(std::move(r));
    return !failed_;
  }

  std::uint8_t flags_;
  bool splices_;
  ResponseParser parser_;
  std::vector<Record> records_;
  std::string body_;
  std::size_t responses_ = 0;
  BodyFraming framing_ = BodyFraming::none;
  std::uint64_t content_length_ = 0;
  std::uint64_t body_total_ = 0;
  bool failed_ = false;
};

// Feeds `stream` in pieces of 1 to 16 bytes, sized by the stream's own bytes;
// each piece a fresh copy freed after use, so a span kept too long shows under ASan.
void feed_in_pieces(Run& run, std::string_view stream) {
  bool ok = true;
  for (std::size_t offset = 0, turn = 0; ok && offset < stream.size(); ++turn) {
    const std::size_t length = std::min<std::size_t>(stream.size() - offset, (stream[turn % stream.size()] & 15) + 1);
    const std::string piece(stream.substr(offset, length));
    ok = run.feed(piece);
    offset += length;
  }
  if (ok) run.finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);

  Run whole(flags, false);
  if (whole.feed(stream)) whole.finish();
  Run split(flags, false);
  feed_in_pieces(split, stream);
  Run spliced(flags, true);
  feed_in_pieces(spliced, stream);

  for (const Run* other : {&split, &spliced}) {
    if (whole.records() == other->records()) continue;
    // The two transcripts, to see where they part.
    for (const Run* run : {static_cast<const Run*>(&whole), other}) {
      std::fprintf(stderr, "%s:", run == &whole ? "whole" : run == &split ? "split" : "spliced");
      for (const Record& r : run->records()) {
        std::fprintf(stderr, " [event %d status %d framing %d error %d body %zu%s%s]", static_cast<int>(r.event),
                     r.status, static_cast<int>(r.framing), static_cast<int>(r.error), r.body.size(),
                     r.message.empty() ? "" : ": ", r.message.c_str());
      }
      std::fprintf(stderr, "\n");
    }
    std::abort();
  }
  return 0;
}
