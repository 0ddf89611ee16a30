// StreamedMultipart: a multipart body read from a BodyReader in pieces gives its parts, in bounded memory.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/http/multipart.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/streamed_multipart.hpp>

namespace tiffany::http {
namespace {

// The body as fixed-size pieces, then `ending`.
class Pieces final : public BodySource {
 public:
  Pieces(std::string body, std::size_t size, BodyStatus ending = BodyStatus::end)
      : body_(std::move(body)), size_(size), ending_(ending) {}
  Task<BodyChunk> read_body() override {
    // Why a yield per read, as a socket read waits: a source that never
    // suspends nests each read in the last, past ASan's stack for small pieces.
    co_await Yield{};
    if (at_ >= body_.size()) co_return BodyChunk(ending_);
    const std::string_view piece = std::string_view(body_).substr(at_, size_);
    at_ += piece.size();
    co_return BodyChunk(BodyStatus::data, piece);
  }

 private:
  std::string body_;
  std::size_t size_;
  BodyStatus ending_;
  std::size_t at_ = 0;
};

struct Seen {
  std::vector<std::string> parts;  // "name=body"
  std::string error;
  BodyStatus body_status = BodyStatus::data;
  std::size_t most_held = 0;
};

Task<void> collect(StreamedMultipart& form, Seen& seen) {
  for (;;) {
    const MultipartReader::Event event = co_await form.next();
    seen.most_held = std::max(seen.most_held, form.held_bytes());
    if (event == MultipartReader::Event::part) seen.parts.push_back(form.part().name + "=");
    if (event == MultipartReader::Event::data) seen.parts.back() += form.data();
    if (event == MultipartReader::Event::done) break;
    if (event == MultipartReader::Event::error) {
      seen.error = form.error();
      break;
    }
  }
  seen.body_status = form.body_status();
}

Seen read_form(Request& request) {
  Seen seen;
  std::optional<StreamedMultipart> form = StreamedMultipart::of(request);
  if (!form) {
    seen.error = "not multipart";
    return seen;
  }
  Scheduler scheduler;
  auto done = scheduler.spawn(collect(*form, seen));
  scheduler.run();
  done.take_result();
  return seen;
}

std::string form_body(const std::string& big) {
  return "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\npear\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\n"
         "Content-Type: image/jpeg\r\n\r\n" +
         big + "\r\n--XyZ--\r\n";
}

TEST(StreamedMultipart, PartsReadInAnyPieceSizeAreTheWholeParsersParts) {
  const std::string big(20000, 'j');
  for (const std::size_t size : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{1} << 20}) {
    Request request;
    request.headers.add("Content-Type", "multipart/form-data; boundary=XyZ");
    Pieces body(form_body(big), size);
    request.body_reader().attach(&body);
    const Seen seen = read_form(request);
    ASSERT_EQ(seen.error, "") << size;
    ASSERT_EQ(seen.parts.size(), 2u);
    EXPECT_EQ(seen.parts[0], "title=pear");
    EXPECT_EQ(seen.parts[1], "photo=" + big);
    EXPECT_FALSE(BodyChunk(seen.body_status).failed());  // done at the closing delimiter; what follows is not read
    EXPECT_LT(seen.most_held, 64u + MultipartReader::kMaxPadding) << size;  // never the 20 KB part
  }
}

TEST(StreamedMultipart, ABodyThatFailsToArriveIsAnErrorThatSaysSo) {
  Request request;
  request.headers.add("Content-Type", "multipart/form-data; boundary=XyZ");
  Pieces body(form_body("abc").substr(0, 40), 16, BodyStatus::too_large);
  request.body_reader().attach(&body);
  const Seen seen = read_form(request);
  EXPECT_EQ(seen.error, "the body did not arrive whole");
  EXPECT_EQ(seen.body_status, BodyStatus::too_large);
}

TEST(StreamedMultipart, ABodyCutBeforeItsClosingDelimiterIsMalformed) {
  Request request;
  request.headers.add("Content-Type", "multipart/form-data; boundary=XyZ");
  Pieces body(form_body("abc").substr(0, 60), 16);
  request.body_reader().attach(&body);
  const Seen seen = read_form(request);
  EXPECT_NE(seen.error, "");
  EXPECT_EQ(seen.body_status, BodyStatus::end);
}

TEST(StreamedMultipart, AWholeBodyIsReadAsOnePieceAndOtherTypesAreRefused) {
  Request request;
  request.headers.add("Content-Type", "multipart/form-data; boundary=XyZ");
  request.body = form_body("whole");
  const Seen seen = read_form(request);
  ASSERT_EQ(seen.parts.size(), 2u);
  EXPECT_EQ(seen.parts[1], "photo=whole");
  Request text;
  text.headers.add("Content-Type", "text/plain");
  EXPECT_EQ(read_form(text).error, "not multipart");
}

}  // namespace
}  // namespace tiffany::http
