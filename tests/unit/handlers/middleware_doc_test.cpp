// docs/config.md against the built-in middleware: each one's table lists exactly the settings its factory reads.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include <tiffany/handlers/middleware/middleware_registry.hpp>

namespace tiffany {
namespace {

// The keys of each "## Middleware `name`" table.
std::map<std::string, std::set<std::string>> documented_middleware() {
  std::ifstream file(std::string(TIFFANY_SOURCE_DIR) + "/docs/config.md");
  EXPECT_TRUE(file) << "docs/config.md is missing";
  std::map<std::string, std::set<std::string>> sections;
  std::string line;
  std::string name;
  while (std::getline(file, line)) {
    if (line.rfind("## ", 0) == 0) {
      const std::string prefix = "## Middleware `";
      name = line.rfind(prefix, 0) == 0 ? line.substr(prefix.size(), line.size() - prefix.size() - 1) : "";
      if (!name.empty()) sections[name];
    } else if (!name.empty() && line.rfind("| `", 0) == 0) {
      sections[name].insert(line.substr(3, line.find('`', 3) - 3));
    }
  }
  return sections;
}

TEST(MiddlewareDoc, EachBuiltInsTableListsExactlyTheSettingsItReads) {
  MiddlewareRegistry registry;
  register_builtin_middleware(registry);
  // Settings each factory accepts, so it reads every key it knows.
  const std::map<std::string, std::string> valid = {
      {"headers", R"({"set": {"X-A": "1"}})"},
      {"cors", R"({"origins": "*"})"},
      {"basic_auth", R"({"users": {"a": "$5$saltsalt1234$nv9QVU9bEILmqYkzDNNrFM656NWiENOxJy5AOOga6n/"}})"},
      {"rate_limit", R"({"rate": 1})"},
  };
  const auto documented = documented_middleware();
  EXPECT_EQ(documented.size(), registry.names().size()) << "a section per built-in middleware, no more";
  for (const std::string& name : registry.names()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(valid.count(name)) << "give this test valid settings for the new middleware";
    ASSERT_TRUE(documented.count(name)) << "docs/config.md has no \"## Middleware `" << name << "`\" section";
    picojson::value settings;
    ASSERT_EQ(picojson::parse(settings, valid.at(name)), "");
    const HandlerParams params(settings.get<picojson::object>());
    ASSERT_NE((*registry.find(name))(params), nullptr);
    EXPECT_EQ(documented.at(name), params.known_keys());
  }
}

}  // namespace
}  // namespace tiffany
