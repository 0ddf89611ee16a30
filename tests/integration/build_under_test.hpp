#pragma once

#include <string>
#include <string_view>

// The build whose binary and plugins the integration suites drive: by default
// the build they were compiled in. TIFFANY_BUILD_UNDER_TEST names another
// build folder of the same tree; scripts/test.sh sets it to a sanitized
// build's folder and runs the plain build's suites, so that what the
// sanitizers watch is the server, and these suites (a third of the tests'
// compile) are compiled once per CI run, not three times
// (docs/development.md, "CI's budget").
namespace tiffany::testing {

/// The build folder under test (absolute; TIFFANY_BUILD_UNDER_TEST or this one).
/// A TIFFANY_BUILD_UNDER_TEST that is not a configured build folder ends the
/// process with a message: a wrong setting must fail the run, not test another build.
const std::string& build_under_test();

/// `path`, a file or folder of the build these suites were compiled in (the
/// TIFFANY_BINARY and *_PLUGIN_DIR macros), in the build under test; a path
/// outside this build comes back unchanged.
std::string under_test(std::string_view path);

/// The tiffany binary of the build under test.
std::string tiffany_binary();

/// Whether the build under test was made with sanitizers (TIFFANY_SANITIZE in
/// its CMakeCache.txt): its process's memory and speed are not the server's.
bool binary_is_sanitized();

}  // namespace tiffany::testing
