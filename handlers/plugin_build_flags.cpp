// Plugin build flags: naming how a plugin was built differently from the server.
#include <tiffany/handlers/plugin_build_flags.hpp>

#include <array>

namespace tiffany::detail {
namespace {

struct FlagName {
  PluginBuildFlag flag;
  const char* with;  // what setting the bit means
};

constexpr std::array<FlagName, 4> kFlagNames{{
    {kOldStringAbi, "-D_GLIBCXX_USE_CXX11_ABI=0 (GCC's old std::string and std::list)"},
    {kDebugContainers, "-D_GLIBCXX_DEBUG (checked containers, another layout)"},
    {kNoRtti, "-fno-rtti (no typeinfo, so no exceptions or dynamic_cast across the boundary)"},
    {kLibcxx, "-stdlib=libc++ (another standard library)"},
}};

}  // namespace

std::string describe_build_flag_mismatch(unsigned theirs, unsigned ours) {
  std::string with;
  std::string without;
  for (const FlagName& name : kFlagNames) {
    const bool in_theirs = (theirs & name.flag) != 0;
    if (in_theirs == ((ours & name.flag) != 0)) continue;
    std::string& list = in_theirs ? with : without;
    list += (list.empty() ? "" : ", ") + std::string(name.with);
  }
  std::string sentence;
  if (!with.empty()) sentence = "built with " + with + ", which this tiffany was not";
  if (!without.empty()) {
    sentence += (sentence.empty() ? "built without " : "; and without ") + without + ", which this tiffany was built with";
  }
  return sentence;
}

}  // namespace tiffany::detail
