// The `compress` key of listeners and routes: defaults, inheritance, `false`, and one precise message per mistake.
#include <gtest/gtest.h>

#include <string>

#include "conf/config_error.hpp"
#include "conf/config_loader.hpp"
#include "unit/conf/config_error_for.hpp"

namespace tiffany {
namespace {

// A config with one http listener holding `listener_extra` and one route holding `route_extra`.
std::string config_with(const std::string& listener_extra, const std::string& route_extra = "") {
  return R"({"listeners": [{"name": "w", "address": "127.0.0.1:1", "protocol": "http")" + listener_extra +
         R"(, "routes": [{"path": "/", "handler": "health")" + route_extra + "}]}]}";
}

TEST(CompressConfig, OffUnlessAsked) {
  const Config config = parse_config(config_with(""), "test.json");
  EXPECT_FALSE(config.listeners[0].compress.enabled);
  EXPECT_FALSE(config.listeners[0].routes[0].compress.enabled);
}

TEST(CompressConfig, TrueMeansTheDocumentedDefaults) {
  const Config config = parse_config(config_with(R"(, "compress": true)"), "test.json");
  const CompressConfig& compress = config.listeners[0].routes[0].compress;
  EXPECT_TRUE(compress.enabled);
  EXPECT_EQ(compress.codings, (std::vector<std::string>{"br", "zstd", "gzip"}));
  EXPECT_EQ(compress.min_bytes, 1024u);
  EXPECT_EQ(compress.types,
            (std::vector<std::string>{"text/*", "application/json", "application/javascript", "image/svg+xml"}));
  EXPECT_EQ(compress.br_level, 4);
  EXPECT_EQ(compress.zstd_level, 3);
  EXPECT_EQ(compress.gzip_level, 5);
}

TEST(CompressConfig, ReadsEveryKeyAndLowerCasesTypes) {
  const Config config = parse_config(
      config_with(R"(, "compress": {"codings": ["gzip", "zstd"], "min_bytes": 0, "types": ["Text/HTML", "font/*"],
                                    "level": {"gzip": 9, "zstd": 19, "br": 11}})"),
      "test.json");
  const CompressConfig& compress = config.listeners[0].compress;
  EXPECT_EQ(compress.codings, (std::vector<std::string>{"gzip", "zstd"}));
  EXPECT_EQ(compress.min_bytes, 0u);
  EXPECT_EQ(compress.types, (std::vector<std::string>{"text/html", "font/*"}));
  EXPECT_EQ(compress.gzip_level, 9);
  EXPECT_EQ(compress.zstd_level, 19);
  EXPECT_EQ(compress.br_level, 11);
}

TEST(CompressConfig, ARouteInheritsTheListenersAndOverridesSomeKeysOrAll) {
  const Config inherits = parse_config(config_with(R"(, "compress": {"codings": ["gzip"], "min_bytes": 10})"),
                                       "test.json");
  EXPECT_TRUE(inherits.listeners[0].routes[0].compress.enabled);
  EXPECT_EQ(inherits.listeners[0].routes[0].compress.codings, (std::vector<std::string>{"gzip"}));
  EXPECT_EQ(inherits.listeners[0].routes[0].compress.json_path, "$.listeners[0].compress");

  const Config overrides = parse_config(
      config_with(R"(, "compress": {"codings": ["gzip"], "min_bytes": 10})", R"(, "compress": {"min_bytes": 20})"),
      "test.json");
  const CompressConfig& route = overrides.listeners[0].routes[0].compress;
  EXPECT_EQ(route.codings, (std::vector<std::string>{"gzip"}));  // kept from the listener
  EXPECT_EQ(route.min_bytes, 20u);
  EXPECT_EQ(route.json_path, "$.listeners[0].routes[0].compress");

  const Config off = parse_config(config_with(R"(, "compress": true)", R"(, "compress": false)"), "test.json");
  EXPECT_FALSE(off.listeners[0].routes[0].compress.enabled);

  const Config only_route = parse_config(config_with("", R"(, "compress": {"min_bytes": 5})"), "test.json");
  EXPECT_TRUE(only_route.listeners[0].routes[0].compress.enabled);
  EXPECT_EQ(only_route.listeners[0].routes[0].compress.codings, (std::vector<std::string>{"br", "zstd", "gzip"}));
}

struct Case {
  const char* name;
  std::string json;
  const char* message;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class CompressConfigErrors : public ::testing::TestWithParam<Case> {};

TEST_P(CompressConfigErrors, NameTheFilePathAndExpectation) {
  EXPECT_EQ(error_for(GetParam().json), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    CompressConfig, CompressConfigErrors,
    ::testing::Values(
        Case{"NotABooleanOrObject", config_with(R"(, "compress": "gzip")"),
             "test.json: $.listeners[0].compress: expected false, true or an object with \"codings\", \"min_bytes\", "
             "\"types\" and \"level\", got \"gzip\""},
        Case{"UnknownKey", config_with(R"(, "compress": {"min_size": 5})"),
             "test.json: $.listeners[0].compress.min_size: unknown key; expected one of \"codings\", \"min_bytes\", "
             "\"types\", \"level\""},
        Case{"UnknownCoding", config_with(R"(, "compress": {"codings": ["br", "deflate"]})"),
             "test.json: $.listeners[0].compress.codings[1]: expected one of \"br\", \"zstd\", \"gzip\", got "
             "\"deflate\""},
        Case{"NoCodings", config_with(R"(, "compress": {"codings": []})"),
             "test.json: $.listeners[0].compress.codings: expected a non-empty array of codings from \"br\", "
             "\"zstd\", \"gzip\", most preferred first, got an array"},
        Case{"CodingTwice", config_with(R"(, "compress": {"codings": ["gzip", "gzip"]})"),
             "test.json: $.listeners[0].compress.codings[1]: \"gzip\" is listed twice"},
        Case{"NegativeMinBytes", config_with(R"(, "compress": {"min_bytes": -1})"),
             "test.json: $.listeners[0].compress.min_bytes: expected an integer from 0 to 1073741824, got -1"},
        Case{"TypeWithoutSubtype", config_with(R"(, "compress": {"types": ["text"]})"),
             "test.json: $.listeners[0].compress.types[0]: expected a media type \"type/subtype\" or \"type/*\" (no "
             "parameters), got \"text\""},
        Case{"TypeWithParameters", config_with(R"(, "compress": {"types": ["text/html; charset=utf-8"]})"),
             "test.json: $.listeners[0].compress.types[0]: expected a media type \"type/subtype\" or \"type/*\" (no "
             "parameters), got \"text/html; charset=utf-8\""},
        Case{"StarStar", config_with(R"(, "compress": {"types": ["*/*"]})"),
             "test.json: $.listeners[0].compress.types[0]: expected a media type \"type/subtype\" or \"type/*\" (no "
             "parameters), got \"*/*\""},
        Case{"NoTypes", config_with(R"(, "compress": {"types": []})"),
             "test.json: $.listeners[0].compress.types: expected a non-empty array of media types such as "
             "\"text/*\" or \"application/json\", got an array"},
        Case{"BrLevelTooHigh", config_with(R"(, "compress": {"level": {"br": 12}})"),
             "test.json: $.listeners[0].compress.level.br: expected an integer from 0 to 11, got 12"},
        Case{"ZstdLevelTooHigh", config_with(R"(, "compress": {"level": {"zstd": 22}})"),
             "test.json: $.listeners[0].compress.level.zstd: expected an integer from 1 to 19, got 22"},
        Case{"GzipLevelZero", config_with(R"(, "compress": {"level": {"gzip": 0}})"),
             "test.json: $.listeners[0].compress.level.gzip: expected an integer from 1 to 9, got 0"},
        Case{"UnknownLevel", config_with(R"(, "compress": {"level": {"deflate": 1}})"),
             "test.json: $.listeners[0].compress.level.deflate: unknown key; expected one of \"br\", \"zstd\", "
             "\"gzip\""},
        Case{"RouteMistake", config_with("", R"(, "compress": {"codings": "br"})"),
             "test.json: $.listeners[0].routes[0].compress.codings: expected a non-empty array of codings from "
             "\"br\", \"zstd\", \"gzip\", most preferred first, got \"br\""},
        Case{"EchoListener",
             R"({"listeners": [{"name": "e", "address": "127.0.0.1:1", "protocol": "echo", "compress": true}]})",
             "test.json: $.listeners[0].compress: only \"http\" listeners take this key"}),
    [](const ::testing::TestParamInfo<Case>& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace tiffany
