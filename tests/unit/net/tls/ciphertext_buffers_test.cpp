// CiphertextBuffers through its BIO, as OpenSSL drives it: input read in
// pieces and its buffer handed back once read, output gathered in one spare
// buffer up to its size, then "retry", and the buffer handed back once sent.
#include "net/internal/tls/ciphertext_buffers.hpp"

#include <openssl/bio.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "net/engine/tls/spare_output_buffers.hpp"
#include "reactor/engine/spare_read_buffers.hpp"

namespace tiffany::tls {
namespace {

// A pooled buffer holding `text`, as a pooled receive would hand it over.
ReadLease received(const std::string& text) {
  ReadLease lease = SpareReadBuffers::for_this_thread().take();
  std::memcpy(lease.data(), text.data(), text.size());
  lease.set_size(text.size());
  return lease;
}

class CiphertextBuffersTest : public ::testing::Test {
 protected:
  void SetUp() override { bio_ = buffers_.new_bio(); }
  void TearDown() override { BIO_free(bio_); }

  CiphertextBuffers buffers_;
  BIO* bio_ = nullptr;
};

TEST_F(CiphertextBuffersTest, WithNothingReceivedAReadAsksToRetryNotEof) {
  char byte;
  EXPECT_LE(BIO_read(bio_, &byte, 1), 0);
  EXPECT_TRUE(BIO_should_retry(bio_));
  EXPECT_TRUE(BIO_should_read(bio_));
  EXPECT_FALSE(buffers_.has_input());
}

TEST_F(CiphertextBuffersTest, InputIsReadInPiecesAndItsBufferGoesBackWhenEmpty) {
  SpareReadBuffers& spares = SpareReadBuffers::for_this_thread();
  buffers_.add_input(received("\x16\x03\x01hello, record"));
  const std::size_t kept = spares.kept();
  EXPECT_EQ(BIO_ctrl_pending(bio_), 16u);
  char piece[64] = {};
  ASSERT_EQ(BIO_read(bio_, piece, 3), 3);  // a record header first, as OpenSSL reads
  EXPECT_EQ(std::string(piece, 3), "\x16\x03\x01");
  EXPECT_TRUE(buffers_.has_input());
  ASSERT_EQ(BIO_read(bio_, piece, sizeof piece), 13);
  EXPECT_EQ(std::string(piece, 13), "hello, record");
  EXPECT_FALSE(buffers_.has_input());
  EXPECT_EQ(spares.kept(), kept + 1) << "the emptied buffer must go back at once";
  EXPECT_LE(BIO_read(bio_, piece, sizeof piece), 0);
  EXPECT_TRUE(BIO_should_retry(bio_));
}

TEST_F(CiphertextBuffersTest, OutputFillsOneBufferThenAsksToRetry) {
  const std::size_t limit = SpareOutputBuffers::kBytes;
  std::string records(limit + 1000, '\0');
  for (std::size_t i = 0; i < records.size(); ++i) records[i] = static_cast<char>(i * 7);
  // Records in pieces, the last taken in part, as a socket would take it.
  ASSERT_EQ(BIO_write(bio_, records.data(), 20000), 20000);
  ASSERT_EQ(BIO_write(bio_, records.data() + 20000, static_cast<int>(records.size() - 20000)),
            static_cast<int>(limit - 20000));
  EXPECT_EQ(buffers_.output_size(), limit);
  EXPECT_EQ(BIO_ctrl_wpending(bio_), limit);
  EXPECT_LE(BIO_write(bio_, records.data() + limit, 1000), 0);
  EXPECT_TRUE(BIO_should_retry(bio_));
  EXPECT_TRUE(BIO_should_write(bio_));
  EXPECT_EQ(BIO_flush(bio_), 1);

  // Sent in pieces, oldest first; the buffer goes back once all is sent.
  SpareOutputBuffers& spares = SpareOutputBuffers::for_this_thread();
  const std::size_t kept = spares.kept();
  EXPECT_TRUE(buffers_.output() == std::string_view(records).substr(0, limit)) << "all of it, in one piece";
  buffers_.consume_output(100);
  EXPECT_EQ(buffers_.output().size(), limit - 100);
  EXPECT_EQ(spares.kept(), kept);
  buffers_.consume_output(limit - 100);
  EXPECT_FALSE(buffers_.has_output());
  EXPECT_EQ(spares.kept(), kept + 1) << "the sent buffer must go back at once";

  // Room again: the rest goes in.
  ASSERT_EQ(BIO_write(bio_, records.data() + limit, 1000), 1000);
  EXPECT_EQ(buffers_.output(), std::string_view(records).substr(limit));
}

TEST_F(CiphertextBuffersTest, SmallRecordsShareABuffer) {
  for (int i = 0; i < 10; ++i) ASSERT_EQ(BIO_write(bio_, "0123456789", 10), 10);
  EXPECT_EQ(buffers_.output().size(), 100u) << "one buffer, one send";
  buffers_.consume_output(100);
  EXPECT_FALSE(buffers_.has_output());
}

}  // namespace
}  // namespace tiffany::tls
