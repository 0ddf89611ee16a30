// Config loading: a valid file, and one precise message per kind of mistake.
#include "conf/config_loader.hpp"

#include <gtest/gtest.h>

#include <string>

#include <tiffany/handlers/log_level.hpp>

#include "conf/config_error.hpp"
#include "unit/conf/config_error_for.hpp"

namespace tiffany {
namespace {

TEST(ConfigLoader, AcceptsTheDocumentedShape) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "echo", "address": "127.0.0.1:7000", "protocol": "echo"},
      {"name": "echo6", "address": "[::1]:7001", "protocol": "echo"}]})",
                                     "test.json");
  EXPECT_EQ(config.file, "test.json");
  ASSERT_EQ(config.listeners.size(), 2u);
  EXPECT_EQ(config.listeners[0].name, "echo");
  EXPECT_EQ(config.listeners[0].address.port, 7000);
  EXPECT_EQ(config.listeners[0].protocol, Protocol::echo);
  EXPECT_EQ(config.listeners[0].json_path, "$.listeners[0]");
  EXPECT_TRUE(config.listeners[1].address.ipv6);
}

TEST(ConfigLoader, ReadsSchedulerAndOffloadSettings) {
  const Config config = parse_config(R"({"offload_threads": 3,
      "scheduler": {"policy": "priority", "max_resumes_between_polls": 16, "slow_task_warning_ms": 0,
                    "trace_events": 128},
      "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "test.json");
  EXPECT_EQ(config.offload_threads, 3u);
  EXPECT_TRUE(config.scheduler.priority_policy);
  EXPECT_EQ(config.scheduler.max_resumes_between_polls, 16u);
  EXPECT_EQ(config.scheduler.slow_task_warning_ms, 0);
  EXPECT_EQ(config.scheduler.trace_events, 128u);
}

TEST(ConfigLoader, ReadsTheDrainDelayAndTheUserToRunAs) {
  const Config defaults = parse_config(R"({"listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                       "test.json");
  EXPECT_EQ(defaults.drain_delay_ms, 0);
  EXPECT_EQ(defaults.user, "");
  EXPECT_EQ(defaults.group, "");
  const Config config = parse_config(R"({"drain_delay_ms": 5000, "user": "www-data", "group": "adm",
      "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "test.json");
  EXPECT_EQ(config.drain_delay_ms, 5000);
  EXPECT_EQ(config.user, "www-data");
  EXPECT_EQ(config.group, "adm");
}

// As h2o and Caddy do: h2 by ALPN and h2c by prior knowledge unless a listener says otherwise.
TEST(ConfigLoader, Http2IsOnByDefaultAndOffWhenAListenerSaysSo) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "a", "address": "127.0.0.1:0", "protocol": "http", "routes": []},
      {"name": "b", "address": "127.0.0.1:0", "protocol": "http", "routes": [], "http2": {"enabled": false}},
      {"name": "c", "address": "127.0.0.1:0", "protocol": "http", "routes": [], "http2": {"max_concurrent_streams": 8}},
      {"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "test.json");
  ASSERT_EQ(config.listeners.size(), 4u);
  EXPECT_TRUE(config.listeners[0].http2.enabled);
  EXPECT_FALSE(config.listeners[1].http2.enabled);
  EXPECT_TRUE(config.listeners[2].http2.enabled);
  EXPECT_EQ(config.listeners[2].http2.max_concurrent_streams, 8u);
  EXPECT_FALSE(config.listeners[3].http2.enabled);
}

TEST(ConfigLoader, ReadsHttpLimitsWithAHundredHeaderFieldsByDefault) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "a", "address": "127.0.0.1:0", "protocol": "http", "routes": []},
      {"name": "b", "address": "127.0.0.1:0", "protocol": "http", "routes": [],
       "limits": {"max_header_bytes": 1048576, "max_header_count": 50000, "max_uri_bytes": 64,
                  "max_body_bytes": 0}}]})",
                                     "test.json");
  EXPECT_EQ(config.listeners[0].limits.max_header_count, 100u);
  EXPECT_EQ(config.listeners[0].limits.max_header_bytes, 16u * 1024);
  EXPECT_EQ(config.listeners[1].limits.max_header_count, 50'000u);
  EXPECT_EQ(config.listeners[1].limits.max_header_bytes, 1024u * 1024);
  EXPECT_EQ(config.listeners[1].limits.max_uri_bytes, 64u);
  EXPECT_EQ(config.listeners[1].limits.max_body_bytes, 0u);
}

