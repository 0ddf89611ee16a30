// UpstreamGroup: smooth weighted round robin, least_conn, consistent hash, backups and next-upstream exclusion.
#include "client/upstream/upstream_group.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "client/upstream/hash_key.hpp"

namespace tiffany::upstream {
namespace {

using std::chrono::milliseconds;
const TimePoint t0{};

UpstreamConfig group(std::vector<std::pair<int, bool>> weights_and_backup, UpstreamBalance balance = UpstreamBalance::round_robin) {
  UpstreamConfig config;
  config.name = "app";
  config.balance = balance;
  config.max_fails = 1;
  config.fail_timeout_ms = 1000;
  int port = 9000;
  for (auto [weight, backup] : weights_and_backup) {
    UpstreamServerConfig server;
    server.host = "10.0.0.1";
    server.port = static_cast<std::uint16_t>(++port);
    server.weight = weight;
    server.backup = backup;
    config.servers.push_back(server);
  }
  return config;
}

std::string sequence(UpstreamGroup& g, int n, TimePoint now = t0) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    const auto picked = g.pick("", {}, now);
    out += picked ? static_cast<char>('a' + *picked) : '-';
  }
  return out;
}

TEST(UpstreamGroup, SmoothWeightedRoundRobinInterleavesAsNginx) {
  UpstreamGroup g(group({{5, false}, {1, false}, {1, false}}));
  EXPECT_EQ(sequence(g, 14), "aabacaaaabacaa");
}

TEST(UpstreamGroup, RoundRobinSkipsDownServersAndUsesBackupsOnlyWhenAllPrimariesAreDown) {
  UpstreamGroup g(group({{1, false}, {1, false}, {1, true}}));
  EXPECT_EQ(sequence(g, 4), "abab");
  g.begin(0, t0);
  g.end(0, Outcome::failure, t0);  // max_fails 1: a is down for 1 s
  EXPECT_EQ(g.state(0, t0), ServerState::down_passive);
  EXPECT_EQ(sequence(g, 3), "bbb");
  g.begin(1, t0);
  g.end(1, Outcome::failure, t0);
  EXPECT_EQ(sequence(g, 2), "cc");
  EXPECT_EQ(g.probe_result(2, false), HealthChange::marked_down);  // rise/fall 1 without a health block
  EXPECT_EQ(sequence(g, 3), "aba") << "all down: tried anyway, primaries first, rather than none";
}

TEST(UpstreamGroup, AGroupOfOneIgnoresMaxFails) {
  UpstreamGroup g(group({{1, false}}));
  for (int i = 0; i < 5; ++i) {
    g.begin(0, t0);
    EXPECT_EQ(g.end(0, Outcome::failure, t0), HealthChange::none);
  }
  EXPECT_EQ(g.state(0, t0), ServerState::up) << "nginx ignores max_fails for a single server";
  EXPECT_EQ(g.pick("", {}, t0), 0u);
  UpstreamGroup with_backup(group({{1, false}, {1, true}}));
  with_backup.begin(0, t0);
  EXPECT_EQ(with_backup.end(0, Outcome::failure, t0), HealthChange::marked_down) << "a backup makes two";
}

TEST(UpstreamGroup, WhenEveryServerIsDownTheyAreTriedAnywayUntriedFirst) {
  UpstreamGroup g(group({{1, false}, {1, false}}));
  for (std::size_t i = 0; i < 2; ++i) {
    g.begin(i, t0);
    EXPECT_EQ(g.end(i, Outcome::failure, t0), HealthChange::marked_down);
  }
  const std::size_t tried[] = {0};
  EXPECT_EQ(g.pick("", tried, t0), 1u) << "a retry still goes to another server";
  const std::size_t both[] = {0, 1};
  EXPECT_TRUE(g.pick("", both, t0).has_value());
  g.begin(1, t0);
  EXPECT_EQ(g.end(1, Outcome::success, t0), HealthChange::came_back);
  EXPECT_EQ(sequence(g, 3), "bbb") << "one back: the other is skipped again";
}

TEST(UpstreamGroup, NextUpstreamNeverRepeatsAServerWhileOthersAreAvailable) {
  UpstreamGroup g(group({{1, false}, {1, false}, {1, false}}));
  std::vector<std::size_t> tried;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto picked = g.pick("", tried, t0);
    ASSERT_TRUE(picked);
    EXPECT_EQ(std::count(tried.begin(), tried.end(), *picked), 0);
    tried.push_back(*picked);
  }
  EXPECT_TRUE(g.pick("", tried, t0).has_value()) << "every server tried: one is tried again rather than none";
}

