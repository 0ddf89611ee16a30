// ScriptedBody: a request body delivered in pieces to a streaming handler under test (SDK test kit).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include <tiffany/http/body_reader.hpp>

namespace tiffany::testkit {

/// A BodySource that hands a handler its body as the given pieces, as the
/// server would for a streaming route, then the end (or a failure):
///
///   testkit::ScriptedBody body({"hello ", "world"});
///   http::Request request = RequestBuilder("POST", "/upload").build();
///   request.body_reader().attach(&body);
///   auto outcome = harness.run(*handler, request);
///   EXPECT_TRUE(body.finished());
///
/// RequestBuilder::body_in_pieces does this for PluginHarness::run. Each
/// read waits `gap` of virtual time first (none by default), so timers and
/// timeouts of the handler can be tested against a slow client.
/// Threads: the harness's one; keep it alive while the handler runs.
class ScriptedBody final : public http::BodySource {
 public:
  /// `ending`: what follows the last piece: BodyStatus::end, or a failure
  /// such as too_large (which the server would answer with 413).
  explicit ScriptedBody(std::vector<std::string> pieces, http::BodyStatus ending = http::BodyStatus::end,
                        std::chrono::milliseconds gap = std::chrono::milliseconds(0));

  Task<http::BodyChunk> read_body() override;

  /// How many reads the handler made.
  std::size_t reads() const noexcept { return reads_; }
  /// Pieces handed out so far.
  std::size_t pieces_read() const noexcept { return next_; }
  /// True once the handler read past the last piece (saw the end or the failure).
  bool finished() const noexcept { return finished_; }

 private:
  std::vector<std::string> pieces_;
  http::BodyStatus ending_;
  std::chrono::milliseconds gap_;
  std::size_t next_ = 0;
  std::size_t reads_ = 0;
  bool finished_ = false;
};

}  // namespace tiffany::testkit
