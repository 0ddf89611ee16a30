# The plugin SDK: the public headers, the Tiffany::sdk target, and the
# install rules that let an out-of-tree project find_package(Tiffany).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exactly the public API: what a handler (built-in or plugin) may include,
# by the layout rule in sdk_headers.sh (no hand-kept list).
execute_process(COMMAND ${CMAKE_CURRENT_LIST_DIR}/sdk_headers.sh ${PROJECT_SOURCE_DIR}
  OUTPUT_VARIABLE TIFFANY_PUBLIC_HEADERS COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ";" TIFFANY_PUBLIC_HEADERS "${TIFFANY_PUBLIC_HEADERS}")
list(FILTER TIFFANY_PUBLIC_HEADERS EXCLUDE REGEX "^$")
# Why: configure again when a header is added, moved or removed.
file(GLOB_RECURSE tiffany_sdk_candidates CONFIGURE_DEPENDS LIST_DIRECTORIES false
  ${PROJECT_SOURCE_DIR}/coro/*.hpp ${PROJECT_SOURCE_DIR}/reactor/*.hpp ${PROJECT_SOURCE_DIR}/net/*.hpp
  ${PROJECT_SOURCE_DIR}/http/*.hpp ${PROJECT_SOURCE_DIR}/client/*.hpp ${PROJECT_SOURCE_DIR}/handlers/*.hpp)

# The one dependency a public header has beyond the C++ and C libraries:
# picojson (Debian picojson-dev, header-only), for HandlerParams and the
# JSON helpers. TiffanyConfig.cmake finds it again for plugin projects.
find_path(TIFFANY_PICOJSON_INCLUDE_DIR picojson.h REQUIRED)

add_library(tiffany_sdk INTERFACE)
target_include_directories(tiffany_sdk INTERFACE
  $<BUILD_INTERFACE:${TIFFANY_SDK_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(tiffany_sdk INTERFACE cxx_std_20)
set_target_properties(tiffany_sdk PROPERTIES EXPORT_NAME sdk)
add_library(Tiffany::sdk ALIAS tiffany_sdk)
include(${CMAKE_CURRENT_LIST_DIR}/TiffanyPlugin.cmake)

file(STRINGS ${PROJECT_SOURCE_DIR}/handlers/plugin_api.hpp abi_line REGEX "kPluginAbiNumber = [0-9]+")
string(REGEX REPLACE ".*= ([0-9]+).*" "\\1" TIFFANY_PLUGIN_ABI_VERSION "${abi_line}")

foreach(header IN LISTS TIFFANY_PUBLIC_HEADERS)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tiffany/${folder})
endforeach()
install(TARGETS tiffany_sdk EXPORT TiffanyTargets)
install(EXPORT TiffanyTargets NAMESPACE Tiffany:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tiffany)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/TiffanyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TiffanyConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tiffany
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TiffanyConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TiffanyConfig.cmake ${PROJECT_BINARY_DIR}/TiffanyConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/TiffanyPlugin.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tiffany)
