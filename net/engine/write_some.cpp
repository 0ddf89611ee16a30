// write_some: one send on a plain socket, the whole write elsewhere.
#include "net/engine/write_some.hpp"

#include <tiffany/reactor/send.hpp>

namespace tiffany {

Task<IoResult> write_some(ByteStream& stream, const char* data, std::size_t size) {
  if (stream.socket() >= 0 && !stream.encrypted()) co_return co_await Send{stream.socket(), data, size};
  const IoResult wrote = co_await stream.write(data, size);
  co_return wrote ? IoResult{static_cast<int>(size)} : wrote;
}

}  // namespace tiffany
