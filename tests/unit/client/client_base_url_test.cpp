// HttpClient's base_url (paths alone go to one origin, parsed once) and a
// request's own timeouts (ClientRequest::timeouts over the client's).
#include <tiffany/client/http_client.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "support/loopback_socket.hpp"
#include "unit/client/scripted_upstream.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::ok_reply;
using testing::ScriptedUpstream;
using testing::UpstreamReply;
using testing::UpstreamRequest;
using Result = ClientResult<ClientResponse>;

class ClientBaseUrlTest : public ReactorTest {};

INSTANTIATE_TEST_SUITE_P(Backends, ClientBaseUrlTest, all_backends(), backend_name);

HttpClientOptions with_base(const std::string& base_url) {
  HttpClientOptions options;
  options.base_url = base_url;
  return options;
}

TEST_P(ClientBaseUrlTest, APathAloneGoesToTheBaseOriginWithItsHost) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return ok_reply("based"); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client(with_base(upstream.url()));
    got.emplace(co_await client.get("/a/b?c=1#fragment"));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  EXPECT_EQ((*got)->body, "based");
  ASSERT_EQ(upstream.received().size(), 1u);
  const std::string head = upstream.received()[0].head;
  const std::string expected = "GET /a/b?c=1 HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(upstream.port()) + "\r\n";
  EXPECT_EQ(head.rfind(expected, 0), 0u) << head;
}

TEST_P(ClientBaseUrlTest, AbsoluteUrlsStillGoWhereTheySay) {
  ScriptedUpstream base([](const UpstreamRequest&) { return ok_reply("base"); });
  ScriptedUpstream other([](const UpstreamRequest&) { return ok_reply("other"); });
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client(with_base(base.url()));
    got.emplace(co_await client.get(other.url("/x")));
  });
  ASSERT_TRUE(got && *got) << got->error().message;
  EXPECT_EQ((*got)->body, "other");
  EXPECT_TRUE(base.received().empty());
}

TEST_P(ClientBaseUrlTest, ErrorsNameTheBaseOrigin) {
  int port = 0;
  {
    testing::LoopbackSocket bound(false);  // bound, then closed: nobody listens there
    port = bound.port();
  }
  std::optional<Result> got;
  run([&]() -> Task<void> {
    HttpClient client(with_base("http://127.0.0.1:" + std::to_string(port)));
    got.emplace(co_await client.get("/down"));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::connect);
  EXPECT_NE(got->error().message.find("GET http://127.0.0.1:" + std::to_string(port) + "/down"), std::string::npos)
      << got->error().message;
}

TEST(ClientBaseUrl, ABadBaseUrlIsRefusedWhenTheClientIsMade) {
  for (const char* bad : {"ftp://example.com", "http://", "example.com:80", "http://a:99999"}) {
    EXPECT_THROW(HttpClient(with_base(bad)), std::invalid_argument) << bad;
  }
}

TEST_P(ClientBaseUrlTest, ARequestsOwnTimeoutsReplaceTheClients) {
  ScriptedUpstream upstream([](const UpstreamRequest&) { return UpstreamReply{"", false, true}; });
  std::optional<Result> got;
  const auto started = std::chrono::steady_clock::now();
  run([&]() -> Task<void> {
    HttpClientOptions options;
    options.timeouts.first_byte = 60s;
    HttpClient client(options);
    ClientRequest request;
    request.url = upstream.url();
    request.timeouts = options.timeouts;
    request.timeouts->first_byte = 100ms;
    got.emplace(co_await client.fetch(std::move(request)));
  });
  ASSERT_FALSE(*got);
  EXPECT_EQ(got->error().kind, ClientErrorKind::timeout);
  EXPECT_EQ(got->error().stage, ClientStage::first_byte) << got->error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
}

}  // namespace
}  // namespace tiffany
