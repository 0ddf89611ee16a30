// Simulated HTTP/2 clients: nghttp2's client session framing requests over a simulated socket.
#include "sim/peers/http2_client.hpp"

#include <nghttp2/nghttp2.h>

#include <sys/types.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include <tiffany/coro/join.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/wake_signal.hpp>
#include <tiffany/net/socket_stream.hpp>
#include <tiffany/reactor/unique_fd.hpp>

#include "sim/peers/peer_connect.hpp"

namespace tiffany::sim {
namespace {

struct StreamState {
  Http2Request request;
  std::size_t uploaded = 0;
  std::string body;
  int status = 0;
  bool canceled = false;              // this client reset it
  bool sent_before_settings = false;  // its HEADERS left before the server's SETTINGS came
};

// Why views: nghttp2 copies the bytes on submit; until then they must live
// (a literal, or the request's strings), never a temporary std::string.
nghttp2_nv field(std::string_view name, std::string_view value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// One client connection: nghttp2 frames the requests and reads the answers;
// this class carries its bytes over the simulated socket (a reader task and
// a writer task, as real clients read while they write) and counts each
// stream's end in the tally.
class ClientSession {
 public:
  ClientSession(World& world, SocketStream& stream, Http2Tally& tally, const Http2ClientOptions& options)
      : world_(world), stream_(stream), tally_(tally), options_(options) {
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // A slow reader credits DATA back itself, late (see read_loop).
    if (options.slow_reader) nghttp2_option_set_no_auto_window_update(option, 1);
    nghttp2_session_client_new2(&session_, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                               {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, options.window}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  }
  ~ClientSession() { nghttp2_session_del(session_); }
  ClientSession(const ClientSession&) = delete;
  ClientSession& operator=(const ClientSession&) = delete;

  bool ended() const noexcept { return ended_; }

  /// Queues `request` on a new stream; its id, or 0 when none could be opened (counted).
  std::int32_t submit(const Http2Request& request) {
    if (ended_ || goaway_) {
      ++(ended_ ? tally_.cut : tally_.refused);
      return 0;
    }
    const std::string length = std::to_string(request.body.size());
    std::vector<nghttp2_nv> fields = {field(":method", request.method), field(":scheme", "http"),
                                      field(":authority", "sim"), field(":path", request.path)};
    if (request.method == "POST") fields.push_back(field("content-length", length));
    // The stream's state first (nghttp2 gives its id only on submit): a
    // std::map node keeps its address, which the upload's source holds.
    auto state = std::make_unique<StreamState>();
    state->request = request;
    nghttp2_data_provider upload{};
    upload.source.ptr = state.get();
    upload.read_callback = read_upload;
    const std::int32_t id = nghttp2_submit_request(session_, nullptr, fields.data(), fields.size(),
                                                   request.method == "POST" ? &upload : nullptr, nullptr);
    if (id <= 0) {
      ++tally_.cut;  // stream ids used up: not reached by these clients' counts
      return 0;
    }
    streams_.emplace(id, std::move(state));
    return id;
  }

  /// Resets stream `id` (CANCEL) if it is open and unanswered. A stream still
  /// queued behind MAX_CONCURRENT_STREAMS is left to run: nghttp2 may drop
  /// it unsent, without the close this client counts.
  void cancel(std::int32_t id) {
    const auto found = streams_.find(id);
    if (found == streams_.end() || found->second->canceled) return;
    if (nghttp2_session_find_stream(session_, id) == nullptr) return;
    found->second->canceled = true;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    wake_.set();
  }

  void flush() { wake_.set(); }

  /// Every request is submitted: done() returns once every stream closed.
  void all_submitted() {
    all_submitted_ = true;
    check_done();
  }
  Task<void> done() { return done_.wait(); }

  /// Says GOAWAY and lets the writer send it; false when the connection had already ended.
  bool say_goodbye() {
    const bool alive = !ended_;
    if (alive) nghttp2_session_terminate_session(session_, NGHTTP2_NO_ERROR);
    closing_ = true;
    wake_.set();
    return alive;
  }

  /// The frames nghttp2 has ready to go.
  std::string take_output() {
    std::string out;
    for (;;) {
      const std::uint8_t* data = nullptr;
      const auto size = nghttp2_session_mem_send(session_, &data);
      if (size <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
    }
    return out;
  }

  Task<void> write_loop() {
    for (;;) {
      const std::string out = take_output();
      if (out.empty()) {
        if (closing_ || ended_) co_return;
        co_await wake_.wait();
        continue;
      }
      const IoResult written = co_await stream_.write(out.data(), out.size());
      if (!written) {
        connection_ended();
        co_return;
      }
    }
  }

  Task<void> read_loop() {
    char buffer[16 * 1024];
    while (!ended_) {
      const IoResult read = co_await stream_.read(buffer, sizeof buffer);
      if (!read || read.bytes() == 0) break;
      const auto used = nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(buffer), read.bytes());
      if (used < 0) {
        ++tally_.goaway_errors;  // the server broke the protocol
        break;
      }
      for (const Http2Request& request : std::exchange(retries_, {})) submit(request);
      check_done();
      if (!uncredited_.empty()) {
        // A slow reader: the server's window stays shut a while longer.
        co_await Sleep{pause()};
        credit();
      }
      wake_.set();  // acknowledgments, window updates, uploads the new window lets go
    }
    connection_ended();
  }

 private:
  std::chrono::milliseconds pause() {
    return std::chrono::milliseconds(world_.random().below(static_cast<std::uint64_t>(options_.max_pause.count()) + 1));
  }

  void credit() {
    for (const auto& [id, size] : uncredited_) {
      nghttp2_session_consume_connection(session_, size);
      (void)nghttp2_session_consume_stream(session_, id, size);  // the stream may have closed meanwhile
    }
    uncredited_.clear();
  }

  void count_close(const StreamState& stream, std::uint32_t error_code) {
    if (stream.canceled) {
      ++tally_.canceled;
    } else if (error_code == NGHTTP2_REFUSED_STREAM && stream.sent_before_settings && !goaway_) {
      // Sent past a MAX_CONCURRENT_STREAMS this client did not know yet
      // (RFC 9113 §5.1.2 lets the server refuse it): sent again, as browsers do.
      retries_.push_back(stream.request);
      ++tally_.retried;
    } else if (error_code == NGHTTP2_REFUSED_STREAM) {
      ++tally_.refused;
    } else if (error_code == NGHTTP2_NO_ERROR && stream.status == 200 && stream.body == stream.request.expected) {
      ++tally_.answered;
    } else {
      ++tally_.wrong;
    }
  }

  void check_done() {
    if (all_submitted_ && streams_.empty() && retries_.empty()) done_.set();
  }

  // The connection is gone: a stream the server never took (past its
  // GOAWAY) was refused, any other still open was cut.
  void connection_ended() {
    if (ended_) return;
    ended_ = true;
    for (const auto& [id, stream] : streams_) {
      if (stream->canceled) {
        ++tally_.canceled;
      } else {
        ++tally_.cut;
      }
    }
    tally_.cut += static_cast<int>(retries_.size());
    streams_.clear();
    retries_.clear();
    done_.set();
    wake_.set();
  }

  static ClientSession& of(void* user_data) { return *static_cast<ClientSession*>(user_data); }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_length,
                       const std::uint8_t* value, std::size_t value_length, std::uint8_t, void* user_data) {
    ClientSession& self = of(user_data);
    const auto found = self.streams_.find(frame->hd.stream_id);
    if (found == self.streams_.end() || frame->hd.type != NGHTTP2_HEADERS) return 0;
    if (std::string_view(reinterpret_cast<const char*>(name), name_length) == ":status") {
      found->second->status = std::atoi(std::string(reinterpret_cast<const char*>(value), value_length).c_str());
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data, std::size_t size,
                           void* user_data) {
    ClientSession& self = of(user_data);
    const auto found = self.streams_.find(id);
    if (found != self.streams_.end()) found->second->body.append(reinterpret_cast<const char*>(data), size);
    if (self.options_.slow_reader) self.uncredited_.emplace_back(id, size);
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t id, std::uint32_t error_code, void* user_data) {
    ClientSession& self = of(user_data);
    const auto found = self.streams_.find(id);
    if (found == self.streams_.end()) return 0;
    self.count_close(*found->second, error_code);
    self.streams_.erase(found);
    self.check_done();
    return 0;
  }

  static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    ClientSession& self = of(user_data);
    const auto found = self.streams_.find(frame->hd.stream_id);
    if (frame->hd.type == NGHTTP2_HEADERS && found != self.streams_.end()) {
      found->second->sent_before_settings = !self.settings_received_;
    }
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    ClientSession& self = of(user_data);
    if (frame->hd.type == NGHTTP2_SETTINGS && (frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) {
      self.settings_received_ = true;
    }
    if (frame->hd.type != NGHTTP2_GOAWAY) return 0;
    self.goaway_ = true;
    if (frame->goaway.error_code != NGHTTP2_NO_ERROR) ++self.tally_.goaway_errors;
    // Streams past the last one the server took never will be: refused (a
    // client may send them again elsewhere).
    for (auto it = self.streams_.upper_bound(frame->goaway.last_stream_id); it != self.streams_.end();) {
      if (it->second->canceled) {
        ++self.tally_.canceled;
      } else {
        ++self.tally_.refused;
      }
      it = self.streams_.erase(it);
    }
    self.check_done();
    return 0;
  }

  static ssize_t read_upload(nghttp2_session*, std::int32_t, std::uint8_t* into, std::size_t length,
                             std::uint32_t* flags, nghttp2_data_source* source, void*) {
    auto& stream = *static_cast<StreamState*>(source->ptr);
    const std::string& upload = stream.request.body;
    const std::size_t size = std::min(length, upload.size() - stream.uploaded);
    std::memcpy(into, upload.data() + stream.uploaded, size);
    stream.uploaded += size;
    if (stream.uploaded == upload.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(size);
  }

  World& world_;
  SocketStream& stream_;
  Http2Tally& tally_;
  Http2ClientOptions options_;
  nghttp2_session* session_ = nullptr;
  std::map<std::int32_t, std::unique_ptr<StreamState>> streams_;  // open streams, by id
  std::vector<std::pair<std::int32_t, std::size_t>> uncredited_;  // DATA a slow reader has not credited yet
  std::vector<Http2Request> retries_;  // refused before this client knew the limit: sent again after this read
  WakeSignal wake_;                    // the writer's: there may be frames to send
  WakeSignal done_;                    // the client's: every stream closed, or the connection ended
  bool all_submitted_ = false;
  bool goaway_ = false;
  bool settings_received_ = false;
  bool closing_ = false;
  bool ended_ = false;
};

// Writes the first `size` bytes of `wire` (the server may have given up on
// the client already: either way it leaves).
Task<void> write_prefix(SocketStream& stream, std::string wire, std::size_t size) {
  if (size > 0) (void)co_await stream.write(wire.data(), size);
}

}  // namespace

Task<void> http2_client(World& world, const char* ip, std::uint16_t port, Http2ClientOptions options, Http2Plan plan,
                        Http2Tally& tally) {
  const CountsTheEnd<Http2Tally> counts{tally};
  const UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    tally.cut += options.streams;
    co_return;
  }
  SocketStream stream(socket.get());
  ClientSession session(world, stream, tally, options);
  JoinHandle<void> writer = co_await Spawn{session.write_loop()};
  JoinHandle<void> reader = co_await Spawn{session.read_loop()};
  for (int i = 0; i < options.streams && !session.ended();) {
    const int batch = static_cast<int>(world.random().between(1, static_cast<std::uint64_t>(options.streams - i)));
    std::vector<std::int32_t> doomed;
    for (int b = 0; b < batch; ++b, ++i) {
      const std::int32_t id = session.submit(plan(i));
      if (id > 0 && world.random().chance(static_cast<std::uint32_t>(options.cancel_per_million))) {
        doomed.push_back(id);
      }
    }
    session.flush();
    co_await Sleep{
        std::chrono::milliseconds(world.random().below(static_cast<std::uint64_t>(options.max_pause.count()) + 1))};
    for (const std::int32_t id : doomed) session.cancel(id);
  }
  session.all_submitted();
  co_await session.done();
  const bool complete = session.say_goodbye();
  co_await Join{std::move(writer)};
  reader.cancel();  // the frames above use the session: neither task outlives it
  try {
    co_await Join{std::move(reader)};
  } catch (const TaskCanceled&) {
  }
  if (complete) ++tally.finished;
}

Task<void> leaving_http2_client(World& world, const char* ip, std::uint16_t port, Http2Plan plan, Http2Tally& tally) {
  const CountsTheEnd<Http2Tally> counts{tally};
  UniqueFd socket = co_await connect_to(ip, port);
  if (!socket) {
    ++tally.cut;
    co_return;
  }
  SocketStream stream(socket.get());
  std::string wire;
  {
    Http2Tally unused;  // the streams' ends are not counted: this client never waits for them
    ClientSession session(world, stream, unused, Http2ClientOptions{});
    const int requests = static_cast<int>(world.random().between(1, 3));
    for (int i = 0; i < requests; ++i) session.submit(plan(i));
    wire = session.take_output();
  }
  // Why the write in a task of its own: a server that answers a client
  // who never reads stops reading too once its writes block, and a
  // leaving client does not wait for that.
  const std::size_t prefix = world.random().below(wire.size() + 1);
  JoinHandle<void> writer = co_await Spawn{write_prefix(stream, std::move(wire), prefix)};
  co_await Sleep{std::chrono::milliseconds(world.random().chance(500'000) ? world.random().below(3'000) : 0)};
  writer.cancel();
  try {
    co_await Join{std::move(writer)};
  } catch (const TaskCanceled&) {
  }
  socket.reset();
  ++tally.left;
}

}  // namespace tiffany::sim