TEST(ConfigLoader, ReadsHttpTimeoutsWithABodyBudgetAndLingeringByDefault) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "a", "address": "127.0.0.1:0", "protocol": "http", "routes": []},
      {"name": "b", "address": "127.0.0.1:0", "protocol": "http", "routes": [],
       "timeouts": {"body_ms": 5000, "body_total_ms": 0, "linger_ms": 0, "linger_read_ms": 300},
       "limits": {"max_linger_bytes": 0}}]})",
                                     "test.json");
  EXPECT_EQ(config.listeners[0].timeouts.body_ms, 60'000);
  EXPECT_EQ(config.listeners[0].timeouts.body_total_ms, 300'000);
  EXPECT_EQ(config.listeners[1].timeouts.body_ms, 5000);
  EXPECT_EQ(config.listeners[1].timeouts.body_total_ms, 0);  // off: only the per-read body_ms
  EXPECT_EQ(config.listeners[0].timeouts.linger_ms, 5000);
  EXPECT_EQ(config.listeners[0].timeouts.linger_read_ms, 2000);
  EXPECT_EQ(config.listeners[0].limits.max_linger_bytes, 64u * 1024 * 1024);
  EXPECT_EQ(config.listeners[1].timeouts.linger_ms, 0);  // close at once after an error
  EXPECT_EQ(config.listeners[1].timeouts.linger_read_ms, 300);
  EXPECT_EQ(config.listeners[1].limits.max_linger_bytes, 0u);
}

TEST(ConfigLoader, ReadsConnectionLimitsOnAnyListenerWithNoneByDefault) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "a", "address": "127.0.0.1:0", "protocol": "http", "routes": []},
      {"name": "b", "address": "127.0.0.1:0", "protocol": "http", "routes": [],
       "limits": {"max_connections": 1000, "max_connections_per_ip": 10, "max_body_bytes": 5}},
      {"name": "c", "address": "127.0.0.1:0", "protocol": "echo", "limits": {"max_connections": 20}}]})",
                                     "test.json");
  EXPECT_EQ(config.listeners[0].connection_limits.max_connections, 0u);
  EXPECT_EQ(config.listeners[0].connection_limits.max_connections_per_ip, 0u);
  EXPECT_EQ(config.listeners[1].connection_limits.max_connections, 1000u);
  EXPECT_EQ(config.listeners[1].connection_limits.max_connections_per_ip, 10u);
  EXPECT_EQ(config.listeners[1].limits.max_body_bytes, 5u);
  EXPECT_EQ(config.listeners[2].connection_limits.max_connections, 20u);
}

TEST(ConfigLoader, ListenersRefuseToSharePortsUnlessTheyAsk) {
  const Config config = parse_config(R"({"listeners": [
      {"name": "mine", "address": "127.0.0.1:7000", "protocol": "echo"},
      {"name": "ours", "address": "127.0.0.1:7001", "protocol": "echo", "share_port": true},
      {"name": "said", "address": "127.0.0.1:7002", "protocol": "http", "routes": [], "share_port": false}]})",
                                     "test.json");
  EXPECT_FALSE(config.listeners[0].share_port);
  EXPECT_TRUE(config.listeners[1].share_port);
  EXPECT_FALSE(config.listeners[2].share_port);
}

