// CiphertextBuffers: the BIO between OpenSSL and the ring, holding ciphertext
// in pooled buffers only while it is in flight.
#pragma once

#include <openssl/bio.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "reactor/read_lease.hpp"

namespace tiffany::tls {

/// Ciphertext between a socket and an SSL, as a BIO that OpenSSL reads from
/// and writes to. Both directions live in pooled 16 KiB buffers that are held
/// only while they carry bytes, so a connection with nothing in flight holds
/// none (the BIO pair this replaces kept 51 KiB per connection for its life):
///  - inbound, the lease of one pooled receive (RecvPooled): OpenSSL reads
///    from it and it goes back to its pool when emptied;
///  - outbound, up to kMaxOutput spare read buffers taken as OpenSSL writes
///    records and given back as the socket takes them. When they are full,
///    a write asks OpenSSL to retry (SSL_ERROR_WANT_WRITE) after a flush.
///
/// Not movable: the BIO points at it. Single-threaded (the spares are the
/// thread's own).
class CiphertextBuffers {
 public:
  /// At most this many outbound buffers (64 KiB): about four full records.
  static constexpr std::size_t kMaxOutput = 4;

  CiphertextBuffers() = default;
  CiphertextBuffers(const CiphertextBuffers&) = delete;
  CiphertextBuffers& operator=(const CiphertextBuffers&) = delete;

  /// A new BIO over these buffers, for SSL_set_bio (rbio and wbio both);
  /// whoever owns it must free it before these buffers go. Throws
  /// std::bad_alloc.
  BIO* new_bio();

  /// Ciphertext received and not yet read by OpenSSL.
  bool has_input() const noexcept { return input_.holds_buffer(); }
  std::size_t input_size() const noexcept { return input_.size() - input_at_; }
  /// Hands OpenSSL `received` (a pooled receive's bytes). Only when
  /// has_input() is false: OpenSSL asks for more only once it took it all.
  void add_input(ReadLease received) noexcept;

  /// Ciphertext OpenSSL wrote and the socket has not taken yet.
  bool has_output() const noexcept { return output_count_ > 0; }
  std::size_t output_size() const noexcept;
  /// The oldest unsent bytes (of one buffer); empty when none.
  std::string_view next_output() const noexcept;
  /// Drops the first `sent` bytes of next_output(), giving emptied buffers back.
  void consume_output(std::size_t sent) noexcept;

 private:
  static int on_write(BIO* bio, const char* data, std::size_t size, std::size_t* written);
  static int on_read(BIO* bio, char* data, std::size_t size, std::size_t* read);
  static long on_ctrl(BIO* bio, int command, long number, void* pointer);
  static int on_create(BIO* bio);
  std::size_t write(const char* data, std::size_t size) noexcept;
  std::size_t read(char* data, std::size_t size) noexcept;

  ReadLease input_;
  std::uint32_t input_at_ = 0;   // bytes of input_ OpenSSL has read
  std::uint32_t output_at_ = 0;  // bytes of output_[0] the socket has taken
  std::uint32_t output_count_ = 0;
  std::array<ReadLease, kMaxOutput> output_;  // oldest first; each filled up to its size()
};

}  // namespace tiffany::tls
