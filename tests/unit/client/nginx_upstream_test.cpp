// HttpClient against a real nginx on loopback (started by the test, in the
// foreground, single process): a large sized body over one kept-alive
// connection (nginx's $connection stays the same), HEAD, and a 404.
#include <tiffany/client/http_client.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/nginx_peer.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using Result = ClientResult<ClientResponse>;

class NginxUpstreamTest : public ReactorTest {};

INSTANTIATE_TEST_SUITE_P(Backends, NginxUpstreamTest, all_backends(), backend_name);

TEST_P(NginxUpstreamTest, ABigBodyHeadAnd404OverOneKeptAliveConnection) {
  testing::NginxPeer nginx;
  ASSERT_TRUE(nginx.running()) << nginx.log();
  std::ofstream(nginx.root() + "/big.txt") << std::string(300 * 1024, 'n');
  std::vector<Result> replies;
  run([&]() -> Task<void> {
    HttpClient client;
    for (int i = 0; i < 5; ++i) replies.push_back(co_await client.get(nginx.url("/big.txt")));
    ClientRequest head;
    head.method = "HEAD";
    head.url = nginx.url("/big.txt");
    replies.push_back(co_await client.fetch(std::move(head)));
    replies.push_back(co_await client.get(nginx.url("/missing")));
  });
  ASSERT_EQ(replies.size(), 7u);
  for (Result& reply : replies) ASSERT_TRUE(reply) << reply.error().message;
  const std::string connection(replies[0]->headers.get("X-Connection").value_or("none"));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(replies[i]->status, 200);
    EXPECT_EQ(replies[i]->body, std::string(300 * 1024, 'n'));
  }
  for (Result& reply : replies) EXPECT_EQ(reply->headers.get("X-Connection").value_or(""), connection);
  EXPECT_EQ(replies[5]->headers.get("Content-Length").value_or(""), std::to_string(300 * 1024));
  EXPECT_EQ(replies[5]->body, "");
  EXPECT_EQ(replies[6]->status, 404);
}

}  // namespace
}  // namespace tiffany
