// The proxy handler end to end: the real binary in front of Tiffany upstreams and scripted fake upstreams, on loopback.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "../prometheus_text.hpp"
#include "../server_process.hpp"
#include "fake_upstream.hpp"
#include "proxy_client.hpp"
#include "support/loopback_socket.hpp"

namespace tiffany::testing {
namespace {

using namespace std::chrono_literals;

std::string server_list(const std::vector<int>& ports) {
  std::string list;
  for (const int port : ports) list += (list.empty() ? "\"127.0.0.1:" : ", \"127.0.0.1:") + std::to_string(port) + "\"";
  return "[" + list + "]";
}

// A proxy on one worker (so balancing is deterministic) with upstream "app"
// (`upstream_extra` inside it) and `routes` (JSON route objects).
std::string proxy_config(const std::vector<int>& ports, const std::string& upstream_extra, const std::string& routes) {
  return R"({"workers": 1, "upstreams": {"app": {"servers": )" + server_list(ports) + upstream_extra +
         R"(}}, "listeners": [{"name": "px", "address": "127.0.0.1:0", "protocol": "http", "routes": [
           {"path": "/metrics", "handler": "metrics"}, )" +
         routes + "]}]}";
}

std::string app_route(const std::string& extra = "") {
  return R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "strip_prefix": "/app")" + extra + "}}";
}

// A Tiffany upstream answering `name` on /who, echoing bodies on /echo.
std::string tiffany_upstream(const std::string& name) {
  return R"({"workers": 1, "listeners": [{"name": "up", "address": "127.0.0.1:0", "protocol": "http", "routes": [
    {"path": "/who", "handler": "text", "with": {"body": ")" +
         name + R"("}},
    {"path": "/echo", "handler": "echo"}]}]})";
}

// A sample's value in the proxy's /metrics ("" when absent).
std::string metric(int port, const std::string& name_and_labels) {
  const std::string text = body_of(http_exchange(port, get_request("/metrics")));
  const std::size_t at = text.find(name_and_labels + " ");
  if (at == std::string::npos) return "";
  const std::size_t from = at + name_and_labels.size() + 1;
  return text.substr(from, text.find('\n', from) - from);
}

