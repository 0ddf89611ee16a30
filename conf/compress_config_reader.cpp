// read_compress: codings, min_bytes, types and levels, each checked where it is written.
#include "conf/compress_config_reader.hpp"

#include <algorithm>
#include <string>

#include "conf/config_error.hpp"

namespace tiffany {
namespace {

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::vector<std::string> read_codings(const JsonNode& node) {
  const char* expectation = "a non-empty array of codings from \"br\", \"zstd\", \"gzip\", most preferred first";
  if (!node.raw().is<picojson::array>()) node.fail(expectation);
  std::vector<std::string> codings;
  for (const JsonNode& item : node.as_array()) {
    std::string coding = item.as_choice({"br", "zstd", "gzip"});
    if (std::find(codings.begin(), codings.end(), coding) != codings.end()) {
      throw ConfigError(item.file(), item.path(), "\"" + coding + "\" is listed twice");
    }
    codings.push_back(std::move(coding));
  }
  if (codings.empty()) node.fail(expectation);
  return codings;
}

std::vector<std::string> read_types(const JsonNode& node) {
  const char* expectation = "a non-empty array of media types such as \"text/*\" or \"application/json\"";
  if (!node.raw().is<picojson::array>()) node.fail(expectation);
  std::vector<std::string> types;
  for (const JsonNode& item : node.as_array()) {
    if (!item.raw().is<std::string>()) item.fail("a media type such as \"text/*\" or \"application/json\"");
    std::string type = lower(item.as_string());
    const auto slash = type.find('/');
    const bool valid = slash != std::string::npos && is_token(std::string_view(type).substr(0, slash)) &&
                       type.substr(0, slash) != "*" && is_token(std::string_view(type).substr(slash + 1));
    if (!valid) item.fail("a media type \"type/subtype\" or \"type/*\" (no parameters)");
    types.push_back(std::move(type));
  }
  if (types.empty()) node.fail(expectation);
  return types;
}

void read_levels(const JsonNode& node, CompressConfig& compress) {
  if (!node.raw().is<picojson::object>()) node.fail("an object of levels such as {\"br\": 4, \"zstd\": 3, \"gzip\": 5}");
  const ObjectReader reader(node, {"br", "zstd", "gzip"});
  if (auto level = reader.optional("br")) compress.br_level = static_cast<int>(level->as_integer(0, 11));
  // Why at most 19: higher zstd levels use windows over 8 MiB, which HTTP
  // decoders may refuse (RFC 8878 §3.1.1.1.2).
  if (auto level = reader.optional("zstd")) compress.zstd_level = static_cast<int>(level->as_integer(1, 19));
  if (auto level = reader.optional("gzip")) compress.gzip_level = static_cast<int>(level->as_integer(1, 9));
}

}  // namespace

CompressConfig read_compress(const JsonNode& node, const CompressConfig& inherited) {
  CompressConfig compress = inherited.enabled ? inherited : CompressConfig{};
  compress.json_path = node.path();
  if (node.raw().is<bool>()) {
    compress.enabled = node.as_bool();
    return compress;
  }
  if (!node.raw().is<picojson::object>()) {
    node.fail("false, true or an object with \"codings\", \"min_bytes\", \"types\" and \"level\"");
  }
  const ObjectReader reader(node, {"codings", "min_bytes", "types", "level"});
  compress.enabled = true;
  if (auto codings = reader.optional("codings")) compress.codings = read_codings(*codings);
  if (auto min_bytes = reader.optional("min_bytes")) {
    compress.min_bytes = static_cast<std::uint64_t>(min_bytes->as_integer(0, std::int64_t{1} << 30));
  }
  if (auto types = reader.optional("types")) compress.types = read_types(*types);
  if (auto level = reader.optional("level")) read_levels(*level, compress);
  return compress;
}

}  // namespace tiffany
