#pragma once

namespace tiffany::testing {

// True in a TIFFANY_SANITIZE build. Sanitizers pad and quarantine every
// allocation and map shadow memory, so tests that measure the server's
// memory skip there (each such skip is listed in tests/documented_skips.txt).
#ifdef TIFFANY_SANITIZED_BUILD
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace tiffany::testing
