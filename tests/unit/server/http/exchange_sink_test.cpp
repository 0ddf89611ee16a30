// Exchange as the response's sink: what it asks of a protocol's narrow
// writer (ResponseWire), recorded by a wire of the test's own.
#include "server/http/exchange.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>
#include <tiffany/http/http_status.hpp>

#include "unit/server/http/verdictless_wire.hpp"

namespace tiffany::http {
namespace {

class RecordingWire final : public testing::VerdictlessWire {
 public:
  Task<Head> send_head(const Response& response, std::optional<std::uint64_t> length, bool bodyless,
                       bool encoded) override {
    heads.push_back(std::to_string(response.status) + " length=" + (length ? std::to_string(*length) : "none") +
                    (bodyless ? " bodyless" : "") + (encoded ? " encoded" : ""));
    if (refuse_heads) shut = true;
    co_return refuse_heads ? Head::refused : Head::sent;
  }
  Task<Delivery> write_piece(std::string_view bytes) override {
    pieces.emplace_back(bytes);
    co_return Delivery::sent;
  }
  bool write_closed() const noexcept override { return shut; }
  Task<std::optional<Delivery>> send_file_range(int, std::uint64_t offset, std::uint64_t length) override {
    if (!sends_files) co_return std::nullopt;
    pieces.push_back("file " + std::to_string(offset) + "+" + std::to_string(length));
    co_return Delivery::sent;
  }

  std::vector<std::string> heads;
  std::vector<std::string> pieces;
  bool refuse_heads = false;
  bool sends_files = false;
  bool shut = false;
};

class ExchangeSinkTest : public ::testing::Test {
 protected:
  // Runs `body` as a task, with the exchange begun for a GET (or HEAD) request.
  template <class Body>
  void run(Body body, const char* method = "GET") {
    request_.method = method;
    auto task = [&]() -> Task<void> {
      exchange_.begin(request_);
      co_await body();
    };
    (void)scheduler_.spawn(task());
    scheduler_.run();
  }

  Scheduler scheduler_;
  HttpSite site_;
  RecordingWire wire_;
  Exchange exchange_{site_, wire_};
  Request request_;
  Response response_;
};

TEST_F(ExchangeSinkTest, TheHeadGoesOnceWithTheDeclaredLengthAndThePiecesAsTheyAre) {
  response_.set_content_length(10);
  std::vector<Delivery> results;
  run([&]() -> Task<void> {
    results.push_back(co_await exchange_.write_body(response_, "hello"));
    results.push_back(co_await exchange_.write_body(response_, "world"));
  });
  EXPECT_EQ(wire_.heads, (std::vector<std::string>{"200 length=10"}));
  EXPECT_EQ(wire_.pieces, (std::vector<std::string>{"hello", "world"}));
  EXPECT_EQ(results, (std::vector<Delivery>{Delivery::sent, Delivery::sent}));
  EXPECT_EQ(exchange_.identity_bytes(), 10u);
}

TEST_F(ExchangeSinkTest, ABodilessAnswerSendsItsHeadAndNoneOfTheHandlersBytes) {
  response_.status = 204;
  run([&]() -> Task<void> { (void)co_await exchange_.write_body(response_, "ignored"); });
  EXPECT_EQ(wire_.heads, (std::vector<std::string>{"204 length=none bodyless"}));
  EXPECT_EQ(wire_.pieces, (std::vector<std::string>{""}));
  EXPECT_EQ(exchange_.identity_bytes(), 0u);

  RecordingWire head_wire;
  Exchange head_exchange{site_, head_wire};
  Response head_response;
  request_.method = "HEAD";
  auto task = [&]() -> Task<void> {
    head_exchange.begin(request_);
    (void)co_await head_exchange.write_body(head_response, "ignored");
  };
  (void)scheduler_.spawn(task());
  scheduler_.run();
  EXPECT_EQ(head_wire.heads, (std::vector<std::string>{"200 length=none bodyless"}));
}

TEST_F(ExchangeSinkTest, ARefusedHeadClosesTheResponseAndNoWriteReachesTheWireAfterIt) {
  wire_.refuse_heads = true;
  std::vector<Delivery> results;
  run([&]() -> Task<void> {
    results.push_back(co_await exchange_.write_body(response_, "one"));
    results.push_back(co_await exchange_.write_body(response_, "two"));
  });
  EXPECT_EQ(wire_.heads.size(), 1u);
  EXPECT_TRUE(wire_.pieces.empty());
  EXPECT_EQ(results, (std::vector<Delivery>{Delivery::closed, Delivery::closed}));
}

TEST_F(ExchangeSinkTest, AFileGoesStraightWhereTheWireCanAndPieceByPieceWhereItCannot) {
  const int fd = ::memfd_create("exchange-sink-test", 0);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "0123456789", 10), 10);
  response_.set_content_length(4);
  wire_.sends_files = true;
  run([&]() -> Task<void> { (void)co_await exchange_.send_file(response_, fd, 3, 4); });
  EXPECT_EQ(wire_.pieces, (std::vector<std::string>{"", "file 3+4"}));  // the head's flush, then the file
  EXPECT_EQ(exchange_.identity_bytes(), 4u);

  RecordingWire copying;
  Exchange copy_exchange{site_, copying};
  Response copied;
  copied.set_content_length(4);
  request_.method = "GET";
  auto task = [&]() -> Task<void> {
    copy_exchange.begin(request_);
    (void)co_await copy_exchange.send_file(copied, fd, 3, 4);
  };
  (void)scheduler_.spawn(task());
  scheduler_.run();
  EXPECT_EQ(copying.pieces, (std::vector<std::string>{"", "3456"}));
  EXPECT_EQ(copy_exchange.identity_bytes(), 4u);
  ::close(fd);
}

}  // namespace
}  // namespace tiffany::http