std::string pattern(std::size_t size) {
  std::string body(size, '\0');
  for (std::size_t i = 0; i < size; ++i) body[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  return body;
}

bool ok_answer(int fd, const std::string&) { return send_all(fd, FakeUpstream::response(200, "ok")); }

TEST(Proxy, ForwardsGetAndPostBodiesBothWays) {
  ServerProcess up(tiffany_upstream("one"));
  const int up_port = up.port_of("up");
  ServerProcess proxy(proxy_config({up_port}, "", app_route()));
  const int port = proxy.port_of("px");

  const std::string got = http_exchange(port, get_request("/app/who"));
  EXPECT_EQ(status_of(got), 200) << got;
  EXPECT_EQ(body_of(got), "one");
  EXPECT_NE(got.find("\r\nContent-Length: 3\r\n"), std::string::npos) << "a sized upstream answer stays sized: " << got;

  const std::string head = http_exchange(port, "HEAD /app/who HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(head), 200) << head;
  EXPECT_NE(head.find("\r\nContent-Length: 3\r\n"), std::string::npos) << "HEAD keeps the upstream's length: " << head;
  EXPECT_EQ(body_of(head), "");

  const std::string body = pattern(300'000);
  const std::string posted = http_exchange(
      port, "POST /app/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(status_of(posted), 200);
  EXPECT_TRUE(body_of(posted) == body) << "the echoed body came back changed (" << body_of(posted).size() << " bytes)";

  // A chunked upload goes upstream piece by piece and comes back whole.
  const std::string chunked = http_exchange(
      port, "POST /app/echo HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n"
            "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_EQ(status_of(chunked), 200) << chunked;
  EXPECT_EQ(body_of(chunked), "hello world");
}

TEST(Proxy, RewritesHopByHopAndForwardingFieldsBothWays) {
  FakeUpstream fake([](int fd, const std::string&) {
    return send_all(fd, FakeUpstream::response(200, "ok",
                                               "Connection: X-Secret\r\nX-Secret: s\r\nKeep-Alive: timeout=5\r\n"
                                               "X-Kept: k\r\n"));
  });
  ServerProcess proxy(proxy_config({fake.port()}, "",
                                   app_route(R"(, "set_headers": {"X-Set": "yes"}, "remove_headers": ["X-Remove"])") +
                                       R"(, {"path": "/raw/*", "handler": "proxy", "with": {"upstream": "app",
                                           "pass_host": false, "strip_prefix": "/raw", "rewrite_prefix": "/v2"}})"));
  const int port = proxy.port_of("px");
  const std::string got = http_exchange(
      port, get_request("/app/x?q=1", "Connection: X-Drop\r\nX-Drop: 1\r\nX-Remove: r\r\nX-Forwarded-For: 6.6.6.6\r\n"
                                      "Forwarded: for=6.6.6.6\r\n"));
  EXPECT_EQ(status_of(got), 200) << got;
  EXPECT_EQ(got.find("X-Secret"), std::string::npos) << "a field the upstream's Connection names is dropped: " << got;
  EXPECT_EQ(got.find("Keep-Alive"), std::string::npos) << got;
  EXPECT_NE(got.find("X-Kept: k"), std::string::npos) << got;
  EXPECT_NE(got.find("Via: 1.1 tiffany"), std::string::npos) << got;

  ASSERT_EQ(fake.requests().size(), 1u);
  const std::string seen = fake.requests()[0];
  EXPECT_EQ(seen.rfind("GET /x?q=1 HTTP/1.1\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("Host: example.test\r\n"), std::string::npos) << "pass_host defaults to the client's: " << seen;
  EXPECT_EQ(seen.find("X-Drop"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("X-Remove"), std::string::npos) << seen;
  EXPECT_NE(seen.find("X-Set: yes\r\n"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("6.6.6.6"), std::string::npos) << "untrusted forwarding fields are replaced: " << seen;
  EXPECT_NE(seen.find("X-Forwarded-For: 127.0.0.1\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("X-Forwarded-Proto: http\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("X-Forwarded-Host: example.test\r\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("Forwarded: for=\"127.0.0.1:"), std::string::npos) << seen;
  EXPECT_NE(seen.find("Via: 1.1 tiffany\r\n"), std::string::npos) << seen;

  EXPECT_EQ(status_of(http_exchange(port, get_request("/raw/y"))), 200);
  ASSERT_EQ(fake.requests().size(), 2u);
  const std::string raw = fake.requests()[1];
  EXPECT_EQ(raw.rfind("GET /v2/y HTTP/1.1\r\n", 0), 0u) << raw;
  EXPECT_NE(raw.find("Host: 127.0.0.1:" + std::to_string(fake.port()) + "\r\n"), std::string::npos) << raw;
}

TEST(Proxy, AnswersBadGatewayWhenTheUpstreamIsDown) {
  const LoopbackSocket closed(false);  // bound, not listening: connections are refused
  ServerProcess proxy(proxy_config({closed.port()}, "", app_route()));
  const int port = proxy.port_of("px");
  const std::string got = http_exchange(port, get_request("/app/x"));
  EXPECT_EQ(status_of(got), 502) << got;
  const std::string labels = "{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(closed.port()) + "\"";
  EXPECT_EQ(metric(port, "tiffany_upstream_requests_total" + labels + "}"), "1");
  EXPECT_EQ(metric(port, "tiffany_upstream_errors_total" + labels + ",kind=\"connect\"}"), "1");
  EXPECT_EQ(metric(port, "tiffany_upstream_up" + labels + "}"), "1") << "a group of one ignores max_fails";
  EXPECT_EQ(status_of(http_exchange(port, get_request("/app/x"))), 502) << "tried again, refused again";
  EXPECT_EQ(metric(port, "tiffany_upstream_requests_total" + labels + "}"), "2");
}

TEST(Proxy, AnswersGatewayTimeoutWhenTheUpstreamIsSlow) {
  constexpr auto kUpstreamDelay = 1500ms;
  FakeUpstream slow([&](int fd, const std::string&) {
    (void)fd;
    std::this_thread::sleep_for(kUpstreamDelay);
    return false;
  });
  ServerProcess proxy(proxy_config({slow.port()}, "", app_route(R"(, "first_byte_timeout_ms": 300)")));
  const auto started = std::chrono::steady_clock::now();
  const std::string got = http_exchange(proxy.port_of("px"), get_request("/app/x"));
  EXPECT_EQ(status_of(got), 504) << got;
  // Why the upstream's delay as the bound: without the timeout the answer (a 502, the upstream
  // closing) could not come sooner, however loaded the machine.
  EXPECT_LT(std::chrono::steady_clock::now() - started, kUpstreamDelay);
}

TEST(Proxy, TheTotalTimeoutAnswers504BeforeTheHeadAndCutsAfterIt) {
  constexpr auto kStall = 3000ms;  // how long the upstream waits for the proxy to close
  FakeUpstream* self = nullptr;
  FakeUpstream trickling([&](int fd, const std::string& request) {
    if (request.find("/slow-body") != std::string::npos) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789");  // streamed: over 64 KiB
    } else if (request.find("/small-stall") != std::string::npos) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789");  // gathered whole
    }
    self->wait_for_close_or_timeout(fd, static_cast<int>(kStall.count()));
    return false;
  });
  self = &trickling;
  ServerProcess proxy(proxy_config({trickling.port()}, R"(, "max_fails": 0)", app_route(R"(, "total_timeout_ms": 300)")));
  const int port = proxy.port_of("px");
  const auto started = std::chrono::steady_clock::now();
  const std::string late = http_exchange(port, get_request("/app/late-head"));
  EXPECT_EQ(status_of(late), 504) << late;
  const std::string cut = http_exchange(port, get_request("/app/slow-body"));
  EXPECT_EQ(status_of(cut), 200) << cut;
  EXPECT_EQ(body_of(cut), "0123456789") << "the head and the first bytes, then a close";
  EXPECT_EQ(cut.find("<timeout>"), std::string::npos);
  const std::string small = http_exchange(port, get_request("/app/small-stall"));
  EXPECT_EQ(status_of(small), 504) << "a small body is gathered before the head goes: " << small;
  // Why the upstream's stall as the bound: any one of the three exchanges without the total timeout
  // would have waited that long, however loaded the machine; with it, the three take about 900 ms.
  EXPECT_LT(std::chrono::steady_clock::now() - started, kStall);
  for (int i = 0; i < 40 && trickling.closed_while_waiting() < 3; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(trickling.closed_while_waiting(), 3) << "every upstream connection was closed by the proxy";
}

TEST(Proxy, AnUpstreamDyingMidBodyCutsTheClientResponse) {
  FakeUpstream dying([](int fd, const std::string& request) {
    if (request.find("/sized") != std::string::npos) {
      send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(5000, 'x'));
    } else {
      send_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      std::this_thread::sleep_for(100ms);
      send_all(fd, "1000\r\n" + std::string(4096, 'y') + "\r\n");
    }
    std::this_thread::sleep_for(300ms);
    return false;  // closes in the middle of the body
  });
  // max_fails 0: the first cut would otherwise take the only server out (passive health).
  ServerProcess proxy(proxy_config({dying.port()}, R"(, "max_fails": 0)", app_route()));
  const int port = proxy.port_of("px");
  const std::string sized = http_exchange(port, get_request("/app/sized"));
  EXPECT_EQ(status_of(sized), 200);
  EXPECT_NE(sized.find("Content-Length: 100000"), std::string::npos) << sized.substr(0, 300);
  EXPECT_LT(body_of(sized).size(), 100000u) << "the client saw a cut (short) body and a close";
  EXPECT_EQ(sized.find("<timeout>"), std::string::npos) << "the proxy closed the client connection";

  const std::string chunked = http_exchange(port, get_request("/app/chunked"));
  EXPECT_EQ(status_of(chunked), 200) << chunked;
  EXPECT_EQ(chunked.find("<timeout>"), std::string::npos);
  EXPECT_EQ(chunked.find("\r\n0\r\n\r\n"), std::string::npos) << "never a clean end of a cut chunked body";
}

TEST(Proxy, NextUpstreamMovesToAHealthyServer) {
  const LoopbackSocket closed(false);
  FakeUpstream healthy(ok_answer);
  FakeUpstream unavailable([](int fd, const std::string&) { return send_all(fd, FakeUpstream::response(503, "no")); });
  ServerProcess proxy(proxy_config({closed.port(), unavailable.port(), healthy.port()}, R"(, "max_fails": 0)",
                                   app_route(R"(, "next_upstream": ["error", "503"], "max_tries": 3)")));
  const int port = proxy.port_of("px");
  for (int i = 0; i < 6; ++i) {
    const std::string got = http_exchange(port, get_request("/app/x"));
    EXPECT_EQ(status_of(got), 200) << "request " << i << ": " << got;
  }
  EXPECT_EQ(healthy.requests().size(), 6u);
  // A POST is not retried once sent: its answer is the server's own.
  ServerProcess single(proxy_config({unavailable.port(), healthy.port()}, R"(, "max_fails": 0)",
                                    app_route(R"(, "next_upstream": ["503"])")));
  const int single_port = single.port_of("px");
  const std::string post = http_exchange(
      single_port, "POST /app/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(status_of(post), 503) << post;
}

TEST(Proxy, APostWhoseConnectWasRefusedGoesToTheNextServerBodyAndAll) {
  const LoopbackSocket closed(false);
  FakeUpstream healthy(ok_answer);
  ServerProcess proxy(proxy_config({closed.port(), healthy.port()}, R"(, "max_fails": 0)", app_route()));
  const int port = proxy.port_of("px");
  for (int i = 0; i < 4; ++i) {
    const std::string post = http_exchange(
        port, "POST /app/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello");
    EXPECT_EQ(status_of(post), 200) << "POST " << i << ": " << post;
  }
  ASSERT_EQ(healthy.requests().size(), 4u);
  for (const std::string& request : healthy.requests()) {
    EXPECT_EQ(request.rfind("POST /x HTTP/1.1\r\n", 0), 0u) << request;
    EXPECT_EQ(request.substr(request.size() - 9), "\r\n\r\nhello") << request;
  }
  const std::string labels = "{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(closed.port()) + "\"";
  EXPECT_EQ(metric(port, "tiffany_upstream_errors_total" + labels + ",kind=\"connect\"}"), "2")
      << "round robin sent every other POST to the refused server first";
}

TEST(Proxy, ANonIdempotentRequestIsNeverSentTwiceWhenItsKeptConnectionDies) {
  std::mutex mutex;
  std::map<int, int> answered;  // requests answered per open connection (by fd)
  FakeUpstream flaky([&](int fd, const std::string&) {
    std::lock_guard lock(mutex);
    if (++answered[fd] == 2) {
      answered.erase(fd);
      return false;  // a connection's second request: closed unanswered, as a server that timed it out
    }
    return send_all(fd, FakeUpstream::response(200, "ok"));
  });
  ServerProcess proxy(proxy_config({flaky.port()}, R"(, "max_fails": 0, "keepalive": 1)", app_route()));
  const int port = proxy.port_of("px");
  ASSERT_EQ(status_of(http_exchange(port, get_request("/app/x"))), 200);
  const std::string post =
      http_exchange(port, "POST /app/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(status_of(post), 502) << "a POST is not sent again: " << post;
  EXPECT_EQ(flaky.requests().size(), 2u);
  // A GET in the same spot is sent again on a fresh connection.
  ASSERT_EQ(status_of(http_exchange(port, get_request("/app/x"))), 200);
  const std::string again = http_exchange(port, get_request("/app/x"));
  EXPECT_EQ(status_of(again), 200) << again;
  EXPECT_EQ(flaky.requests().size(), 5u);
}

TEST(Proxy, AnEmptyRetryBudgetRefusesTheRetry) {
  const LoopbackSocket closed(false);
  FakeUpstream healthy(ok_answer);
  ServerProcess proxy(proxy_config({closed.port(), healthy.port()},
                                   R"(, "max_fails": 0, "retry_budget": {"percent": 0, "min_concurrent": 0})", app_route()));
  const int port = proxy.port_of("px");
  std::map<int, int> statuses;
  for (int i = 0; i < 4; ++i) ++statuses[status_of(http_exchange(port, get_request("/app/x")))];
  EXPECT_EQ(statuses[502], 2) << "round robin sends every other request to the dead server, and no retry may follow";
  EXPECT_EQ(statuses[200], 2);
  const std::string refusals = metric(port, "tiffany_upstream_retry_budget_refusals_total{upstream=\"app\",server=\"127.0.0.1:" +
                                                std::to_string(healthy.port()) + "\"}");
  EXPECT_EQ(refusals, "2");
}

TEST(Proxy, PassiveHealthTakesAFailingServerOutAndBackIn) {
  std::atomic<bool> failing{true};
  FakeUpstream flaky([&](int fd, const std::string&) {
    if (failing) return false;  // closes without an answer
    return send_all(fd, FakeUpstream::response(200, "flaky"));
  });
  FakeUpstream steady([](int fd, const std::string&) { return send_all(fd, FakeUpstream::response(200, "steady")); });
  ServerProcess proxy(proxy_config({flaky.port(), steady.port()}, R"(, "max_fails": 1, "fail_timeout_ms": 1000)",
                                   app_route()));
  const int port = proxy.port_of("px");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(body_of(http_exchange(port, get_request("/app/x"))), "steady");
  EXPECT_EQ(flaky.requests().size(), 1u) << "one failure takes it out for fail_timeout_ms";
  failing = false;
  std::this_thread::sleep_for(1200ms);
  int flaky_answers = 0;
  for (int i = 0; i < 6; ++i) flaky_answers += body_of(http_exchange(port, get_request("/app/x"))) == "flaky";
  EXPECT_GE(flaky_answers, 2) << "back in after fail_timeout_ms";
}

TEST(Proxy, ActiveHealthMarksAServerDownAndBackUp) {
  std::atomic<bool> sick{true};
  FakeUpstream probed([&](int fd, const std::string& request) {
    if (request.rfind("GET /health ", 0) == 0) return send_all(fd, FakeUpstream::response(sick ? 503 : 200, "h"));
    return send_all(fd, FakeUpstream::response(200, "probed"));
  });
  FakeUpstream other([](int fd, const std::string&) { return send_all(fd, FakeUpstream::response(200, "other")); });
  ServerProcess proxy(proxy_config(
      {probed.port(), other.port()},
      R"(, "health": {"path": "/health", "interval_ms": 100, "timeout_ms": 500, "rise": 1, "fall": 1})", app_route()));
  const int port = proxy.port_of("px");
  const std::string up_metric = "tiffany_upstream_up{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(probed.port()) + "\"}";
  for (int i = 0; i < 50 && metric(port, up_metric) != "0"; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(metric(port, up_metric), "0");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(body_of(http_exchange(port, get_request("/app/x"))), "other");
  sick = false;
  for (int i = 0; i < 50 && metric(port, up_metric) != "1"; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_EQ(metric(port, up_metric), "1");
  int probed_answers = 0;
  for (int i = 0; i < 4; ++i) probed_answers += body_of(http_exchange(port, get_request("/app/x"))) == "probed";
  EXPECT_EQ(probed_answers, 2) << "round robin again once the probes pass";
}

TEST(Proxy, RoundRobinSpreadsAndHashSticks) {
  ServerProcess a(tiffany_upstream("a"));
  ServerProcess b(tiffany_upstream("b"));
  const std::vector<int> ports{a.port_of("up"), b.port_of("up")};
  ServerProcess proxy(proxy_config(ports, "", app_route()));
  const int port = proxy.port_of("px");
  std::map<std::string, int> seen;
  for (int i = 0; i < 10; ++i) ++seen[body_of(http_exchange(port, get_request("/app/who")))];
  EXPECT_EQ(seen["a"], 5);
  EXPECT_EQ(seen["b"], 5);

  ServerProcess hashed(proxy_config(ports, R"(, "balance": {"hash": "header:X-User"})", app_route()));
  const int hashed_port = hashed.port_of("px");
  std::map<std::string, int> servers_used;
  for (int user = 0; user < 20; ++user) {
    const std::string field = "X-User: user" + std::to_string(user) + "\r\n";
    const std::string first = body_of(http_exchange(hashed_port, get_request("/app/who", field)));
    for (int again = 0; again < 3; ++again) {
      EXPECT_EQ(body_of(http_exchange(hashed_port, get_request("/app/who", field))), first) << "user " << user;
    }
    ++servers_used[first];
  }
  EXPECT_EQ(servers_used.size(), 2u) << "users spread over both servers";
}

TEST(Proxy, AHedgeWinsAgainstASlowServerWhichSeesItsConnectionClosed) {
  FakeUpstream* self = nullptr;
  constexpr auto kSlowAnswer = 3000ms;  // when the slow server answers, if its connection is still open
  FakeUpstream waiting([&](int fd, const std::string&) {
    if (self->wait_for_close_or_timeout(fd, static_cast<int>(kSlowAnswer.count()))) return false;
    return send_all(fd, FakeUpstream::response(200, "slow"));
  });
  self = &waiting;
  FakeUpstream fast([](int fd, const std::string&) { return send_all(fd, FakeUpstream::response(200, "fast")); });
  ServerProcess proxy(proxy_config({waiting.port(), fast.port()}, "",
                                   app_route(R"(, "hedge_after_ms": 100, "first_byte_timeout_ms": 5000)")));
  const int port = proxy.port_of("px");
  for (int i = 0; i < 2; ++i) {
    const auto started = std::chrono::steady_clock::now();
    const std::string got = http_exchange(port, get_request("/app/x"));
    EXPECT_EQ(body_of(got), "fast") << got;
    // Why the slow server's answer as the bound: a hedge that waited for the first try would come
    // no sooner, however loaded the machine; one sent at 100 ms comes at once.
    EXPECT_LT(std::chrono::steady_clock::now() - started, kSlowAnswer);
  }
  for (int i = 0; i < 40 && waiting.closed_while_waiting() == 0; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_GE(waiting.closed_while_waiting(), 1) << "the loser's upstream connection was closed";
  EXPECT_EQ(static_cast<std::size_t>(waiting.closed_while_waiting()), waiting.requests().size());
  const std::string won = metric(port, "tiffany_upstream_hedges_won_total{upstream=\"app\",server=\"127.0.0.1:" +
                                           std::to_string(fast.port()) + "\"}");
  EXPECT_GE(std::atoi(won.c_str()), 1) << won;
  // The whole page, upstream families included, is well-formed exposition text.
  const auto samples = parse_prometheus(body_of(http_exchange(port, get_request("/metrics"))));
  const std::string fast_labels = "{upstream=\"app\",server=\"127.0.0.1:" + std::to_string(fast.port()) + "\"";
  EXPECT_GE(samples.at("tiffany_upstream_hedges_sent_total" + fast_labels + "}"), 1);
  EXPECT_GE(samples.at("tiffany_upstream_response_seconds_count" + fast_labels + "}"), 2);
}

TEST(Proxy, TenThousandRequestsUnderWrkWithoutErrors) {
  ServerProcess up(tiffany_upstream("w"));
  ServerProcess proxy(proxy_config({up.port_of("up")}, R"(, "keepalive": 64)", app_route()));
  const int port = proxy.port_of("px");
  // Why -d: wrk runs for its duration whatever a script stops; the count is
  // checked. Sanitized builds run several times slower: they get longer.
  const RunResult run = run_program("wrk", {"-t1", "-c16", binary_is_sanitized() ? "-d30s" : "-d6s",
                                            "http://127.0.0.1:" + std::to_string(port) + "/app/who"},
                                    90s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Why no std::regex: g++ 12's <regex> trips -Wmaybe-uninitialized in the ASan build.
  const std::size_t words = run.out.find(" requests in");
  ASSERT_NE(words, std::string::npos) << run.out;
  std::size_t first_digit = words;
  while (first_digit > 0 && std::isdigit(static_cast<unsigned char>(run.out[first_digit - 1])) != 0) --first_digit;
  ASSERT_LT(first_digit, words) << run.out;
  EXPECT_GE(std::stoll(run.out.substr(first_digit, words - first_digit)), 10000) << run.out;
  EXPECT_EQ(run.out.find("Socket errors"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("Non-2xx"), std::string::npos) << run.out;
}

// Keys listed in `| \`key\` |` rows of the docs/config.md section `heading`.
std::set<std::string> documented_keys(const std::string& heading) {
  std::ifstream page(std::string(TIFFANY_SOURCE_DIR) + "/docs/config.md");
  std::set<std::string> keys;
  std::string line;
  bool inside = false;
  while (std::getline(page, line)) {
    if (line.rfind("## ", 0) == 0) inside = line == "## " + heading;
    if (inside && line.rfind("| `", 0) == 0) keys.insert(line.substr(3, line.find('`', 3) - 3));
  }
  return keys;
}

TEST(Proxy, BadRouteKeysAreRefusedNamingTheirPathAndTheDocsListEveryKey) {
  TempDir dir;
  const std::string routes = R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "zz": 1}})";
  const RunResult unknown = run_tiffany({"--check-config", "--config", dir.write("a.json", proxy_config({9}, "", routes))});
  EXPECT_NE(unknown.exit_code, 0);
  const std::string marker = "$.listeners[0].routes[1].with.zz: unknown key for handler \"proxy\"; expected one of ";
  const std::size_t at = unknown.err.find(marker);
  ASSERT_NE(at, std::string::npos) << unknown.err;
  std::set<std::string> known;
  const std::string list = unknown.err.substr(at + marker.size());
  for (std::size_t open = list.find('"'); open != std::string::npos; open = list.find('"', list.find('"', open + 1) + 1)) {
    known.insert(list.substr(open + 1, list.find('"', open + 1) - open - 1));
  }
  EXPECT_EQ(documented_keys("Handler `proxy`"), known) << "docs/config.md's proxy table lists exactly the handler's keys";

  const std::string bad_retry = R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "next_upstream": ["500"]}})";
  const RunResult refused = run_tiffany({"--check-config", "--config", dir.write("b.json", proxy_config({9}, "", bad_retry))});
  EXPECT_NE(refused.err.find("$.listeners[0].routes[1].with.next_upstream: an array of \"error\""), std::string::npos)
      << refused.err;
  const std::string bad_rewrite = R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "rewrite_prefix": "/v2"}})";
  const RunResult lone = run_tiffany({"--check-config", "--config", dir.write("c.json", proxy_config({9}, "", bad_rewrite))});
  EXPECT_NE(lone.err.find("with.rewrite_prefix: needs strip_prefix"), std::string::npos) << lone.err;
  const std::string framing = R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "set_headers": {"Transfer-Encoding": "chunked"}}})";
  const RunResult framed = run_tiffany({"--check-config", "--config", dir.write("d.json", proxy_config({9}, "", framing))});
  EXPECT_NE(framed.err.find("with.set_headers.Transfer-Encoding: a field the proxy may set"), std::string::npos)
      << framed.err;
  const std::string host = R"({"path": "/app/*", "handler": "proxy", "with": {"upstream": "app", "set_headers": {"Host": "a b"}}})";
  const RunResult bad_host = run_tiffany({"--check-config", "--config", dir.write("e.json", proxy_config({9}, "", host))});
  EXPECT_NE(bad_host.err.find("with.set_headers.Host: a host[:port]"), std::string::npos) << bad_host.err;
}

}  // namespace
}  // namespace tiffany::testing
