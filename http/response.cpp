// Response: BodySink's default file sending (read a piece, write it, until done).
#include <unistd.h>

#include <cerrno>
#include <string>

#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {
constexpr std::size_t kFilePiece = 64 * 1024;
}  // namespace

Task<Delivery> BodySink::send_file(Response& response, int fd, std::uint64_t offset, std::uint64_t length) {
  std::string piece(length < kFilePiece ? static_cast<std::size_t>(length) : kFilePiece, '\0');
  for (std::uint64_t left = length; left > 0;) {
    const std::size_t want = left < piece.size() ? static_cast<std::size_t>(left) : piece.size();
    const ssize_t got = ::pread(fd, piece.data(), want, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) co_return Delivery::closed;  // a read error, or the file shrank under us
    const Delivery sent = co_await write_body(response, std::string_view(piece.data(), static_cast<std::size_t>(got)));
    if (sent == Delivery::closed) co_return Delivery::closed;
    offset += static_cast<std::uint64_t>(got);
    left -= static_cast<std::uint64_t>(got);
  }
  co_return Delivery::sent;
}

}  // namespace tiffany::http
