// CiphertextBuffers: the BIO between OpenSSL and the ring, holding ciphertext
// in pooled buffers only while it is in flight.
#pragma once

#include <openssl/bio.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <tiffany/reactor/read_lease.hpp>

namespace tiffany::tls {

/// Ciphertext between a socket and an SSL, as a BIO that OpenSSL reads from
/// and writes to. Both directions live in pooled buffers that are held only
/// while they carry bytes, so a connection with nothing in flight holds none
/// (the BIO pair this replaces kept 51 KiB per connection for its life):
///  - inbound, the lease of one pooled receive (RecvPooled, 16 KiB): OpenSSL
///    reads from it and it goes back to its pool when emptied;
///  - outbound, one SpareOutputBuffers buffer (64 KiB, about four full
///    records) taken when OpenSSL writes and given back once the socket has
///    taken it all. When it is full, a write asks OpenSSL to retry
///    (SSL_ERROR_WANT_WRITE) after a flush.
///
/// Not movable: the BIO points at it. Single-threaded (the spares are the
/// thread's own).
class CiphertextBuffers {
 public:
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
  bool has_output() const noexcept { return output_.holds_buffer(); }
  std::size_t output_size() const noexcept { return output_.size() - output_at_; }
  /// The unsent bytes, oldest first; empty when none.
  std::string_view output() const noexcept { return output_.bytes().substr(output_at_); }
  /// Drops the first `sent` bytes of output(); once all are sent, the buffer goes back.
  void consume_output(std::size_t sent) noexcept;

 private:
  static int on_write(BIO* bio, const char* data, std::size_t size, std::size_t* written);
  static int on_read(BIO* bio, char* data, std::size_t size, std::size_t* read);
  static long on_ctrl(BIO* bio, int command, long number, void* pointer);
  static int on_create(BIO* bio);
  std::size_t write(const char* data, std::size_t size) noexcept;
  std::size_t read(char* data, std::size_t size) noexcept;

  ReadLease input_;
  ReadLease output_;             // filled up to its size()
  std::uint32_t input_at_ = 0;   // bytes of input_ OpenSSL has read
  std::uint32_t output_at_ = 0;  // bytes of output_ the socket has taken
};

}  // namespace tiffany::tls