TEST(ConfigLoader, ErrorLogDefaultsToStandardErrorAtInfo) {
  const Config config = parse_config(R"({"listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "conf/test.json");
  EXPECT_EQ(config.error_log.path, "-");
  EXPECT_EQ(config.error_log.level, "info");
  EXPECT_EQ(config.error_log.json_path, "$.error_log");
}

TEST(ConfigLoader, ReadsTheErrorLogWithAPathRelativeToTheConfigFile) {
  const Config config = parse_config(R"({"error_log": {"path": "logs/error.log", "level": "warn"},
      "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                     "conf/test.json");
  EXPECT_EQ(config.error_log.path, "conf/logs/error.log");
  EXPECT_EQ(config.error_log.level, "warn");
  const Config absolute = parse_config(R"({"error_log": {"path": "/var/log/tiffany/error.log"},
      "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                       "conf/test.json");
  EXPECT_EQ(absolute.error_log.path, "/var/log/tiffany/error.log");
  EXPECT_EQ(absolute.error_log.level, "info");
}

TEST(ConfigLoader, ReadsEveryErrorLogLevelAndStandardError) {
  for (std::size_t i = 0; i < kLogLevelNames.size(); ++i) {
    const std::string name(kLogLevelNames[i]);
    const Config config = parse_config(R"({"error_log": {"path": "-", "level": ")" + name + R"("},
        "listeners": [{"name": "e", "address": "127.0.0.1:0", "protocol": "echo"}]})",
                                       "test.json");
    EXPECT_EQ(config.error_log.path, "-");
    EXPECT_EQ(config.error_log.level, name);
    EXPECT_EQ(log_level_from_name(config.error_log.level), static_cast<LogLevel>(i)) << name;
  }
}

TEST(ConfigLoader, ShippedDefaultConfigIsValid) {
  const Config config = load_config(std::string(TIFFANY_SOURCE_DIR) + "/conf/tiffany.json");
  ASSERT_EQ(config.listeners.size(), 3u);
  ASSERT_TRUE(config.listeners[2].tls.has_value());  // the HTTPS listener; its files are read at start-up
  EXPECT_EQ(config.error_log.path, "-");
  EXPECT_EQ(config.error_log.level, "info");
  EXPECT_EQ(config.listeners[2].tls->certificates[0].cert_file,
            std::string(TIFFANY_SOURCE_DIR) + "/conf/tls/self-signed.crt");
}

