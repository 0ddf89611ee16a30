// redirect(): statuses, percent-encoded Location, and the Status enum.
#include <gtest/gtest.h>

#include <tiffany/http/redirect.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

TEST(Redirect, SetsStatusAndAPercentEncodedLocation) {
  Response response;
  response.body = "old";
  redirect(response, "/files/a b/ü?q=1 2#top", Status::see_other);
  EXPECT_EQ(response.status, 303);
  EXPECT_EQ(response.headers.get("Location"), "/files/a%20b/%C3%BC?q=1%202#top");
  EXPECT_TRUE(response.body.empty());
}

TEST(Redirect, KeepsValidEscapesAndEncodesBrokenOnesAndControls) {
  std::string out;
  append_encoded_location("/a%2Fb/%zz/%4\r\nSet-Cookie:x", out);
  EXPECT_EQ(out, "/a%2Fb/%25zz/%254%0D%0ASet-Cookie:x");
}

TEST(Redirect, UsesEachRedirectStatusAndRefusesOthers) {
  for (const Status status : {Status::moved_permanently, Status::found, Status::see_other,
                              Status::temporary_redirect, Status::permanent_redirect}) {
    Response response;
    redirect(response, "https://example.com/", status);
    EXPECT_EQ(response.status, to_int(status));
    EXPECT_EQ(response.headers.get("Location"), "https://example.com/");
  }
  Response response;
  EXPECT_EQ((redirect(response, "/x"), response.status), 302);  // the default
  EXPECT_THROW(redirect(response, "/x", Status::ok), std::invalid_argument);
  EXPECT_THROW(redirect(response, "", Status::found), std::invalid_argument);
}

TEST(StatusEnum, NamesCodesWithTheirReasonPhrases) {
  Response response;
  response.set_status(Status::not_found);
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(reason_phrase(Status::too_many_requests), "Too Many Requests");
  EXPECT_EQ(to_int(Status::permanent_redirect), 308);
}

}  // namespace
}  // namespace tiffany::http
