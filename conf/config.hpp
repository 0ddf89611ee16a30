// Config: the validated contents of a tiffany.json file.
#pragma once

#include <picojson.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conf/cidr_range.hpp"
#include "conf/listen_address.hpp"

namespace tiffany {

enum class Protocol { echo, http };

/// `compress` of an HTTP listener or route: content coding of responses.
struct CompressConfig {
  bool enabled = false;                                       // `false` (or absent on a listener): off
  std::vector<std::string> codings{"br", "zstd", "gzip"};     // server preference, most preferred first
  std::uint64_t min_bytes = 1024;                             // smaller bodies are sent as they are
  std::vector<std::string> types{"text/*", "application/json", "application/javascript", "image/svg+xml"};
  int br_level = 4;    // 0..11
  int zstd_level = 3;  // 1..19
  int gzip_level = 5;  // 1..9
  std::string json_path;  // where it was set, for errors found later
};

/// One entry of a listener's or a route's `middleware` array.
struct MiddlewareConfig {
  std::string use;          // registered middleware name: "cors", "kv.auth"
  picojson::object params;  // every other key of the entry, for the middleware's factory
  std::string json_path;    // "$.listeners[1].middleware[0]"
};

/// One entry of an HTTP listener's `routes`.
struct RouteConfig {
  std::vector<std::string> methods;  // empty: any method ("*")
  std::string path;                  // pattern: "/users/:id", "/static/*"
  std::string handler;               // registered handler name
  picojson::object params;           // the handler's settings (`with`), for its factory
  std::string params_path;           // where they are: "$.listeners[1].routes[0].with" (or the route, when flat)
  CompressConfig compress;           // the route's own `compress`, or else the listener's
  std::vector<MiddlewareConfig> middleware;  // run inside the listener's, around the handler
  std::string json_path;             // "$.listeners[1].routes[0]"
};

/// A listener's `not_found` or `method_not_allowed`: the handler answering
/// requests no route takes.
struct FallbackConfig {
  std::string handler;
  picojson::object params;  // `with`
  std::string params_path;  // "$.listeners[1].not_found.with"
  std::string json_path;    // "$.listeners[1].not_found"
};

/// Request size limits of an HTTP listener (`limits`).
struct HttpLimitsConfig {
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_header_count = 100;
  std::size_t max_uri_bytes = 8 * 1024;
  std::size_t max_body_bytes = 1024 * 1024;
  std::uint64_t max_linger_bytes = 64 * 1024 * 1024;
};

/// A listener's own connection limits (`limits`, any protocol); 0: none.
struct ConnectionLimitsConfig {
  std::size_t max_connections = 0;         // this listener's open connections, spread over the workers
  std::size_t max_connections_per_ip = 0;  // open connections from one client address, across the workers
};

/// `timeouts` of a listener, in milliseconds (see HttpTimeouts; idle_ms is echo's).
struct TimeoutsConfig {
  std::int64_t header_ms = 10'000;
  std::int64_t body_ms = 60'000;
  std::int64_t keepalive_ms = 10'000;
  std::int64_t write_ms = 60'000;
  std::int64_t handler_ms = 0;  // 0: no limit
  std::int64_t body_total_ms = 300'000;  // 0: no limit
  std::int64_t linger_ms = 5'000;        // 0: close at once after an error
  std::int64_t linger_read_ms = 2'000;
  std::int64_t idle_ms = 300'000;
};

/// The oldest TLS version a listener accepts (`tls.min_version`).
enum class TlsVersion { tls1_2, tls1_3 };

/// TLS 1.2 cipher list (OpenSSL syntax): forward secrecy and AEAD only.
inline constexpr const char* kDefaultTlsCiphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
/// TLS 1.3 cipher suites.
inline constexpr const char* kDefaultTlsCiphersuites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

/// One certificate of a TLS listener and the host names (SNI) it serves.
struct TlsCertificateConfig {
  std::vector<std::string> server_names;  // lower case; "*.b.test" matches exactly one label before ".b.test"
  std::string cert_file;                  // PEM chain, leaf first; absolute or relative to the config's folder
  std::string key_file;                   // PEM private key, unencrypted
  std::string json_path;                  // "$.listeners[2].tls" or "$.listeners[2].tls[1]"
};

/// A listener's `tls`: when present, the listener speaks TLS.
struct TlsConfig {
  std::vector<TlsCertificateConfig> certificates;  // never empty; the first is served when no name matches
  TlsVersion min_version = TlsVersion::tls1_2;
  std::string ciphers = kDefaultTlsCiphers;            // TLS 1.2 and below
  std::string ciphersuites = kDefaultTlsCiphersuites;  // TLS 1.3
  bool session_tickets = true;
  std::chrono::milliseconds handshake_timeout{10'000};
  std::string json_path;  // the object holding the settings above: "$.listeners[2].tls" or "...tls[0]"
};

/// `proxy_protocol`: connections from `trusted` addresses must begin with a
/// PROXY protocol header (v1 or v2) naming the client; others are closed.
struct ProxyProtocolConfig {
  std::vector<CidrRange> trusted;  // never empty
};

/// `http2`: HTTP/2 on an http listener: by ALPN ("h2") over TLS, by prior
/// knowledge (the connection preface) in cleartext. On unless turned off.
struct Http2Config {
  bool enabled = true;
  std::uint32_t max_concurrent_streams = 128;   // SETTINGS_MAX_CONCURRENT_STREAMS
  std::uint32_t initial_window_size = 65'535;   // SETTINGS_INITIAL_WINDOW_SIZE: per stream, for request bodies
  std::uint32_t max_header_list_size = 16'384;  // SETTINGS_MAX_HEADER_LIST_SIZE: decoded, per request → 431
};

struct ListenerConfig {
  std::string name;
  ListenAddress address;
  Protocol protocol = Protocol::echo;
  std::vector<RouteConfig> routes;  // http only
  std::vector<MiddlewareConfig> middleware;  // http only: runs around the routing, for every request
  std::optional<FallbackConfig> not_found;           // http only: answers 404s (absent: plain text)
  std::optional<FallbackConfig> method_not_allowed;  // http only: answers 405s (absent: plain text)
  CompressConfig compress;          // http only: the routes' default
  HttpLimitsConfig limits;          // http only
  ConnectionLimitsConfig connection_limits;  // also under `limits`, any protocol
  TimeoutsConfig timeouts;
  std::optional<TlsConfig> tls;     // absent: plain TCP
  std::optional<ProxyProtocolConfig> proxy_protocol;  // absent or false: off
  Http2Config http2;                // http only
  bool share_port = false;          // false: refuse to start where another socket already listens
  std::string json_path;            // where it came from, for errors found later (e.g. bind)
};

/// One entry of `plugins`: a handler plugin to load at start-up.
struct PluginConfig {
  std::string path;       // made absolute against the config file's folder
  std::string json_path;  // "$.plugins[0]"
};

/// `scheduler`: how each worker's kernel runs its tasks.
struct SchedulerConfig {
  bool priority_policy = false;                // "policy": "fifo" | "priority"
  std::size_t max_resumes_between_polls = 64;  // I/O is polled at least this often
  std::int64_t slow_task_warning_ms = 100;     // warn about a task that ran this long (0: off)
  std::size_t trace_events = 0;                // task events kept in memory (0: off)
};

/// `access_log`: one line per HTTP request.
struct AccessLogConfig {
  bool enabled = false;
  std::string path;  // "-" for standard output; otherwise made absolute against the config folder
  bool json = false;  // "format": "common" (default) | "json"
  std::string json_path;
};

/// `error_log`: the server's diagnostics (start-up, failures, warnings).
struct ErrorLogConfig {
  std::string path = "-";  // "-": standard error; otherwise made absolute against the config folder
  // Lines below this level are not written. Its name, one of handlers/log_level.hpp's
  // kLogLevelNames (the loader accepts only those): conf/ includes nothing of ours.
  std::string level = "info";
  std::string json_path = "$.error_log";
};

/// One entry of an upstream's `servers`: where requests may be sent.
struct UpstreamServerConfig {
  std::string host;        // IP literal (no brackets) or a DNS name, resolved when connecting
  std::uint16_t port = 0;  // 1..65535
  bool ipv6_literal = false;
  int weight = 1;          // 1..1000: share of requests, and of hash ring points
  bool backup = false;     // used only while every non-backup server is down
  std::string json_path;   // "$.upstreams.app.servers[1]"

