// negotiate_coding: RFC 9110 §12.5.3 q-values, identity, "*", server preference on ties, garbage as absent.
#include "http/engine/compression/accept_encoding.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tiffany::http {
namespace {

const std::vector<Coding> kServerOrder{Coding::br, Coding::zstd, Coding::gzip};

Coding choose(std::vector<std::string> values, const std::vector<Coding>& offered = kServerOrder) {
  Headers headers;
  headers.add("Host", "t");
  for (const std::string& value : values) headers.add("Accept-Encoding", value);
  return negotiate_coding(headers, offered);
}

Coding choose(const std::string& value) { return choose(std::vector<std::string>{value}); }

TEST(AcceptEncoding, NoFieldMeansIdentity) { EXPECT_EQ(choose(std::vector<std::string>{}), Coding::identity); }

TEST(AcceptEncoding, AnEmptyFieldMeansIdentityOnly) { EXPECT_EQ(choose(""), Coding::identity); }

TEST(AcceptEncoding, TheServersPreferenceBreaksTies) {
  EXPECT_EQ(choose("gzip, br"), Coding::br);
  EXPECT_EQ(choose("gzip, zstd"), Coding::zstd);
  EXPECT_EQ(choose("gzip, deflate, br, zstd"), Coding::br);  // curl --compressed
  EXPECT_EQ(choose(std::vector<std::string>{"gzip, br"}, {Coding::gzip, Coding::br}), Coding::gzip);
}

TEST(AcceptEncoding, HigherQValuesWinOverServerPreference) {
  EXPECT_EQ(choose("br;q=0.5, gzip"), Coding::gzip);
  EXPECT_EQ(choose("br;q=0.5, gzip;q=0.501"), Coding::gzip);
  EXPECT_EQ(choose("br;q=1.0, gzip;q=0.999"), Coding::br);
  EXPECT_EQ(choose("gzip ; q=0.2 , zstd;Q=0.3"), Coding::zstd);
}

TEST(AcceptEncoding, ZeroRefusesACoding) {
  EXPECT_EQ(choose("br;q=0, gzip"), Coding::gzip);
  EXPECT_EQ(choose("br;q=0.000, zstd;q=0, gzip;q=0"), Coding::identity);
}

TEST(AcceptEncoding, StarCoversUnlistedCodings) {
  EXPECT_EQ(choose("*"), Coding::br);
  EXPECT_EQ(choose("br;q=0, *"), Coding::zstd);
  EXPECT_EQ(choose("*;q=0, gzip"), Coding::gzip);
  EXPECT_EQ(choose("*;q=0"), Coding::identity);
}

TEST(AcceptEncoding, IdentityWinsOnlyWithAStrictlyHigherQ) {
  EXPECT_EQ(choose("identity, gzip"), Coding::gzip);
  EXPECT_EQ(choose("identity;q=1, gzip;q=0.5"), Coding::identity);
  EXPECT_EQ(choose("*;q=0.9, gzip;q=0.5"), Coding::br);  // "*" rates br and zstd 0.9; br is offered first
  EXPECT_EQ(choose("gzip;q=0.5"), Coding::gzip);  // identity not rated: no competition
}

TEST(AcceptEncoding, IdentityRefusedAndNothingElseAcceptableStillGetsIdentity) {
  EXPECT_EQ(choose("identity;q=0"), Coding::identity);
  EXPECT_EQ(choose("identity;q=0, deflate"), Coding::identity);
}

TEST(AcceptEncoding, NamesAreCaseInsensitiveAndXGzipIsGzip) {
  EXPECT_EQ(choose("GZIP"), Coding::gzip);
  EXPECT_EQ(choose("x-gzip"), Coding::gzip);
  EXPECT_EQ(choose("Br"), Coding::br);
}

TEST(AcceptEncoding, UnknownCodingsAndEmptyElementsAreIgnored) {
  EXPECT_EQ(choose("deflate, compress"), Coding::identity);
  EXPECT_EQ(choose(" , ,gzip,, "), Coding::gzip);
}

TEST(AcceptEncoding, SeveralFieldsAreOneList) {
  EXPECT_EQ(choose(std::vector<std::string>{"gzip", "br"}), Coding::br);
  EXPECT_EQ(choose(std::vector<std::string>{"br;q=0.1", "gzip"}), Coding::gzip);
}

TEST(AcceptEncoding, GarbageIsTreatedAsAbsent) {
  for (const std::string garbage : {"gzip;q=2", "gzip;q=1.5", "gzip;q=0.1234", "gzip;q=", "gzip;level=9", "gzip;q=x",
                                    "gzip br", "@gzip", ";q=1", "gzip;", "gzip;q=.5", "br\x01", "gzip;q=1.01"}) {
    EXPECT_EQ(choose(garbage), Coding::identity) << garbage;
  }
  // A bad field spoils the whole list, even beside a good one.
  EXPECT_EQ(choose(std::vector<std::string>{"gzip", "br;q=9"}), Coding::identity);
}

TEST(AcceptEncoding, NothingOfferedMeansIdentity) { EXPECT_EQ(choose({"gzip, br"}, {}), Coding::identity); }

}  // namespace
}  // namespace tiffany::http