TEST(UpstreamGroup, LeastConnPicksFewestPerWeightAndRotatesTies) {
  UpstreamGroup g(group({{1, false}, {1, false}, {2, false}}, UpstreamBalance::least_conn));
  EXPECT_EQ(sequence(g, 3), "abc") << "ties go round, not always to the first";
  g.begin(0, t0);
  g.begin(1, t0);
  g.begin(2, t0);
  g.begin(2, t0);  // a:1/1 b:1/1 c:2/2: all tie
  g.begin(0, t0);  // a:2/1
  const auto picked = g.pick("", {}, t0);
  ASSERT_TRUE(picked);
  EXPECT_NE(*picked, 0u);
  g.begin(1, t0);  // b:2/1, c:2/2=1 is the fewest per weight
  EXPECT_EQ(g.pick("", {}, t0), 2u);
  EXPECT_EQ(g.active_requests(2), 2u);
  g.end(2, Outcome::success, t0);
  EXPECT_EQ(g.active_requests(2), 1u);
}

std::map<std::string, std::size_t> assign(UpstreamGroup& g, int keys) {
  std::map<std::string, std::size_t> out;
  for (int k = 0; k < keys; ++k) {
    const std::string key = "client-" + std::to_string(k);
    out[key] = *g.pick(key, {}, t0);
  }
  return out;
}

TEST(UpstreamGroup, HashIsStableAndSpreadsByWeight) {
  UpstreamGroup g(group({{1, false}, {1, false}, {2, false}}, UpstreamBalance::hash));
  const auto first = assign(g, 10'000);
  EXPECT_EQ(first, assign(g, 10'000));
  int counts[3] = {};
  for (const auto& [key, server] : first) ++counts[server];
  EXPECT_NEAR(counts[0], 2500, 400);
  EXPECT_NEAR(counts[1], 2500, 400);
  EXPECT_NEAR(counts[2], 5000, 500);
}

TEST(UpstreamGroup, HashMovesOnlyADownServersKeysAndTheyComeBack) {
  UpstreamGroup g(group({{1, false}, {1, false}, {1, false}, {1, false}}, UpstreamBalance::hash));
  const auto before = assign(g, 10'000);
  g.begin(1, t0);
  g.end(1, Outcome::failure, t0);
  const auto during = assign(g, 10'000);
  for (const auto& [key, server] : before) {
    if (server != 1) EXPECT_EQ(during.at(key), server) << key;
    else EXPECT_NE(during.at(key), 1u) << key;
  }
  // fail_timeout over: the probe request succeeds and server 1 takes its keys back.
  const TimePoint later = t0 + milliseconds(1000);
  EXPECT_EQ(g.state(1, later), ServerState::probing);
  g.begin(1, later);
  g.end(1, Outcome::success, later);
  for (const auto& [key, server] : assign(g, 10'000)) EXPECT_EQ(before.at(key), server) << key;
}

TEST(UpstreamGroup, HashAddingAServerMovesAboutOneNthOfKeys) {
  UpstreamGroup four(group({{1, false}, {1, false}, {1, false}, {1, false}}, UpstreamBalance::hash));
  UpstreamGroup five(group({{1, false}, {1, false}, {1, false}, {1, false}, {1, false}}, UpstreamBalance::hash));
  const auto before = assign(four, 10'000);
  const auto after = assign(five, 10'000);
  int moved = 0;
  for (const auto& [key, server] : before) {
    if (after.at(key) != server) {
      ++moved;
      EXPECT_EQ(after.at(key), 4u) << "a key moves only to the new server";
    }
  }
  EXPECT_NEAR(moved, 2000, 400);  // 1/5 of the keys
}

TEST(UpstreamGroup, HashUsesBackupsWhenEveryPrimaryIsDown) {
  UpstreamGroup g(group({{1, false}, {1, true}}, UpstreamBalance::hash));
  EXPECT_EQ(g.pick("k", {}, t0), 0u);
  g.begin(0, t0);
  g.end(0, Outcome::failure, t0);
  EXPECT_EQ(g.pick("k", {}, t0), 1u);
}

TEST(UpstreamGroup, HashKeyComesFromTheConfiguredPartOfTheRequestAndEmptyGoesRoundRobin) {
  UpstreamConfig config = group({{1, false}, {1, false}}, UpstreamBalance::hash);
  http::Headers headers;
  headers.add("x-user", "alice");
  EXPECT_EQ(hash_key(config, "192.0.2.1", "/p?q=1", headers), "192.0.2.1");
  config.hash_key = UpstreamHashKey::path;
  EXPECT_EQ(hash_key(config, "192.0.2.1", "/p?q=1", headers), "/p");
  config.hash_key = UpstreamHashKey::header;
  config.hash_header = "X-User";
  EXPECT_EQ(hash_key(config, "192.0.2.1", "/p", headers), "alice");
  EXPECT_EQ(hash_key(config, "192.0.2.1", "/p", http::Headers{}), "");
  config.balance = UpstreamBalance::round_robin;
  EXPECT_EQ(hash_key(config, "192.0.2.1", "/p", headers), "");
  UpstreamGroup g(group({{1, false}, {1, false}}, UpstreamBalance::hash));
  EXPECT_EQ(sequence(g, 4), "abab") << "no key: round robin, not one server";
}

}  // namespace
}  // namespace tiffany::upstream
