// The fixture the HttpClient tests share: a client against scripted loopback upstreams, on both reactor backends.
#pragma once

#include <tiffany/client/http_client.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/sleep.hpp>

#include "unit/client/scripted_upstream.hpp"
#include "unit/reactor/reactor_fixture.hpp"

namespace tiffany::testing {

using Result = ClientResult<ClientResponse>;

class HttpClientTest : public ReactorTest {
 protected:
  static constexpr std::chrono::milliseconds kNoPause{0};
  // One GET of `url` by a client made with `options`.
  Result get_with(const HttpClientOptions& options, const std::string& url) {
    std::optional<Result> got;
    run([&]() -> Task<void> {
      HttpClient client(options);
      got.emplace(co_await client.get(url));
    });
    return std::move(*got);
  }
  // GETs `url` `count` times in turn on one client, pausing `pause` after
  // each; each answer as "status body", or the error's message.
  std::vector<std::string> get_in_turn(const std::string& url, int count, std::chrono::milliseconds pause) {
    std::vector<std::string> answers;
    run([&]() -> Task<void> {
      HttpClient client;
      for (int i = 0; i < count; ++i) {
        Result reply = co_await client.get(url);
        answers.push_back(reply ? std::to_string(reply->status) + " " + reply->body : reply.error().message);
        if (pause > kNoPause) co_await Sleep(pause);
      }
    });
    return answers;
  }
};

// Pieces given one read at a time, as a socket would.
class PiecesSource final : public http::BodySource {
 public:
  explicit PiecesSource(std::vector<std::string> pieces) : pieces_(std::move(pieces)) {}
  Task<http::BodyChunk> read_body() override {
    ++reads;
    if (next_ == pieces_.size()) co_return http::BodyChunk(http::BodyStatus::end);
    co_return http::BodyChunk(http::BodyStatus::data, pieces_[next_++]);
  }
  int reads = 0;

 private:
  std::vector<std::string> pieces_;
  std::size_t next_ = 0;
};

}  // namespace tiffany::testing
