// connect_to: a simulated client's connect, through the reactor.
#include "sim/peers/peer_connect.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <tiffany/reactor/connect.hpp>
#include <tiffany/reactor/socket_calls.hpp>

namespace tiffany::sim {

Task<UniqueFd> connect_to(const char* ip, std::uint16_t port) {
  UniqueFd socket(SocketCalls::current().socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(port);
  inet_pton(AF_INET, ip, &server.sin_addr);
  const IoResult connected = co_await Connect{socket.get(), reinterpret_cast<const sockaddr*>(&server), sizeof server};
  if (!connected) socket.reset();
  co_return socket;
}

}  // namespace tiffany::sim
