// Resolver against a DNS responder on 127.0.0.1, on both reactor backends: A
// and AAAA answers, the TTL cache and the negative cache, NXDOMAIN, a silent
// server's timeout, a lookup canceled in flight, concurrent askers sharing
// one lookup, /etc/hosts and literals.
#include <tiffany/net/resolver.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/syscalls.hpp>
#include <tiffany/coro/task_canceled.hpp>

#include "support/dns_responder.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany {
namespace {

using namespace std::chrono_literals;
using testing::DnsResponder;

std::vector<std::string> hosts_of(const ResolveResult& result) {
  std::vector<std::string> hosts;
  for (const SocketAddress& address : result.addresses()) hosts.push_back(address.host());
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

class ResolverTest : public ReactorTest {
 protected:
  void SetUp() override {
    ReactorTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_TRUE(responder_.ready());
  }

  ResolverOptions options() {
    ResolverOptions options;
    options.servers = {responder_.server()};
    options.attempt_timeout = 300ms;
    options.tries = 1;
    options.clock = [this] { return now_; };
    return options;
  }

  // Runs one lookup to its end on the test's scheduler.
  ResolveResult resolve(Resolver& resolver, const std::string& host) {
    std::optional<ResolveResult> result;
    auto lookup = [](Resolver& r, std::string name, std::optional<ResolveResult>& out) -> Task<void> {
      out.emplace(co_await r.resolve(std::move(name)));
    };
    (void)scheduler().spawn(lookup(resolver, host, result));
    scheduler().run();
    if (!result) return ResolveError{ResolveErrorKind::other, "the lookup did not finish"};
    return *std::move(result);
  }

  DnsResponder responder_;
  Scheduler::Clock::time_point now_ = Scheduler::Clock::time_point(1h);
};

INSTANTIATE_TEST_SUITE_P(Backends, ResolverTest, all_backends(), backend_name);

TEST_P(ResolverTest, ReturnsTheAAndAaaaAnswers) {
  responder_.add("both.test", {{"192.0.2.1", "192.0.2.2"}, {"2001:db8::1"}, 60});
  Resolver resolver(options());
  const ResolveResult result = resolve(resolver, "both.test");
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(hosts_of(result), (std::vector<std::string>{"192.0.2.1", "192.0.2.2", "2001:db8::1"}));
  EXPECT_EQ(responder_.queries("both.test", 1), 1);
  EXPECT_EQ(responder_.queries("both.test", 28), 1);
}

TEST_P(ResolverTest, AnIpv4OnlyNameHasOnlyIpv4Addresses) {
  responder_.add("four.test", {{"192.0.2.4"}, {}, 60});
  Resolver resolver(options());
  const ResolveResult result = resolve(resolver, "Four.Test");
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(hosts_of(result), (std::vector<std::string>{"192.0.2.4"}));
}

TEST_P(ResolverTest, AnswersAreCachedForTheirTtlAndAskedAgainAfter) {
  responder_.add("cached.test", {{"192.0.2.7"}, {}, 30});
  Resolver resolver(options());
  ASSERT_TRUE(resolve(resolver, "cached.test"));
  ASSERT_EQ(responder_.queries("cached.test", 1), 1);
  now_ += 29s;
  const ResolveResult again = resolve(resolver, "CACHED.test.");  // the same name: case and the root dot aside
  ASSERT_TRUE(again);
  EXPECT_EQ(hosts_of(again), (std::vector<std::string>{"192.0.2.7"}));
  EXPECT_EQ(responder_.queries("cached.test", 1), 1) << "the second lookup reached the server";
  now_ += 2s;  // past the TTL
  ASSERT_TRUE(resolve(resolver, "cached.test"));
  EXPECT_EQ(responder_.queries("cached.test", 1), 2);
}

TEST_P(ResolverTest, ConcurrentLookupsOfOneNameShareItsQueries) {
  responder_.add("shared.test", {{"192.0.2.8"}, {}, 60});
  Resolver resolver(options());
  std::vector<std::optional<ResolveResult>> results(3);
  auto lookup = [](Resolver& r, std::optional<ResolveResult>& out) -> Task<void> {
    out.emplace(co_await r.resolve("shared.test"));
  };
  for (auto& result : results) (void)scheduler().spawn(lookup(resolver, result));
  scheduler().run();
  for (const auto& result : results) {
    ASSERT_TRUE(result && *result);
    EXPECT_EQ(hosts_of(*result), (std::vector<std::string>{"192.0.2.8"}));
  }
  EXPECT_EQ(responder_.queries("shared.test", 1), 1) << "each asker sent its own query";
}

TEST_P(ResolverTest, NxdomainIsNotFoundAndRememberedBriefly) {
  ResolverOptions settings = options();
  settings.negative_ttl = 5s;
  Resolver resolver(settings);
  const ResolveResult missing = resolve(resolver, "missing.test");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ResolveErrorKind::not_found);
  EXPECT_NE(missing.error().message.find("\"missing.test\""), std::string::npos) << missing.error().message;
  const int asked = responder_.queries("missing.test");
  ASSERT_GT(asked, 0);
  EXPECT_FALSE(resolve(resolver, "missing.test"));
  EXPECT_EQ(responder_.queries("missing.test"), asked) << "a remembered failure asked again";
  now_ += 6s;
  EXPECT_FALSE(resolve(resolver, "missing.test"));
  EXPECT_GT(responder_.queries("missing.test"), asked);
}

TEST_P(ResolverTest, ASilentServerGivesATimeoutError) {
  responder_.set_silent(true);
  Resolver resolver(options());
  const auto start = std::chrono::steady_clock::now();
  const ResolveResult result = resolve(resolver, "silent.test");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ResolveErrorKind::timeout) << result.error().message;
  EXPECT_GT(responder_.queries("silent.test"), 0);
  EXPECT_LT(took, 3s);
}

