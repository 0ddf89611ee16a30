// permessage-deflate's negotiation: parsing Sec-WebSocket-Extensions offers, choosing, answering.
#include "http/engine/websocket/deflate_negotiation.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace tiffany::http::websocket {
namespace {

constexpr std::string_view kName = "permessage-deflate";

// One offer's parameters, as the client sent them.
struct Offer {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  std::optional<int> server_max_window_bits;
  bool client_max_window_bits = false;  // offered: we may choose the client's window
  std::optional<int> client_max_window_bits_value;
};

// A window size parameter's value: 8 to 15, a token or quoted string of digits (§7.1.2).
std::optional<int> window_bits(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  if (value.size() == 1 && value[0] >= '8' && value[0] <= '9') return value[0] - '0';
  if (value.size() == 2 && value[0] == '1' && value[1] >= '0' && value[1] <= '5') return 10 + (value[1] - '0');
  return std::nullopt;
}

// Parses the "; p1; p2=v" after an offer's name; nullopt for an offer to decline.
std::optional<Offer> parse_offer(std::string_view after_name) {
  Offer offer;
  std::vector<std::string_view> seen;
  while (!after_name.empty()) {
    after_name.remove_prefix(1);  // the ';'
    const std::size_t semicolon = after_name.find(';');
    const std::string_view parameter = trim_ows(after_name.substr(0, semicolon));
    after_name.remove_prefix(semicolon == std::string_view::npos ? after_name.size() : semicolon);
    if (parameter.empty()) return std::nullopt;  // an empty parameter, as in a trailing semicolon
    const std::size_t equals = parameter.find('=');
    const std::string_view name = trim_ows(parameter.substr(0, equals));
    const std::optional<std::string_view> value =
        equals == std::string_view::npos ? std::nullopt : std::optional(trim_ows(parameter.substr(equals + 1)));
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) return std::nullopt;  // §7: a repeated parameter
    seen.push_back(name);
    if (name == "server_no_context_takeover" && !value) {
      offer.server_no_context_takeover = true;
    } else if (name == "client_no_context_takeover" && !value) {
      offer.client_no_context_takeover = true;
    } else if (name == "server_max_window_bits" && value) {
      offer.server_max_window_bits = window_bits(*value);
      if (!offer.server_max_window_bits) return std::nullopt;
    } else if (name == "client_max_window_bits") {
      offer.client_max_window_bits = true;
      if (value) {
        offer.client_max_window_bits_value = window_bits(*value);
        if (!offer.client_max_window_bits_value) return std::nullopt;
      }
    } else {
      return std::nullopt;  // unknown, or a value where none belongs (or none where one must be)
    }
  }
  return offer;
}

DeflateAgreement answer(const Offer& offer, const WebSocketCompression& settings) {
  DeflateAgreement agreed;
  agreed.server_context_takeover = settings.context_takeover && !offer.server_no_context_takeover;
  agreed.client_context_takeover = settings.context_takeover && !offer.client_no_context_takeover;
  agreed.server_window_bits = std::clamp(settings.window_bits, 9, 15);
  if (offer.server_max_window_bits) agreed.server_window_bits = std::min(agreed.server_window_bits, *offer.server_max_window_bits);
  agreed.client_window_bits = 15;
  if (offer.client_max_window_bits) {
    // Why only then: a client that did not offer it may use any window (§7.1.2.2).
    agreed.client_window_bits = offer.client_max_window_bits_value.value_or(15);
    if (agreed.client_context_takeover) agreed.client_window_bits = std::min(agreed.client_window_bits, agreed.server_window_bits);
  }
  std::string& response = agreed.response;
  response = kName;
  // Why say the no_context_takeover ones even unasked: §7.1.1 lets a server; it is what keeps a connection free of zlib state.
  if (!agreed.server_context_takeover) response += "; server_no_context_takeover";
  if (!agreed.client_context_takeover) response += "; client_no_context_takeover";
  if (offer.server_max_window_bits || agreed.server_window_bits < 15) {
    response += "; server_max_window_bits=" + std::to_string(agreed.server_window_bits);
  }
  if (offer.client_max_window_bits && agreed.client_window_bits < 15) {
    response += "; client_max_window_bits=" + std::to_string(agreed.client_window_bits);
  }
  return agreed;
}

}  // namespace

std::optional<DeflateAgreement> negotiate_deflate(const Headers& headers, const WebSocketCompression& settings) {
  if (!settings.enabled) return std::nullopt;
  for (const std::string_view field : headers.get_all("Sec-WebSocket-Extensions")) {
    std::string_view offers = field;
    while (!offers.empty()) {
      const std::size_t comma = offers.find(',');
      const std::string_view element = trim_ows(offers.substr(0, comma));
      offers.remove_prefix(comma == std::string_view::npos ? offers.size() : comma + 1);
      const std::size_t semicolon = element.find(';');
      if (!iequals(trim_ows(element.substr(0, semicolon)), kName)) continue;
      const std::optional<Offer> offer =
          parse_offer(semicolon == std::string_view::npos ? std::string_view() : element.substr(semicolon));
      // Why decline 8: zlib makes a 9-bit window of it, which a peer that asked for 8 may not inflate.
      if (!offer || offer->server_max_window_bits == 8) continue;
      return answer(*offer, settings);
    }
  }
  return std::nullopt;
}

}  // namespace tiffany::http::websocket
