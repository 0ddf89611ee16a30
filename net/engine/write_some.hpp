// write_some: what a write timeout counts as progress, for the server's writers (WebSocket, HTTP/2).
#pragma once

#include <cstddef>

#include <tiffany/coro/task.hpp>
#include <tiffany/net/byte_stream.hpp>
#include <tiffany/reactor/io_result.hpp>

namespace tiffany {

/// Writes some of `data` (at most `size`, which must fit an int): on a plain
/// socket one send, returning how many bytes the peer's side took; on any
/// other stream (TLS, an HTTP/2 tunnel) the whole of it, returning `size`.
/// Why: a write timeout is meant to drop a peer that takes nothing, and a
/// slow link that keeps taking a little must stay; a deadline re-armed after
/// each call does that over a plain socket, where a whole large write at a
/// few KiB a second would outlast it though the peer reads all along.
Task<IoResult> write_some(ByteStream& stream, const char* data, std::size_t size);

}  // namespace tiffany
