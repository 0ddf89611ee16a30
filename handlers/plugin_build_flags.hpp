// Plugin build flags: the compiler settings that change what crosses the plugin boundary.
#pragma once

#include <string>

// Why a libstdc++ header first: it defines _GLIBCXX_USE_CXX11_ABI (or libc++'s
// _LIBCPP_VERSION), which the flags below read.
#include <cstddef>

namespace tiffany::detail {

/// Settings a plugin must share with the server, because they change the
/// layout or the meaning of standard types (std::string in HandlerParams,
/// std::vector in Request, typeinfo of exceptions) used on both sides. Each
/// is one bit of kPluginAbiVersion (above the number); the loader names the
/// ones that differ.
enum PluginBuildFlag : unsigned {
  kOldStringAbi = 1u << 0,     ///< -D_GLIBCXX_USE_CXX11_ABI=0
  kDebugContainers = 1u << 1,  ///< -D_GLIBCXX_DEBUG
  kNoRtti = 1u << 2,           ///< -fno-rtti
  kLibcxx = 1u << 3,           ///< -stdlib=libc++
};

inline constexpr unsigned kPluginBuildFlags = 0
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI == 0
                                              | kOldStringAbi
#endif
#ifdef _GLIBCXX_DEBUG
                                              | kDebugContainers
#endif
#ifndef __GXX_RTTI
                                              | kNoRtti
#endif
#ifdef _LIBCPP_VERSION
                                              | kLibcxx
#endif
    ;

/// One sentence naming how `theirs` (a plugin's flags) differ from `ours`:
/// "built with -D_GLIBCXX_USE_CXX11_ABI=0 (GCC's old std::string), which this tiffany was not".
std::string describe_build_flag_mismatch(unsigned theirs, unsigned ours);

}  // namespace tiffany::detail
