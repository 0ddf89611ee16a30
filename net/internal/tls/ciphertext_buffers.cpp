// CiphertextBuffers: a custom BIO method over a receive lease and spare buffers.
#include "net/internal/tls/ciphertext_buffers.hpp"

#include <openssl/err.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "net/engine/tls/spare_output_buffers.hpp"

namespace tiffany::tls {
namespace {

BIO_METHOD* make_method(int (*write)(BIO*, const char*, std::size_t, std::size_t*),
                        int (*read)(BIO*, char*, std::size_t, std::size_t*), long (*ctrl)(BIO*, int, long, void*),
                        int (*create)(BIO*)) {
  BIO_METHOD* method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tiffany ciphertext");
  if (method == nullptr || BIO_meth_set_write_ex(method, write) != 1 || BIO_meth_set_read_ex(method, read) != 1 ||
      BIO_meth_set_ctrl(method, ctrl) != 1 || BIO_meth_set_create(method, create) != 1) {
    BIO_meth_free(method);
    return nullptr;
  }
  return method;
}

}  // namespace

BIO* CiphertextBuffers::new_bio() {
  // Why once: a BIO_METHOD is immutable once set up and shared by every
  // thread's connections; static initialisation is thread-safe.
  static BIO_METHOD* const method = make_method(&on_write, &on_read, &on_ctrl, &on_create);
  BIO* bio = method != nullptr ? BIO_new(method) : nullptr;
  if (bio == nullptr) {
    ERR_clear_error();
    throw std::bad_alloc();
  }
  BIO_set_data(bio, this);
  return bio;
}

void CiphertextBuffers::add_input(ReadLease received) noexcept {
  input_ = std::move(received);
  input_at_ = 0;
  if (input_.size() == 0) input_.reset();
}

void CiphertextBuffers::consume_output(std::size_t sent) noexcept {
  output_at_ += static_cast<std::uint32_t>(sent);
  if (output_at_ < output_.size()) return;
  output_.reset();  // all sent: the buffer goes back to its pool at once
  output_at_ = 0;
}

std::size_t CiphertextBuffers::write(const char* data, std::size_t size) noexcept {
  if (size == 0) return 0;  // takes no buffer: one held empty would never be sent back
  if (!output_.holds_buffer()) {
    try {
      output_ = SpareOutputBuffers::for_this_thread().take();
    } catch (const std::bad_alloc&) {
      return 0;  // no memory: a failure, as nothing waits to go
    }
  }
  const std::size_t n = std::min(size, SpareOutputBuffers::kBytes - output_.size());
  std::memcpy(output_.data() + output_.size(), data, n);
  output_.set_size(output_.size() + n);
  return n;
}

std::size_t CiphertextBuffers::read(char* data, std::size_t size) noexcept {
  const std::size_t n = std::min(size, input_size());
  std::memcpy(data, input_.data() + input_at_, n);
  input_at_ += static_cast<std::uint32_t>(n);
  if (input_at_ == input_.size()) {  // all read: the buffer goes back to its pool at once
    input_.reset();
    input_at_ = 0;
  }
  return n;
}

int CiphertextBuffers::on_write(BIO* bio, const char* data, std::size_t size, std::size_t* written) {
  BIO_clear_retry_flags(bio);
  auto* self = static_cast<CiphertextBuffers*>(BIO_get_data(bio));
  *written = self->write(data, size);
  if (*written > 0 || size == 0) return 1;
  if (self->has_output()) BIO_set_retry_write(bio);  // else: no memory, a hard failure
  return 0;
}

int CiphertextBuffers::on_read(BIO* bio, char* data, std::size_t size, std::size_t* read) {
  BIO_clear_retry_flags(bio);
  auto* self = static_cast<CiphertextBuffers*>(BIO_get_data(bio));
  if (!self->has_input()) {
    // Why retry, never EOF: the socket's EOF is TlsStream's to report; to
    // OpenSSL, no input is only "not yet".
    *read = 0;
    BIO_set_retry_read(bio);
    return 0;
  }
  *read = self->read(data, size);
  return 1;
}

long CiphertextBuffers::on_ctrl(BIO* bio, int command, long, void*) {
  const auto* self = static_cast<const CiphertextBuffers*>(BIO_get_data(bio));
  switch (command) {
    case BIO_CTRL_FLUSH: return 1;  // the caller sends what is buffered; OpenSSL need not wait for it
    case BIO_CTRL_PENDING: return static_cast<long>(self->input_size());
    case BIO_CTRL_WPENDING: return static_cast<long>(self->output_size());
    default: return 0;  // no kTLS, no EOF, nothing to push or pop
  }
}

int CiphertextBuffers::on_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

}  // namespace tiffany::tls
