# The plugin SDK: the public headers, the Tiffany::sdk target, and the
# install rules that let an out-of-tree project find_package(Tiffany).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exactly the public API: what a handler (built-in or plugin) may include.
set(TIFFANY_PUBLIC_HEADERS
  coro/task.hpp coro/task_state.hpp coro/task_record.hpp coro/task_timer_heap.hpp coro/poller.hpp coro/scheduler.hpp coro/kernel.hpp coro/kernel.hpp
  coro/frame_allocator.hpp coro/cancelable_wait.hpp coro/task_canceled.hpp coro/remote_queue.hpp
  coro/scheduler_options.hpp coro/scheduler_stats.hpp coro/task_trace.hpp coro/manual_clock.hpp
  coro/get_tid.hpp coro/spawn.hpp coro/join.hpp coro/cancel.hpp coro/yield.hpp coro/sleep.hpp coro/syscalls.hpp
  coro/broken_promise.hpp coro/promise.hpp coro/external_promise.hpp coro/gather.hpp coro/race.hpp
  coro/with_timeout.hpp coro/offload_pool.hpp coro/offload.hpp coro/deadline.hpp coro/task_context.hpp
  coro/cycle_clock.hpp coro/intrusive_list.hpp
  reactor/io_result.hpp reactor/io_operation.hpp reactor/reactor.hpp reactor/unique_fd.hpp
  reactor/recv.hpp reactor/send.hpp reactor/accept.hpp reactor/connect.hpp reactor/readiness.hpp
  reactor/read_lease.hpp reactor/recv_pooled.hpp
  http/headers.hpp http/request.hpp http/response.hpp http/http_status.hpp
  http/uri.hpp http/http_date.hpp http/request_context.hpp
  http/form_fields.hpp http/media_type.hpp http/cookies.hpp http/redirect.hpp
  http/json_body.hpp http/multipart.hpp
  handlers/log_level.hpp
  handlers/handler.hpp handlers/handler_params.hpp handlers/handler_registry.hpp handlers/plugin_api.hpp handlers/plugin_build_flags.hpp
  handlers/middleware/middleware.hpp handlers/middleware/middleware_registry.hpp
  handlers/server_stats.hpp handlers/plugin_context.hpp handlers/plugin_state.hpp handlers/plugin_logger.hpp
  handlers/testkit/request_builder.hpp handlers/testkit/plugin_harness.hpp)

add_library(tiffany_sdk INTERFACE)
target_include_directories(tiffany_sdk INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tiffany>)
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
