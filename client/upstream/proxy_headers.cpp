// Proxy header rewriting (RFC 9110 §7.6, RFC 7239): what a reverse proxy changes in requests and responses it forwards.
#include "client/upstream/proxy_headers.hpp"

#include <charconv>

namespace tiffany::upstream {
namespace {

// Every value of `name` as one comma list ("a, b"), or "" when absent.
std::string joined(const http::Headers& headers, std::string_view name) {
  std::string list;
  for (const http::Headers::Field& field : headers) {
    if (!http::iequals(field.name, name)) continue;
    const std::string_view value = http::trim_ows(field.value);
    if (value.empty()) continue;
    if (!list.empty()) list += ", ";
    list += value;
  }
  return list;
}

// Sets `name` to the list it held with `value` appended.
void append_to_list(http::Headers& headers, std::string_view name, std::string_view value) {
  const std::string existing = joined(headers, name);
  if (existing.empty()) {
    headers.set(name, value);
    return;
  }
  headers.set(name, existing + ", " + std::string(value));
}

}  // namespace

bool is_fixed_hop_by_hop(std::string_view name) noexcept {
  // Why by length first: most fields are rejected by one comparison.
  switch (name.size()) {
    case 2: return http::iequals(name, "TE");
    case 7: return http::iequals(name, "Upgrade") || http::iequals(name, "Trailer");
    case 10: return http::iequals(name, "Connection") || http::iequals(name, "Keep-Alive");
    case 16: return http::iequals(name, "Proxy-Connection");
    case 17: return http::iequals(name, "Transfer-Encoding");
    case 18: return http::iequals(name, "Proxy-Authenticate");
    case 19: return http::iequals(name, "Proxy-Authorization");
    default: return false;
  }
}

bool is_forwarding_field(std::string_view name) noexcept {
  switch (name.size()) {
    case 9: return http::iequals(name, "Forwarded");
    case 15: return http::iequals(name, "X-Forwarded-For");
    case 16: return http::iequals(name, "X-Forwarded-Host");
    case 17: return http::iequals(name, "X-Forwarded-Proto");
    default: return false;
  }
}

HopByHop::HopByHop(const http::Headers& headers) {
  for (const http::Headers::Field& field : headers) {
    if (!http::iequals(field.name, "Connection")) continue;
    std::string_view value = field.value;
    while (!value.empty()) {
      const std::size_t comma = value.find(',');
      const std::string_view option = http::trim_ows(value.substr(0, comma));
      // Why Host is kept: a client could otherwise strip the field the
      // upstream routes on; it is no hop-by-hop field. Why the fixed names
      // are skipped: they go anyway ("Connection: keep-alive" costs nothing).
      if (!option.empty() && !http::iequals(option, "Host") && !is_fixed_hop_by_hop(option)) named_.emplace_back(option);
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
}

bool HopByHop::operator()(std::string_view name) const noexcept {
  if (is_fixed_hop_by_hop(name)) return true;
  for (const std::string& named : named_) {
    if (http::iequals(named, name)) return true;
  }
  return false;
}

void remove_hop_by_hop(http::Headers& headers) {
  const HopByHop hop_by_hop(headers);
  headers.remove_if([&](const http::Headers::Field& field) { return hop_by_hop(field.name); });
}

std::string via_protocol(int version_major, int version_minor) {
  std::string protocol = std::to_string(version_major);
  if (version_major < 2) protocol.append(".").append(std::to_string(version_minor));
  return protocol;
}

std::string via_value(int version_major, int version_minor, std::string_view via_name) {
  return via_protocol(version_major, version_minor).append(" ").append(via_name);
}

namespace {

// `value` with `"` and `\` escaped, for inside a quoted-string.
void append_escaped(std::string& out, std::string_view value) {
  for (std::size_t from = 0;;) {
    const std::size_t special = value.find_first_of("\"\\", from);
    out.append(value.substr(from, special - from));
    if (special == std::string_view::npos) return;
    out += '\\';
    out += value[special];
    from = special + 1;
  }
}

}  // namespace

void append_forwarded_value(std::string& out, std::string_view value) {
  bool token = !value.empty();
  for (const char c : value) token = token && http::is_token_char(c);
  if (token) {
    out.append(value);
    return;
  }
  out += '"';
  append_escaped(out, value);
  out += '"';
}

void append_forwarded_node(std::string& out, std::string_view address, std::uint16_t port) {
  if (address.empty()) {
    out.append("unknown");
    return;
  }
  const bool ipv6 = address.find(':') != std::string_view::npos;
  if (!ipv6 && port == 0) {
    append_forwarded_value(out, address);
    return;
  }
  // Why always quoted here: ':', '[' and ']' are no token characters.
  out += '"';
  if (ipv6) out += '[';
  append_escaped(out, address);
  if (ipv6) out += ']';
  if (port != 0) {
    char digits[8];
    const char* end = std::to_chars(digits, digits + sizeof digits, port).ptr;
    out.append(":").append(digits, static_cast<std::size_t>(end - digits));
  }
  out += '"';
}

std::string forwarded_value(std::string_view value) {
  std::string out;
  append_forwarded_value(out, value);
  return out;
}

std::string forwarded_node(std::string_view address, std::uint16_t port) {
  std::string out;
  append_forwarded_node(out, address, port);
  return out;
}

void add_forwarding_headers(http::Headers& headers, std::string_view client_host, const ClientInfo& client,
                            const ProxyHeaderOptions& options) {
  const bool trust = options.trust_forwarded;
  const std::string_view proto = client.tls ? "https" : "http";

  const std::string_view address = client.address.empty() ? std::string_view("unknown") : client.address;
  std::string element;
  element.reserve(64 + client.address.size() + client_host.size());
  element.append("for=");
  append_forwarded_node(element, client.address, client.port);
  element.append(";proto=").append(proto);
  if (!client_host.empty()) {
    element.append(";host=");
    append_forwarded_value(element, client_host);
  }

  headers.add("Via", via_value(client.version_major, client.version_minor, options.via_name));
  if (!trust) {
    // Why plain adds: untrusted, the caller has dropped the client's own.
    headers.add("X-Forwarded-For", address);
    headers.add("X-Forwarded-Proto", proto);
    if (!client_host.empty()) headers.add("X-Forwarded-Host", client_host);
    headers.add("Forwarded", element);
    return;
  }
  append_to_list(headers, "X-Forwarded-For", address);
  // Why trusted -Proto and -Host are kept, not appended: they are single
  // values naming the first hop, which a trusted proxy in front already set.
  if (!headers.contains("X-Forwarded-Proto")) headers.set("X-Forwarded-Proto", proto);
  if (!client_host.empty() && !headers.contains("X-Forwarded-Host")) headers.set("X-Forwarded-Host", client_host);
  append_to_list(headers, "Forwarded", element);
}

void rewrite_request_headers(http::Headers& headers, const ClientInfo& client, const ProxyHeaderOptions& options) {
  const HopByHop hop_by_hop(headers);
  const bool trust = options.trust_forwarded;
  const std::string client_host(headers.get("Host").value_or(""));
  headers.remove_if([&](const http::Headers::Field& field) {
    return hop_by_hop(field.name) || (!trust && is_forwarding_field(field.name));
  });
  add_forwarding_headers(headers, client_host, client, options);
  if (!options.upstream_host.empty()) headers.set("Host", options.upstream_host);
}

void rewrite_response_headers(http::Headers& headers, int version_major, int version_minor,
                              const ProxyHeaderOptions& options) {
  remove_hop_by_hop(headers);
  headers.add("Via", via_value(version_major, version_minor, options.via_name));
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
