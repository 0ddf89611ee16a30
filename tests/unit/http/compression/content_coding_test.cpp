// Encoders (round trips through the libraries' decoders, flushed pieces) and ResponseCompression's rules.
#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>

#include "http/engine/compression/response_compression.hpp"
#include "http/internal/compression/encoder_pool.hpp"
#include "support/decode_content.hpp"

namespace tiffany::http {
namespace {

using testing::decode_content;
using testing::decode_prefix;

std::string compressible(std::size_t size) {
  std::string text;
  for (int line = 0; text.size() < size; ++line) {
    text += "<li>item " + std::to_string(line) + ": the quick brown fox jumps over the lazy dog</li>\n";
  }
  text.resize(size);
  return text;
}

std::string random_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  std::mt19937 rng(7);
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

class EachCoding : public ::testing::TestWithParam<Coding> {};

TEST_P(EachCoding, AWholeBodyRoundTripsAndShrinks) {
  const Coding coding = GetParam();
  const std::string body = compressible(64 * 1024);
  std::string encoded;
  encode_whole(coding, CompressionSettings{}.level(coding), body, encoded);
  EXPECT_LT(encoded.size(), body.size() / 4);
  EXPECT_EQ(decode_content(coding_name(coding), encoded), body);
}

TEST_P(EachCoding, EmptyAndIncompressibleBodiesRoundTrip) {
  const Coding coding = GetParam();
  for (const std::string& body : {std::string(), random_bytes(1024 * 1024)}) {
    std::string encoded;
    encode_whole(coding, CompressionSettings{}.level(coding), body, encoded);
    EXPECT_EQ(decode_content(coding_name(coding), encoded), body) << body.size();
  }
}

TEST_P(EachCoding, EveryFlushedPieceIsDecodableBeforeTheStreamEnds) {
  const Coding coding = GetParam();
  PooledEncoder encoder = PooledEncoder::acquire(coding, CompressionSettings{}.level(coding), Encoder::kUnknownSize);
  std::string wire;
  std::string sent;
  for (int piece = 0; piece < 5; ++piece) {
    const std::string text = compressible(1000 + piece * 3000) + std::to_string(piece);
    encoder->encode(text, false, wire);
    sent += text;
    EXPECT_EQ(decode_prefix(coding_name(coding), wire), sent) << "after piece " << piece;
    EXPECT_FALSE(decode_content(coding_name(coding), wire)) << "the stream must not have ended yet";
  }
  encoder->encode({}, true, wire);
  EXPECT_EQ(decode_content(coding_name(coding), wire), sent);
}

// nginx's gzip filter picks the window and hash by the body's length; with
// the same choice the bytes are nginx's (and a small state is cheap to reset).
// The sizes alternate, so the pooled encoder restarts and is reused in turn.
TEST(GzipEncoder, AWholeBodyGetsNginxsWindowForItsLengthAndTheSameBytes) {
  for (const std::size_t size : {10, 200, 300, 700, 1500, 5000, 9000, 20000, 70000, 200, 70000}) {
    const std::string body = compressible(size);
    std::string ours;
    encode_whole(Coding::gzip, 5, body, ours);
    int window_bits = 15;
    int mem_level = 8;
    while (window_bits > 9 && static_cast<long>(size) < (1L << (window_bits - 1)) - 262) {
      --window_bits;
      --mem_level;
    }
    z_stream stream{};
    ASSERT_EQ(deflateInit2(&stream, 5, Z_DEFLATED, window_bits + 16, mem_level, Z_DEFAULT_STRATEGY), Z_OK);
    std::string theirs(deflateBound(&stream, size), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
    stream.avail_in = static_cast<uInt>(body.size());
    stream.next_out = reinterpret_cast<Bytef*>(theirs.data());
    stream.avail_out = static_cast<uInt>(theirs.size());
    ASSERT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
    theirs.resize(stream.total_out);
    deflateEnd(&stream);
    EXPECT_EQ(ours, theirs) << size << " bytes: window 2^" << window_bits;
    EXPECT_EQ(decode_content("gzip", ours), body) << size;
  }
}

TEST_P(EachCoding, APooledEncoderIsReusedForTheNextStream) {
  const Coding coding = GetParam();
  const std::string first = compressible(5000);
  const std::string second = "another body, " + compressible(7000);
  std::string one;
  std::string two;
  encode_whole(coding, 1, first, one);   // a different level than the next: restarted, not mixed up
  encode_whole(coding, CompressionSettings{}.level(coding), second, two);
  EXPECT_EQ(decode_content(coding_name(coding), one), first);
  EXPECT_EQ(decode_content(coding_name(coding), two), second);
}

INSTANTIATE_TEST_SUITE_P(Codings, EachCoding, ::testing::Values(Coding::gzip, Coding::br, Coding::zstd),
                         [](const ::testing::TestParamInfo<Coding>& param) { return std::string(coding_name(param.param)); });

// ---- ResponseCompression ----

class ResponseCompressionTest : public ::testing::Test {
 protected:
  ResponseCompressionTest() {
    settings_.min_bytes = 100;
    request_.method = "GET";
  }
  void accept(const std::string& codings) { request_.headers.add("Accept-Encoding", codings); }
  Response text_response(std::size_t size, const std::string& type = "text/html; charset=utf-8") {
    Response response;
    response.headers.add("Content-Type", type);
    response.headers.add("ETag", "\"v1\"");
    response.headers.add("Accept-Ranges", "bytes");
    response.body = compressible(size);
    return response;
  }
  static int count(const Response& response, std::string_view name) {
    int n = 0;
    for (const auto& field : response.headers) n += iequals(field.name, name) ? 1 : 0;
    return n;
  }

  CompressionSettings settings_;
  Request request_;
  ResponseCompression compression_;
};

TEST_F(ResponseCompressionTest, AnEligibleBodyIsEncodedAndLabelled) {
  accept("gzip, br");
  compression_.begin(&settings_, request_);
  Response response = text_response(5000);
  const std::string original = response.body;
  EXPECT_TRUE(compression_.apply_whole(response, false));
  EXPECT_EQ(response.headers.get("Content-Encoding"), "br");
  EXPECT_EQ(response.headers.get("Vary"), "Accept-Encoding");
  EXPECT_EQ(response.headers.get("ETag"), "\"v1-br\"");
  EXPECT_FALSE(response.headers.contains("Accept-Ranges"));
  EXPECT_EQ(decode_content("br", response.body), original);
}

TEST_F(ResponseCompressionTest, WeakETagsKeepTheirPrefix) {
  accept("gzip");
  compression_.begin(&settings_, request_);
  Response response = text_response(5000);
  response.headers.set("ETag", "W/\"v1\"");
  compression_.apply_whole(response, false);
  EXPECT_EQ(response.headers.get("ETag"), "W/\"v1-gzip\"");
}

TEST_F(ResponseCompressionTest, AClientThatAcceptsNoCodingGetsTheBodyAsItIsWithVary) {
  compression_.begin(&settings_, request_);
  Response response = text_response(5000);
  const std::string original = response.body;
  EXPECT_FALSE(compression_.apply_whole(response, false));
  EXPECT_EQ(response.body, original);
  EXPECT_EQ(response.headers.get("Vary"), "Accept-Encoding");
  EXPECT_FALSE(response.headers.contains("Content-Encoding"));
  EXPECT_EQ(response.headers.get("ETag"), "\"v1\"");
}

TEST_F(ResponseCompressionTest, ResponsesThatAreNotEligibleAreUntouched) {
  accept("gzip");
  struct Case {
    const char* why;
    void (*change)(Response&);
  };
  const Case cases[] = {
      {"under min_bytes", [](Response& r) { r.body.resize(99); }},
      {"type not listed", [](Response& r) { r.headers.set("Content-Type", "image/png"); }},
      {"no type", [](Response& r) { r.headers.remove("Content-Type"); }},
      {"already encoded", [](Response& r) { r.headers.add("Content-Encoding", "gzip"); }},
      {"206", [](Response& r) { r.status = 206; }},
      {"a range", [](Response& r) { r.headers.add("Content-Range", "bytes 0-9/100"); }},
      {"204", [](Response& r) { r.status = 204; }},
      {"no-transform", [](Response& r) { r.headers.add("Cache-Control", "public, No-Transform"); }},
      {"301", [](Response& r) { r.status = 301; }},
  };
  for (const Case& c : cases) {
    compression_.begin(&settings_, request_);
    Response response = text_response(5000);
    c.change(response);
    const std::string body = response.body;
    const std::size_t fields = response.headers.size();
    EXPECT_FALSE(compression_.apply_whole(response, false)) << c.why;
    EXPECT_EQ(response.body, body) << c.why;
    EXPECT_EQ(response.headers.size(), fields) << c.why;  // no Vary, no Content-Encoding
  }
}

TEST_F(ResponseCompressionTest, ARouteWithoutSettingsIsUntouched) {
  accept("gzip");
  compression_.begin(nullptr, request_);
  Response response = text_response(5000);
  const std::size_t fields = response.headers.size();
  EXPECT_FALSE(compression_.apply_whole(response, false));
  EXPECT_EQ(response.headers.size(), fields);
}

TEST_F(ResponseCompressionTest, HeadGetsTheHeadersOfGetButTheBodyIsNotEncoded) {
  accept("zstd");
  request_.method = "HEAD";
  compression_.begin(&settings_, request_);
  Response response = text_response(5000);
  const std::string original = response.body;
  EXPECT_TRUE(compression_.apply_whole(response, true));
  EXPECT_EQ(response.body, original);  // never sent; not worth encoding
  EXPECT_EQ(response.headers.get("Content-Encoding"), "zstd");
  EXPECT_EQ(response.headers.get("Vary"), "Accept-Encoding");
  EXPECT_EQ(response.headers.get("ETag"), "\"v1-zstd\"");
}

TEST_F(ResponseCompressionTest, TheHandlerSeesItsOwnETagAndA304GetsTheEncodedOneBack) {
  accept("gzip");
  request_.headers.add("If-None-Match", "\"v0\", \"v1-gzip\"");
  compression_.begin(&settings_, request_);
  EXPECT_EQ(request_.headers.get("If-None-Match"), "\"v0\", \"v1\"");
  Response not_modified;
  not_modified.status = 304;
  not_modified.headers.add("ETag", "\"v1\"");
  EXPECT_FALSE(compression_.apply_whole(not_modified, false));
  EXPECT_EQ(not_modified.headers.get("ETag"), "\"v1-gzip\"");
  EXPECT_EQ(not_modified.headers.get("Vary"), "Accept-Encoding");
}

TEST_F(ResponseCompressionTest, AnotherCodingsTagIsNotRewritten) {
  accept("gzip");
  request_.headers.add("If-None-Match", "\"v1-br\"");
  compression_.begin(&settings_, request_);
  EXPECT_EQ(request_.headers.get("If-None-Match"), "\"v1-br\"");  // a br tag must not match the gzip answer
  Response not_modified;
  not_modified.status = 304;
  not_modified.headers.add("ETag", "\"v1\"");
  compression_.apply_whole(not_modified, false);
  EXPECT_EQ(not_modified.headers.get("ETag"), "\"v1\"");
}

TEST_F(ResponseCompressionTest, AStreamIsEncodedPieceByPiece) {
  accept("gzip");
  compression_.begin(&settings_, request_);
  Response response = text_response(0);
  response.set_content_length(12000);  // a declared length is dropped: the encoded length differs
  ASSERT_TRUE(compression_.start_stream(response, false));
  ASSERT_TRUE(compression_.streaming());
  EXPECT_EQ(response.headers.get("Content-Encoding"), "gzip");
  std::string wire;
  std::string sent;
  for (int i = 0; i < 3; ++i) {
    const std::string piece = compressible(4000);
    sent += piece;
    wire += compression_.encode_piece(piece);
    EXPECT_EQ(decode_prefix("gzip", wire), sent);
  }
  wire += compression_.finish_stream();
  EXPECT_FALSE(compression_.streaming());
  EXPECT_EQ(decode_content("gzip", wire), sent);
}

TEST_F(ResponseCompressionTest, AStreamOfUnknownLengthIsCompressedWhateverItsSize) {
  accept("br");
  compression_.begin(&settings_, request_);
  Response response = text_response(0);
  EXPECT_TRUE(compression_.start_stream(response, false));
  compression_.end();
}

TEST(CompressionSettings, TypesMatchByTypeOrWholeMediaTypeIgnoringParametersAndCase) {
  const CompressionSettings settings;
  EXPECT_TRUE(settings.compresses_type("text/html"));
  EXPECT_TRUE(settings.compresses_type("Text/CSS; charset=utf-8"));
  EXPECT_TRUE(settings.compresses_type("application/json"));
  EXPECT_TRUE(settings.compresses_type(" application/json ;charset=utf-8"));
  EXPECT_FALSE(settings.compresses_type("application/jsonx"));
  EXPECT_FALSE(settings.compresses_type("image/png"));
  EXPECT_FALSE(settings.compresses_type("text"));
  EXPECT_FALSE(settings.compresses_type("textual/plain"));
  EXPECT_FALSE(settings.compresses_type(""));
}

}  // namespace
}  // namespace tiffany::http
