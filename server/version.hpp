// The version string printed by --version and at start-up.
#pragma once

namespace tiffany {
inline constexpr const char* kVersion = "0.1.0";
}