struct Case {
  const char* name;
  const char* json;
  const char* message;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class ConfigErrors : public ::testing::TestWithParam<Case> {};

TEST_P(ConfigErrors, NameTheFilePathAndExpectation) { EXPECT_EQ(error_for(GetParam().json), GetParam().message); }

INSTANTIATE_TEST_SUITE_P(
    ConfigLoader, ConfigErrors,
    ::testing::Values(
        Case{"InvalidJson", R"({"listeners": [)", "test.json: $: invalid JSON: syntax error at line 1 near: "},
        Case{"RootNotAnObject", R"([])", "test.json: $: expected an object, got an array"},
        Case{"KeyTwiceAtTheTop", R"({"workers": 1, "listeners": [], "workers": 2})",
             "test.json: $.workers: key given twice in one object (JSON keeps only one; remove or rename the other)"},
        Case{"RoutePathTwice",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:0", "protocol": "http", "routes": [
                 {"method": "GET", "path": "/a", "handler": "text", "body": "x"},
                 {"method": "GET", "path": "/b", "handler": "static", "root": "www", "path": "/c"}]}]})",
             "test.json: $.listeners[0].routes[1].path: key given twice in one object (JSON keeps only one; remove "
             "or rename the other)"},
        Case{"MissingListeners", R"({})", "test.json: $.listeners: missing required key"},
        Case{"UnknownTopLevelKey", R"({"listeners": [], "lisener": 1})",
             "test.json: $.lisener: unknown key; expected one of \"backend\", \"workers\", "
             "\"max_connections\", \"drain_timeout_ms\", \"drain_delay_ms\", \"user\", \"group\", \"pid_file\", \"plugins\", "
             "\"offload_threads\", \"scheduler\", "
             "\"access_log\", \"error_log\", \"upstreams\", \"listeners\""},
        Case{"ListenersNotAnArray", R"({"listeners": {}})", "test.json: $.listeners: expected an array, got an object"},
        Case{"GroupWithoutUser",
             R"({"group": "adm", "listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo"}]})",
             "test.json: $.group: \"group\" needs \"user\" too"},
        Case{"NegativeDrainDelay",
             R"({"drain_delay_ms": -1, "listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo"}]})",
             "test.json: $.drain_delay_ms: expected an integer from 0 to 3600000, got -1"},
        Case{"NoListeners", R"({"listeners": []})",
             "test.json: $.listeners: expected at least one listener, got an array"},
        Case{"UnknownListenerKey",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo", "port": 1}]})",
             "test.json: $.listeners[0].port: unknown key; expected one of \"name\", \"address\", \"protocol\", "
             "\"share_port\", \"routes\", \"limits\", \"timeouts\", \"tls\", \"compress\", \"middleware\", "
             "\"not_found\", \"method_not_allowed\", \"proxy_protocol\", \"http2\""},
        Case{"SharePortNotABoolean",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo", "share_port": "shared"}]})",
             "test.json: $.listeners[0].share_port: expected true or false, got \"shared\""},
        Case{"NameNotAString", R"({"listeners": [{"name": 5, "address": "127.0.0.1:1", "protocol": "echo"}]})",
             "test.json: $.listeners[0].name: expected a non-empty string, got 5"},
        Case{"AddressWithoutPort", R"({"listeners": [{"name": "e", "address": "127.0.0.1", "protocol": "echo"}]})",
             "test.json: $.listeners[0].address: expected \"HOST:PORT\" with an IPv4 address, [IPv6] address or "
             "localhost and a port from 0 to 65535, got \"127.0.0.1\""},
        Case{"AddressNotAString", R"({"listeners": [{"name": "e", "address": 7000, "protocol": "echo"}]})",
             "test.json: $.listeners[0].address: expected a string, got 7000"},
        Case{"UnknownProtocol", R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "gopher"}]})",
             "test.json: $.listeners[0].protocol: expected one of \"echo\", \"http\", got \"gopher\""},
        Case{"MissingProtocol", R"({"listeners": [{"name": "e", "address": "127.0.0.1:1"}]})",
             "test.json: $.listeners[0].protocol: missing required key"},
        Case{"BadBackend", R"({"backend": "kqueue", "listeners": []})",
             "test.json: $.backend: expected one of \"auto\", \"io_uring\", \"epoll\", got \"kqueue\""},
        Case{"BadPolicy", R"({"scheduler": {"policy": "random"}, "listeners": []})",
             "test.json: $.scheduler.policy: expected one of \"fifo\", \"priority\", got \"random\""},
        Case{"NoOffloadThreads", R"({"offload_threads": 0, "listeners": []})",
             "test.json: $.offload_threads: expected an integer from 1 to 1024, got 0"},
        Case{"ErrorLogNotAnObject", R"({"error_log": "error.log", "listeners": []})",
             "test.json: $.error_log: expected an object, got \"error.log\""},
        Case{"ErrorLogUnknownKey", R"({"error_log": {"path": "-", "format": "json"}, "listeners": []})",
             "test.json: $.error_log.format: unknown key; expected one of \"path\", \"level\""},
        Case{"ErrorLogBadLevel", R"({"error_log": {"level": "warning"}, "listeners": []})",
             "test.json: $.error_log.level: expected one of \"debug\", \"info\", \"notice\", \"warn\", "
             "\"error\", \"crit\", got \"warning\""},
        Case{"ErrorLogLevelNotAString", R"({"error_log": {"level": 3}, "listeners": []})",
             "test.json: $.error_log.level: expected one of \"debug\", \"info\", \"notice\", \"warn\", "
             "\"error\", \"crit\", got 3"},
        Case{"ErrorLogEmptyPath", R"({"error_log": {"path": ""}, "listeners": []})",
             "test.json: $.error_log.path: expected a non-empty string, got \"\""},
        Case{"ErrorLogPathNotAString", R"({"error_log": {"path": 2}, "listeners": []})",
             "test.json: $.error_log.path: expected a non-empty string, got 2"},
        Case{"UnknownLimitsKey",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "limits": {"max_headers": 10}}]})",
             "test.json: $.listeners[0].limits.max_headers: unknown key; expected one of \"max_connections\", "
             "\"max_connections_per_ip\", \"max_header_bytes\", \"max_header_count\", \"max_uri_bytes\", "
             "\"max_body_bytes\", \"max_linger_bytes\""},
        Case{"UnknownEchoLimitsKey",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo",
                                "limits": {"max_conections": 10}}]})",
             "test.json: $.listeners[0].limits.max_conections: unknown key; expected one of \"max_connections\", "
             "\"max_connections_per_ip\""},
        Case{"HttpLimitOnAnEchoListener",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo",
                                "limits": {"max_connections": 10, "max_body_bytes": 10}}]})",
             "test.json: $.listeners[0].limits.max_body_bytes: only \"http\" listeners take this key"},
        Case{"RoutesOnAnEchoListener",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo", "routes": []}]})",
             "test.json: $.listeners[0].routes: only \"http\" listeners take this key"},
        Case{"NoConnectionsPerIp",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo",
                                "limits": {"max_connections_per_ip": 0}}]})",
             "test.json: $.listeners[0].limits.max_connections_per_ip: expected an integer from 1 to 10000000, got 0"},
        Case{"NoHeaderFieldsAllowed",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "limits": {"max_header_count": 0}}]})",
             "test.json: $.listeners[0].limits.max_header_count: expected an integer from 1 to 100000, got 0"},
        Case{"MoreHeaderFieldsThanFitInTheLargestHeaderSection",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "limits": {"max_header_count": 100001}}]})",
             "test.json: $.listeners[0].limits.max_header_count: expected an integer from 1 to 100000, got 100001"},
        Case{"HeaderCountNotAnInteger",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "limits": {"max_header_count": "100"}}]})",
             "test.json: $.listeners[0].limits.max_header_count: expected an integer from 1 to 100000, got \"100\""},
        Case{"NegativeTotalBodyTimeout",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "timeouts": {"body_total_ms": -1}}]})",
             "test.json: $.listeners[0].timeouts.body_total_ms: expected an integer from 0 to 86400000, got -1"},
        Case{"ZeroLingerReadTimeout",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "timeouts": {"linger_read_ms": 0}}]})",
             "test.json: $.listeners[0].timeouts.linger_read_ms: expected an integer from 1 to 3600000, got 0"},
        Case{"UnknownHttpTimeoutsKey",
             R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http", "routes": [],
                                "timeouts": {"body_total": 1}}]})",
             "test.json: $.listeners[0].timeouts.body_total: unknown key; expected one of \"header_ms\", "
             "\"body_ms\", \"body_total_ms\", \"keepalive_ms\", \"write_ms\", \"handler_ms\", \"linger_ms\", "
             "\"linger_read_ms\""},
        Case{"DuplicateName", R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo"},
                               {"name": "e", "address": "127.0.0.1:2", "protocol": "echo"}]})",
             "test.json: $.listeners[1].name: duplicate listener name \"e\""}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return std::string(param_info.param.name); });

TEST(ConfigLoader, AMissingFileIsNamed) {
  try {
    load_config("/nonexistent/tiffany.json");
    FAIL() << "accepted a missing file";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/tiffany.json: $: cannot read the file: No such file or directory");
  }
}

}  // namespace
}  // namespace tiffany
