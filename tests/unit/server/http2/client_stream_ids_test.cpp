// ClientStreamIds: which header blocks on streams nghttp2 does not hold are connection errors.
#include <gtest/gtest.h>

#include "server/http2/client_stream_ids.hpp"

namespace tiffany::http2 {
namespace {

using Verdict = ClientStreamIds::Verdict;

TEST(ClientStreamIds, NewStreamsGoOnWhateverTheirGaps) {
  ClientStreamIds ids;
  EXPECT_EQ(ids.headers_begin(1, false), Verdict::go_on);
  EXPECT_EQ(ids.headers_begin(3, false), Verdict::go_on);
  EXPECT_EQ(ids.headers_begin(9, false), Verdict::go_on);
}

TEST(ClientStreamIds, AFinishedStreamIsClosedWhenNoIdWasSkipped) {
  ClientStreamIds ids;
  (void)ids.headers_begin(1, false);
  (void)ids.headers_begin(3, false);
  EXPECT_EQ(ids.headers_begin(1, false), Verdict::stream_closed);
  EXPECT_EQ(ids.headers_begin(3, false), Verdict::stream_closed);
}

TEST(ClientStreamIds, AnIdBelowTheHighestAfterAGapIsAProtocolError) {
  ClientStreamIds ids;
  (void)ids.headers_begin(5, false);
  EXPECT_EQ(ids.headers_begin(3, false), Verdict::protocol_error);  // never opened
  EXPECT_EQ(ids.headers_begin(5, false), Verdict::stream_closed);   // the highest was opened
}

TEST(ClientStreamIds, OpenStreamsCarryTrailers) {
  ClientStreamIds ids;
  (void)ids.headers_begin(1, false);
  EXPECT_EQ(ids.headers_begin(1, true), Verdict::go_on);
}

TEST(ClientStreamIds, StreamsWeResetAreIgnoredForTheLastResets) {
  ClientStreamIds ids;
  const auto last = 2 * static_cast<std::int32_t>(ClientStreamIds::kRememberedResets) + 1;
  for (std::int32_t id = 1; id <= last; id += 2) {
    (void)ids.headers_begin(id, false);
    ids.reset_sent(id);
  }
  // The first of kRememberedResets + 1 resets is forgotten; the others are remembered.
  EXPECT_EQ(ids.headers_begin(1, false), Verdict::stream_closed);
  EXPECT_EQ(ids.headers_begin(3, false), Verdict::go_on);
  EXPECT_EQ(ids.headers_begin(last, false), Verdict::go_on);
}

TEST(ClientStreamIds, EvenIdsAndZeroAreLeftToNghttp2) {
  ClientStreamIds ids;
  (void)ids.headers_begin(7, false);
  EXPECT_EQ(ids.headers_begin(0, false), Verdict::go_on);
  EXPECT_EQ(ids.headers_begin(2, false), Verdict::go_on);
}

}  // namespace
}  // namespace tiffany::http2
