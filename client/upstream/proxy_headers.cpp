// Proxy header rewriting (RFC 9110 §7.6, RFC 7239): what a reverse proxy changes in requests and responses it forwards.
#include "client/upstream/proxy_headers.hpp"

#include <vector>

namespace tiffany::upstream {
namespace {

constexpr std::string_view kHopByHop[] = {"Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding",
                                          "Upgrade", "Proxy-Authenticate", "Proxy-Authorization", "Trailer"};

// Every value of `name` as one comma list ("a, b"), or "" when absent.
std::string joined(const http::Headers& headers, std::string_view name) {
  std::string list;
  for (std::string_view value : headers.get_all(name)) {
    value = http::trim_ows(value);
    if (value.empty()) continue;
    if (!list.empty()) list += ", ";
    list += value;
  }
  return list;
}

// Replaces `name` with `value`, or (trusting) appends `value` to the existing list.
void set_or_append(http::Headers& headers, std::string_view name, const std::string& value, bool append) {
  const std::string existing = append ? joined(headers, name) : std::string();
  headers.set(name, existing.empty() ? value : existing + ", " + value);
}

}  // namespace

void remove_hop_by_hop(http::Headers& headers) {
  std::vector<std::string> named;
  for (std::string_view value : headers.get_all("Connection")) {
    while (!value.empty()) {
      const std::size_t comma = value.find(',');
      const std::string_view option = http::trim_ows(value.substr(0, comma));
      // Why Host is kept: a client could otherwise strip the field the
      // upstream routes on; it is no hop-by-hop field.
      if (!option.empty() && !http::iequals(option, "Host")) named.emplace_back(option);
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  for (const std::string& name : named) headers.remove(name);
  for (std::string_view name : kHopByHop) headers.remove(name);
}

std::string via_protocol(int version_major, int version_minor) {
  return version_major >= 2 ? std::to_string(version_major) : std::to_string(version_major) + "." + std::to_string(version_minor);
}

std::string forwarded_value(std::string_view value) {
  bool token = !value.empty();
  for (char c : value) token = token && http::is_token_char(c);
  if (token) return std::string(value);
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

std::string forwarded_node(std::string_view address, std::uint16_t port) {
  if (address.empty()) return "unknown";
  const bool ipv6 = address.find(':') != std::string_view::npos;
  std::string node = ipv6 ? "[" + std::string(address) + "]" : std::string(address);
  if (port != 0) node += ":" + std::to_string(port);
  return forwarded_value(node);
}

void rewrite_request_headers(http::Headers& headers, const ClientInfo& client, const ProxyHeaderOptions& options) {
  remove_hop_by_hop(headers);
  const std::string client_host(headers.get("Host").value_or(""));
  const bool trust = options.trust_forwarded;
  const std::string proto = client.tls ? "https" : "http";

  headers.add("Via", via_protocol(client.version_major, client.version_minor) + " " + options.via_name);
  set_or_append(headers, "X-Forwarded-For", client.address.empty() ? "unknown" : client.address, trust);
  // Why trusted -Proto and -Host are kept, not appended: they are single
  // values naming the first hop, which a trusted proxy in front already set.
  if (!trust || !headers.contains("X-Forwarded-Proto")) headers.set("X-Forwarded-Proto", proto);
  if (!client_host.empty()) {
    if (!trust || !headers.contains("X-Forwarded-Host")) headers.set("X-Forwarded-Host", client_host);
  } else if (!trust) {
    headers.remove("X-Forwarded-Host");
  }
  std::string element = "for=" + forwarded_node(client.address, client.port) + ";proto=" + proto;
  if (!client_host.empty()) element += ";host=" + forwarded_value(client_host);
  set_or_append(headers, "Forwarded", element, trust);
  if (!options.upstream_host.empty()) headers.set("Host", options.upstream_host);
}

void rewrite_response_headers(http::Headers& headers, int version_major, int version_minor,
                              const ProxyHeaderOptions& options) {
  remove_hop_by_hop(headers);
  headers.add("Via", via_protocol(version_major, version_minor) + " " + options.via_name);
}

std::string rewrite_path(std::string_view target, std::string_view strip_prefix, std::string_view replacement) {
  const std::size_t query_at = target.find('?');
  const std::string_view path = target.substr(0, query_at);
  const std::string_view query = query_at == std::string_view::npos ? std::string_view() : target.substr(query_at);
  while (!strip_prefix.empty() && strip_prefix.back() == '/') strip_prefix.remove_suffix(1);
  if (path.substr(0, strip_prefix.size()) != strip_prefix ||
      (path.size() > strip_prefix.size() && path[strip_prefix.size()] != '/')) {
    return std::string(target);
  }
  std::string_view rest = path.substr(strip_prefix.size());  // "" or "/..."
  while (!replacement.empty() && replacement.back() == '/') replacement.remove_suffix(1);
  std::string result = std::string(replacement) + std::string(rest);
  if (result.empty() || result.front() != '/') result.insert(result.begin(), '/');
  return result + std::string(query);
}

}  // namespace tiffany::upstream