TEST_P(ResolverTest, ACanceledLookupLeavesTheResolverWorking) {
  responder_.set_silent(true);
  auto resolver = std::make_unique<Resolver>(options());
  bool canceled = false;
  auto lookup = [](Resolver& r, bool& out) -> Task<void> {
    try {
      (void)co_await r.resolve("slow.test");
    } catch (const TaskCanceled&) {
      out = true;
      throw;
    }
  };
  auto handle = scheduler().spawn(lookup(*resolver, canceled));
  auto canceler = [](JoinHandle<void>& target) -> Task<void> {
    co_await Sleep{20ms};  // the query is on the wire, unanswered
    target.cancel();
  };
  (void)scheduler().spawn(canceler(handle));
  scheduler().run();  // ends once c-ares has given up on the abandoned query too
  EXPECT_TRUE(canceled);
  EXPECT_EQ(scheduler().state(handle.tid()), TaskState::canceled);
  EXPECT_GT(responder_.queries("slow.test"), 0);

  responder_.set_silent(false);
  responder_.add("after.test", {{"192.0.2.9"}, {}, 60});
  const ResolveResult after = resolve(*resolver, "after.test");
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_EQ(hosts_of(after), (std::vector<std::string>{"192.0.2.9"}));
}

TEST_P(ResolverTest, DestroyingTheResolverWhileALookupIsCanceledIsSafe) {
  responder_.set_silent(true);
  auto resolver = std::make_unique<Resolver>(options());
  auto lookup = [](Resolver& r) -> Task<void> { (void)co_await r.resolve("gone.test"); };
  auto handle = scheduler().spawn(lookup(*resolver));
  auto canceler = [](JoinHandle<void>& target, std::unique_ptr<Resolver>& owner) -> Task<void> {
    co_await Sleep{20ms};
    target.cancel();
    co_await Sleep{1ms};
    owner.reset();  // the query is still pending in c-ares; its driver keeps the channel alive
  };
  (void)scheduler().spawn(canceler(handle, resolver));
  scheduler().run();
  EXPECT_EQ(resolver, nullptr);
  EXPECT_EQ(scheduler().state(handle.tid()), TaskState::canceled);
}

TEST_P(ResolverTest, LocalhostComesFromTheHostsFile) {
  responder_.set_silent(true);  // DNS would time out: the answer must come from /etc/hosts
  Resolver resolver(options());
  const ResolveResult result = resolve(resolver, "localhost");
  ASSERT_TRUE(result) << result.error().message;
  const std::vector<std::string> hosts = hosts_of(result);
  EXPECT_NE(std::find(hosts.begin(), hosts.end(), "127.0.0.1"), hosts.end());
  EXPECT_EQ(responder_.queries("localhost"), 0);
}

TEST_P(ResolverTest, NumericLiteralsSkipTheServer) {
  Resolver resolver(options());
  EXPECT_EQ(hosts_of(resolve(resolver, "127.0.0.1")), (std::vector<std::string>{"127.0.0.1"}));
  EXPECT_EQ(hosts_of(resolve(resolver, "::1")), (std::vector<std::string>{"::1"}));
  EXPECT_EQ(hosts_of(resolve(resolver, "[2001:db8::5]")), (std::vector<std::string>{"2001:db8::5"}));
  EXPECT_EQ(responder_.queries("127.0.0.1"), 0);
}

TEST_P(ResolverTest, ABadNameIsRefusedWithTheReason) {
  Resolver resolver(options());
  const std::vector<std::string> names = {"", "bad name.test", "a..b", std::string(64, 'x') + ".test"};
  for (const std::string& name : names) {
    const ResolveResult result = resolve(resolver, name);
    ASSERT_FALSE(result) << name;
    EXPECT_EQ(result.error().kind, ResolveErrorKind::bad_name) << name;
    EXPECT_NE(result.error().message.find("\"" + name + "\""), std::string::npos) << result.error().message;
  }
}

TEST(ResolverOptionsTest, ABadServerAddressIsRefusedAtConstruction) {
  ResolverOptions options;
  options.servers = {"not an address"};
  EXPECT_THROW(Resolver{options}, std::runtime_error);
}

}  // namespace
}  // namespace tiffany