  /// `host:port`, IPv6 bracketed: what logs and metrics call the server.
  std::string to_string() const { return ipv6_literal ? "[" + host + "]:" + std::to_string(port) : host + ":" + std::to_string(port); }
};

enum class UpstreamBalance { round_robin, least_conn, hash };
enum class UpstreamHashKey { client_address, path, header };

/// `health` of an upstream: the active probe (the probing task comes with the proxy).
struct UpstreamHealthConfig {
  std::string path = "/health";
  std::int64_t interval_ms = 1000;
  std::int64_t timeout_ms = 1000;
  int expect_status_min = 200;  // a probe passes with a status in [min, max]
  int expect_status_max = 399;
  int rise = 2;  // consecutive passes that bring a down server up
  int fall = 3;  // consecutive failures that take an up server down
};

/// `tls` of an upstream: present means the servers are spoken to over HTTPS.
struct UpstreamTlsConfig {
  bool verify = true;       // check the certificate chain and name
  std::string ca_file;      // empty: the system's trust store
  std::string server_name;  // SNI and the name checked; empty: the server's host
};

/// `retry_budget`: Envoy's retry budget (client/upstream/retry_budget.hpp).
struct UpstreamRetryBudgetConfig {
  int percent = 20;        // retries in flight may be this share of requests in flight...
  int min_concurrent = 3;  // ...but never fewer than this many
};

/// One entry of `upstreams`: a named group of servers a `proxy` route sends to.
struct UpstreamConfig {
  std::string name;
  std::vector<UpstreamServerConfig> servers;
  UpstreamBalance balance = UpstreamBalance::round_robin;
  UpstreamHashKey hash_key = UpstreamHashKey::client_address;
  std::string hash_header;  // the field name, for UpstreamHashKey::header
  std::size_t keepalive = 32;        // idle connections kept per worker
  std::size_t max_connections = 0;   // per worker; 0: no limit
  std::int64_t idle_timeout_ms = 60'000;
  std::int64_t connect_timeout_ms = 5'000;
  int max_fails = 1;                 // passive health; 0: off
  std::int64_t fail_timeout_ms = 10'000;
  std::optional<UpstreamHealthConfig> health;  // nullopt: no active probes
  std::optional<UpstreamTlsConfig> tls;        // nullopt: plain HTTP
  UpstreamRetryBudgetConfig retry_budget;
  std::string json_path;  // "$.upstreams.app"
};

/// `backend`: which I/O backend the workers use.
enum class IoBackend { automatic, io_uring, epoll };

struct Config {
  std::string file;       // the path it was loaded from, for error messages
  std::string directory;  // the folder holding it: relative paths in it start here
  std::vector<PluginConfig> plugins;
  IoBackend backend = IoBackend::automatic;
  std::size_t workers = 0;                // threads, each with its own reactor and scheduler (0: one per core)
  std::size_t max_connections = 16'384;   // open connections in all, spread over the workers
  std::int64_t drain_timeout_ms = 10'000; // graceful shutdown: how long in-flight requests may take
  std::int64_t drain_delay_ms = 0;        // on SIGTERM: serve on (health 503, Connection: close) this long first
  std::string user;   // run as this user once every listener is bound ("": stay who we are)
  std::string group;  // and this group ("": the user's primary group); needs `user`
  std::string pid_file;  // written with the process id once serving ("": none); made absolute against `directory`
  AccessLogConfig access_log;
  ErrorLogConfig error_log;
  std::size_t offload_threads = 0;  // threads of the offload pool (0: one per core)
  SchedulerConfig scheduler;
  std::vector<UpstreamConfig> upstreams;  // sorted by name
  std::vector<ListenerConfig> listeners;
  std::vector<std::string> warnings;  // deprecated forms used, to log once at start-up
};

}  // namespace tiffany
