// JSON bodies: picojson parsing with a position in the error, serialising.
#include <tiffany/http/json_body.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tiffany/http/media_type.hpp>
#include <tiffany/http/request.hpp>
#include <tiffany/http/response.hpp>

namespace tiffany::http {
namespace {

// picojson's reader, telling where it stopped: on a syntax error, the byte it rejected.
class ParseInput : public picojson::input<const char*> {
 public:
  using picojson::input<const char*>::input;
  std::size_t offending(const char* first) const noexcept { return static_cast<std::size_t>(cur_ - first); }
};

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// "line L, column C" of offset `at` in `text` (both from 1).
std::string position(std::string_view text, std::size_t at) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

std::optional<picojson::value> parse_json(std::string_view text, std::string& error) {
  std::size_t start = 0;
  while (start < text.size() && is_space(text[start])) ++start;
  if (start == text.size()) {
    error = "empty body, expected JSON";
    return std::nullopt;
  }
  picojson::value value;
  picojson::default_parse_context context(&value);
  ParseInput in(text.data(), text.data() + text.size());
  bool parsed = false;
  try {
    parsed = picojson::_parse(context, in);
  } catch (const std::overflow_error&) {
    // Why: picojson throws for a number beyond a double (1e999) instead of failing.
    error = "bad JSON at " + position(text, std::min(in.offending(text.data()), text.size())) +
            ": number out of range";
    return std::nullopt;
  }
  if (!parsed) {
    const std::size_t at = in.offending(text.data());
    if (at >= text.size()) {
      error = "bad JSON at " + position(text, at) + ": unexpected end";
    } else {
      std::string near;
      for (std::size_t i = at; i < text.size() && near.size() < 16 && text[i] != '\n' && text[i] != '\r'; ++i) near += text[i];
      error = "bad JSON at " + position(text, at) + ": unexpected \"" + near + "\"";
    }
    return std::nullopt;
  }
  const auto stopped_at = static_cast<std::size_t>(in.cur() - text.data());
  std::size_t rest = stopped_at;
  while (rest < text.size() && is_space(text[rest])) ++rest;
  if (rest != text.size()) {
    error = "bad JSON at " + position(text, rest) + ": more after the value";
    return std::nullopt;
  }
  return value;
}

std::optional<picojson::value> read_json(const Request& request, Response& response) {
  if (const auto type = request.headers.get("Content-Type")) {
    const std::string_view media = type->substr(0, type->find(';'));
    const bool json = media_type_is(*type, "application/json") || media.find("+json") != std::string_view::npos;
    if (!json) {
      write_json_error(response, Status::unsupported_media_type,
                       "expected Content-Type application/json, got " + std::string(media));
      return std::nullopt;
    }
  }
  std::string error;
  std::optional<picojson::value> value = parse_json(request.body, error);
  if (!value) write_json_error(response, Status::bad_request, error);
  return value;
}

void write_json(Response& response, const picojson::value& value, Status status) {
  response.set_status(status);
  response.headers.set("Content-Type", "application/json");
  response.body = value.serialize();
}

void write_json_error(Response& response, Status status, std::string_view message) {
  picojson::object error;
  error["error"] = picojson::value(std::string(message));
  write_json(response, picojson::value(std::move(error)), status);
}

}  // namespace tiffany::http
