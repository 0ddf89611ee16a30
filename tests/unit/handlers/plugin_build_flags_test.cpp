// Plugin build flags: this build's flags, and the sentence naming a difference.
#include <tiffany/handlers/plugin_build_flags.hpp>

#include <gtest/gtest.h>

namespace tiffany::detail {
namespace {

TEST(PluginBuildFlags, ThisBuildUsesTheDefaultSettings) {
  EXPECT_EQ(kPluginBuildFlags, 0u);  // the server and the SDK's plugins are built without any of them
}

TEST(PluginBuildFlags, NamesWhatThePluginAddedAndWhatItLacks) {
  EXPECT_EQ(describe_build_flag_mismatch(kDebugContainers, 0),
            "built with -D_GLIBCXX_DEBUG (checked containers, another layout), which this tiffany was not");
  EXPECT_EQ(describe_build_flag_mismatch(kOldStringAbi | kNoRtti, kNoRtti),
            "built with -D_GLIBCXX_USE_CXX11_ABI=0 (GCC's old std::string and std::list), which this tiffany was not");
  EXPECT_EQ(describe_build_flag_mismatch(kLibcxx, kDebugContainers),
            "built with -stdlib=libc++ (another standard library), which this tiffany was not; and without "
            "-D_GLIBCXX_DEBUG (checked containers, another layout), which this tiffany was built with");
  EXPECT_EQ(describe_build_flag_mismatch(0, kNoRtti),
            "built without -fno-rtti (no typeinfo, so no exceptions or dynamic_cast across the boundary), which this "
            "tiffany was built with");
}

}  // namespace
}  // namespace tiffany::detail
