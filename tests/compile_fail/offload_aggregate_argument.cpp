// Must not compile: an aggregate temporary with a string member as an
// argument inside co_await (g++ 12 destroys it twice). offload refuses it.
#include <string>

#include <tiffany/coro/offload.hpp>

struct Upload {
  std::string name;
  std::string body;
};

tiffany::Task<std::size_t> store(tiffany::OffloadPool& pool) {
  co_return co_await tiffany::offload(
      pool, [](Upload upload) { return upload.body.size(); }, Upload{"a", "b"});
}
