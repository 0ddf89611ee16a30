// json: a fixed document, or the request reflected as JSON (picojson).
#include "handlers/builtin/json_handler.hpp"

#include <picojson.h>

#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include <tiffany/http/utf8.hpp>

namespace tiffany {
namespace {

// Why: a request carries any bytes (`/users/%ff` decodes to 0xff), and a
// strict JSON parser refuses a document holding invalid UTF-8; each bad byte
// becomes U+FFFD. Valid text (nearly all) is copied as is.
std::string utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  http::append_utf8_replacing_invalid(text, out);
  return out;
}

constexpr char lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool less_ignoring_case(std::string_view a, std::string_view b) noexcept {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](char x, char y) { return lower(x) < lower(y); });
}

// {"Name": "value", "Repeated": ["first", "second"]}. Names are
// case-insensitive: "x-tag" repeats "X-Tag", and the spelling seen first wins.
picojson::object describe_headers(const http::Headers& fields) {
  // Why a sort and not a lookup per field: a scan of the names so far is
  // quadratic (40,000 distinct names held a worker for seconds), a hash an
  // attacker can flood, and a tree costs a node and a cache miss per name.
  // A stable sort groups equal names in arrival order in O(n log n).
  std::vector<const http::Headers::Field*> by_name;
  by_name.reserve(fields.size());
  for (const http::Headers::Field& field : fields) by_name.push_back(&field);
  std::stable_sort(by_name.begin(), by_name.end(),
                   [](const auto* a, const auto* b) { return less_ignoring_case(a->name, b->name); });
  picojson::object headers;
  for (auto group = by_name.begin(); group != by_name.end();) {
    auto group_end = std::next(group);
    while (group_end != by_name.end() && http::iequals((*group_end)->name, (*group)->name)) ++group_end;
    picojson::value value;
    if (group_end - group == 1) {
      value = picojson::value(utf8((*group)->value));
    } else {
      picojson::array values;
      values.reserve(static_cast<std::size_t>(group_end - group));
      for (auto field = group; field != group_end; ++field) values.emplace_back(utf8((*field)->value));
      value = picojson::value(std::move(values));
    }
    // Why the hint: names sorted ignoring case are nearly always sorted with
    // case too (one capitalisation style), so each insert is O(1); where the
    // object's case-sensitive order differs, it is an ordinary insert.
    headers.emplace_hint(headers.end(), (*group)->name, std::move(value));  // a name is a token: ASCII
    group = group_end;
  }
  return headers;
}

picojson::value describe_request(const http::Request& request) {
  picojson::object headers = describe_headers(request.headers);
  picojson::object params;
  for (const auto& [name, value] : request.params) params.emplace(name, picojson::value(utf8(value)));
  picojson::object document;
  document.emplace("method", picojson::value(request.method));
  document.emplace("path", picojson::value(utf8(request.path)));
  document.emplace("query", picojson::value(utf8(request.query)));
  document.emplace("headers", picojson::value(std::move(headers)));
  document.emplace("params", picojson::value(std::move(params)));
  return picojson::value(std::move(document));
}

}  // namespace

JsonHandler::JsonHandler(const HandlerParams& params) {
  if (const picojson::value* document = params.json("document")) document_ = document->serialize();
}

Task<void> JsonHandler::handle(http::Request& request, http::Response& response) {
  response.headers.add("Content-Type", "application/json");
  response.body = document_ ? *document_ : describe_request(request).serialize();
  co_return;
}

}  // namespace tiffany
