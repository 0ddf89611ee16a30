// The HTTP protocol: an HttpConnection state per burst, from the spares.
#include "server/http/http_protocol.hpp"

namespace tiffany {

Task<bool> HttpProtocol::serve(ByteStream& stream, ConnectionContext& context, ReadLease first) {
  std::unique_ptr<http::HttpConnection> state;
  if (spare_states_.empty()) {
    state = std::make_unique<http::HttpConnection>(site_);
  } else {
    state = std::move(spare_states_.back());
    spare_states_.pop_back();
  }
  const bool keep_open = co_await state->serve(stream, context, std::move(first));
  // Why only then: a burst that ends idle leaves the parser between
  // requests, ready for anyone; one that closes may leave it mid-message.
  if (keep_open && spare_states_.size() < kMaxSpareStates) {
    state->trim();
    spare_states_.push_back(std::move(state));
  }
  co_return keep_open;
}

}  // namespace tiffany
