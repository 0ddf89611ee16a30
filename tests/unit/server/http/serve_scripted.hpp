// Test helper: one HTTP connection of `site` served over scripted reads, to completion.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <tiffany/coro/scheduler.hpp>

#include "server/http/http_protocol.hpp"
#include "server/transport/serve_stream.hpp"
#include "support/scripted_stream.hpp"

namespace tiffany::testing {

/// Runs one connection over `reads` on a fresh scheduler until it ends;
/// returns the stream, holding what the server wrote. `site` must outlive it.
/// `gathers`: the stream gathers writes as a socket does (see ScriptedStream).
inline std::unique_ptr<ScriptedStream> serve_scripted(const http::HttpSite& site, std::vector<std::string> reads,
                                                      bool gathers = false) {
  auto stream = std::make_unique<ScriptedStream>(std::move(reads));
  stream->gathers = gathers;
  Scheduler scheduler;
  auto body = [](const http::HttpSite& served, ScriptedStream& s) -> Task<void> {
    HttpProtocol protocol(served);
    co_await serve_stream(protocol, s, "127.0.0.1:1", nullptr);
  };
  auto handle = scheduler.spawn(body(site, *stream));
  scheduler.run();
  handle.take_result();
  return stream;
}

}  // namespace tiffany::testing
