#include "integration/build_under_test.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tiffany::testing {
namespace {

[[noreturn]] void fail_setup(const std::string& message) {
  std::fprintf(stderr, "build_under_test: %s\n", message.c_str());
  std::exit(2);
}

}  // namespace

const std::string& build_under_test() {
  static const std::string folder = [] {
    const char* other = std::getenv("TIFFANY_BUILD_UNDER_TEST");
    if (other == nullptr || *other == '\0') return std::string(TIFFANY_BUILD_DIR);
    std::error_code error;
    const std::filesystem::path path = std::filesystem::canonical(other, error);
    if (error || !std::filesystem::is_regular_file(path / "CMakeCache.txt")) {
      fail_setup("TIFFANY_BUILD_UNDER_TEST=" + std::string(other) + " is not a configured build folder (no CMakeCache.txt)");
    }
    return path.string();
  }();
  return folder;
}

std::string under_test(std::string_view path) {
  const std::string_view own = TIFFANY_BUILD_DIR;
  if (path.substr(0, own.size()) != own || (path.size() > own.size() && path[own.size()] != '/')) {
    return std::string(path);
  }
  return build_under_test() + std::string(path.substr(own.size()));
}

std::string tiffany_binary() { return under_test(TIFFANY_BINARY); }

bool binary_is_sanitized() {
  static const bool sanitized = [] {
    const std::string cache = build_under_test() + "/CMakeCache.txt";
    std::ifstream in(cache);
    const std::string key = "TIFFANY_SANITIZE:";
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(key, 0) == 0) return line.find('=') + 1 < line.size();
    }
    fail_setup(cache + " has no TIFFANY_SANITIZE entry: not a Tiffany build folder");
  }();
  return sanitized;
}

}  // namespace tiffany::testing
