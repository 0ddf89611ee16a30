// Must not compile: a lambda temporary capturing a string, inside co_await
// (g++ 12 destroys its captures twice). offload refuses it at compile time.
#include <string>

#include <tiffany/coro/offload.hpp>

tiffany::Task<std::size_t> hash_body(tiffany::OffloadPool& pool, std::string request_body) {
  co_return co_await tiffany::offload(pool, [body = request_body] { return body.size(); });
}
