// Blocking-free test clients for the echo protocol on loopback.
#pragma once

#include <chrono>
#include <string>

#include <tiffany/reactor/unique_fd.hpp>

namespace tiffany::testing {

/// Connects to 127.0.0.1:`port`; an invalid fd on failure.
UniqueFd connect_loopback(int port);

/// Sends `payload` and reads until as many bytes came back, interleaving both
/// directions (so a large payload cannot deadlock on full buffers). With
/// `half_close`, shuts down the write side after sending and also expects EOF.
/// Returns what was received; stops early on error or after `timeout`.
std::string echo_roundtrip(int fd, const std::string& payload, bool half_close = false,
                           std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace tiffany::testing
