// Http2Stream: routing and the handler in the stream's task, the response to nghttp2.
#include "server/http2/http2_stream.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <vector>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/http_date.hpp>
#include <tiffany/http/http_status.hpp>

#include "server/http2/http2_connection.hpp"
#include "server/http2/http2_tunnel.hpp"
#include "server/websocket/websocket_session.hpp"
#include "server/log/error_log.hpp"
#include "server/log/state_bug.hpp"
#include "server/transport/stage_timeout.hpp"

namespace tiffany::http2 {
namespace {

constexpr std::size_t kCompactFrom = 64 * 1024;  // sent bytes at the front of pending_ that are dropped at once

// Fields the server writes itself, and those HTTP/2 forbids (RFC 9113 §8.2.2).
bool is_dropped_field(std::string_view name) noexcept {
  for (std::string_view dropped : {"date", "server", "connection", "x-request-id", "content-length",
                                   "transfer-encoding", "keep-alive", "proxy-connection", "upgrade"}) {
    if (http::iequals(name, dropped)) return true;
  }
  return false;
}

ssize_t read_stream_data(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                         std::uint32_t* flags, nghttp2_data_source* source, void*) {
  return static_cast<Http2Stream*>(source->ptr)->read_data(buffer, length, flags);
}

}  // namespace

bool submit_continue(nghttp2_session* session, std::int32_t id) {
  const nghttp2_nv status{reinterpret_cast<std::uint8_t*>(const_cast<char*>(":status")),
                          reinterpret_cast<std::uint8_t*>(const_cast<char*>("100")), 7, 3, NGHTTP2_NV_FLAG_NONE};
  return nghttp2_submit_headers(session, NGHTTP2_FLAG_NONE, id, nullptr, &status, 1, nullptr) >= 0;
}

Http2Stream::Http2Stream(Http2Connection& connection, const http::HttpSite& site, std::int32_t id)
    : connection_(&connection), site_(site), id_(id) {
  response_.attach(&exchange_);
  begin_request(connection);
}

void Http2Stream::begin_request(Http2Connection& connection) {
  request_.version_major = 2;
  request_.version_minor = 0;
  request_.peer = connection.peer();  // Why now: lines the connection logs itself (408, 413, 499) name the client too
  request_.tls = connection.tls();
}

void Http2Stream::reuse(Http2Connection& connection, std::int32_t id) {
  static_cast<StreamBooks&>(*this) = StreamBooks{};
  connection_ = &connection;
  id_ = id;
  request_.clear();
  begin_request(connection);
  response_.clear();
  exchange_.reset();
  deadline_ = nullptr;
  head_request_ = false;
  reset_ = false;
  output_ = OutputPhase::none;
  whole_ = {};
  pending_.clear();
  pending_from_ = 0;
  encoded_ = false;
  sent_status_ = 0;
  sent_bytes_ = 0;
  drained_ = WakeSignal();
  input_ = StreamInput();
  invited_ = false;
  tunnel_.reset();
  websocket_.reset();
  unwinding_.reset();
  websocket_slot_.reset();
}

void Http2Stream::trim() noexcept {
  constexpr std::size_t kKept = 16 * 1024;  // per buffer, for a spare stream
  if (request_.body.capacity() > kKept) std::string().swap(request_.body);
  if (response_.body.capacity() > kKept) std::string().swap(response_.body);
  if (pending_.capacity() > kKept) std::string().swap(pending_);
  response_.drop_body_reference();  // Why: its owner (a cache entry) may go now
  exchange_.trim();
}

Http2Stream::~Http2Stream() = default;

void Http2Stream::detach() noexcept {
  connection_ = nullptr;
  mark_reset();
}

void Http2Stream::mark_reset() noexcept {
  reset_ = true;
  drained_.set();
  input_.fail(http::BodyStatus::peer_gone);
}

bool Http2Stream::has_output() const noexcept {
  // Why bytes, not an unended response: a WebSocket or a slow stream with
  // nothing queued does not wait on the client's window (nor does the empty
  // DATA that ends a stream).
  return output_ != OutputPhase::none && !reset_ && (!whole_.empty() || pending_from_ < pending_.size());
}

Http2Stream::TaskHold::~TaskHold() {
  if (stream_ == nullptr) return;
  stream_->websocket_slot_.reset();  // Why here too: a task canceled mid-WebSocket may skip end_websocket
  if (stream_->unwinding_ == nullptr) return;
  --*stream_->unwinding_;
  stream_->unwinding_.reset();
}

Task<void> Http2Stream::run(TaskHold self) {
  // Why here, not in a coroutine of the stream's: one frame less per request.
  Http2Stream& stream = *self;
  stream.head_request_ = stream.request_.is_head();
  Deadline deadline = Deadline::unarmed();
  stream.deadline_ = &deadline;
  co_await stream.exchange_.respond(stream.request_, stream.response_, deadline);
  stream.deadline_ = nullptr;
  if (stream.connection_ == nullptr) co_return;  // the connection ended while the handler ran
  stream.connection_->output_ready();
  stream.connection_->task_done(stream);
}

void Http2Stream::count_unwinding(std::shared_ptr<std::size_t> unwinding) noexcept {
  ++*unwinding;
  unwinding_ = std::move(unwinding);
}

void Http2Stream::answer_now(int status) {
  head_request_ = request_.is_head();
  http::Exchange::plain_error(response_, status);
  submit_whole();
  const Sent answered = sent();
  exchange_.finish(request_, answered.status, answered.body_bytes, std::chrono::steady_clock::duration::zero());
}

void Http2Stream::handler_ended(http::HandlerEnd& end) {
  end.websocket = websocket_ != nullptr;
  if (body_streamed) end.body = input_.status();
}

void Http2Stream::send_whole(const http::Response&, bool encoded) {
  encoded_ = encoded;
  submit_whole();
}

void Http2Stream::end_stream(std::string_view tail, bool as_declared) {
  if (output_ != OutputPhase::streaming) return;  // its head was refused: the 500 went whole
  if (!as_declared) {
    // Why a reset: END_STREAM would end a body its content-length frames
    // otherwise (a malformed response, RFC 9113 §8.1.1); the reset says the
    // server broke it, as HTTP/1.1's close does.
    cut();
    return;
  }
  if (!tail.empty()) {
    pending_.append(tail);
    sent_bytes_ += tail.size();
  }
  enter_output(OutputPhase::ended);
  if (!reset_) connection_->check(nghttp2_session_resume_data(connection_->session(), id_));
}

void Http2Stream::cut() noexcept {
  if (!reset_) connection_->reset_stream(id_, NGHTTP2_INTERNAL_ERROR);
  reset_ = true;
}

http::ResponseWire::Sent Http2Stream::sent() const noexcept {
  // Why not when reset unanswered: the client reset it first, and the connection logged it 499.
  const bool logged = connection_ != nullptr && (output_ != OutputPhase::none || !reset_);
  return Sent{logged, sent_status_, head_request_ ? 0 : sent_bytes_};
}

void Http2Stream::routed_early(http::Router::Result routed) { exchange_.routed_early(std::move(routed), request_); }

bool Http2Stream::submit_head(std::optional<std::uint64_t> content_length, bool with_body) {
  const http::Response& response = response_;
  for (const http::Headers::Field& field : response.headers) {
    if (!http::is_valid_field_name(field.name) || http::find_invalid_field_value_byte(field.value) != std::string_view::npos) {
      if (error_log().enabled(LogLevel::error)) {
        const char* who = exchange_.handler_label_or("the server");
        error_log().log(LogLevel::error,
                        "%s set an invalid response header on %s %s (\"%.*s\"); answered 500 instead of %d (HTTP/2)",
                        who, request_.method.c_str(), request_.path.c_str(),
                        static_cast<int>(std::min<std::size_t>(field.name.size(), 64)), field.name.data(),
                        response.status);
      }
      return false;
    }
  }
  char status_digits[4];
  const int status = std::clamp(response.status, 100, 999);
  std::to_chars(status_digits, status_digits + 3, status);
  status_digits[3] = '\0';
  char length_digits[24];
  std::size_t length_size = 0;
  const bool bodyless_status = http::status_forbids_body(status);
  if (content_length && !bodyless_status) {
    length_size = static_cast<std::size_t>(std::to_chars(length_digits, length_digits + sizeof length_digits,
                                                         *content_length).ptr - length_digits);
  }
  // Why copies of the names: HTTP/2 field names are lower case (RFC 9113
  // §8.2.1). They go into one buffer sized first, so the views into it stay
  // valid; nghttp2 copies everything when the response is submitted.
  std::size_t names_size = 0;
  std::size_t field_count = 5;
  for (const http::Headers::Field& field : response.headers) {
    if (is_dropped_field(field.name)) continue;
    names_size += field.name.size();
    ++field_count;
  }
  lowered_names_.clear();
  lowered_names_.reserve(names_size);
  constexpr std::size_t kInlineFields = 24;
  std::array<nghttp2_nv, kInlineFields> inline_fields;
  std::vector<nghttp2_nv> more_fields;
  nghttp2_nv* fields = inline_fields.data();
  if (field_count > kInlineFields) {
    more_fields.resize(field_count);
    fields = more_fields.data();
  }
  std::size_t used = 0;
  auto add = [&](std::string_view name, std::string_view value, std::uint8_t flags = NGHTTP2_NV_FLAG_NONE) {
    fields[used++] = nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                                reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                                value.size(), flags};
  };
  const std::string_view date = http::current_http_date();
  add(":status", std::string_view(status_digits, 3));
  add("server", "tiffany");
  add("date", date);
  // Why not indexed: an id is never sent twice, so HPACK's table would only churn.
  if (const std::string& request_id = exchange_.request_id(); !request_id.empty()) {
    add("x-request-id", request_id, NGHTTP2_NV_FLAG_NO_INDEX);
  }
  if (length_size > 0) add("content-length", std::string_view(length_digits, length_size));
  for (const http::Headers::Field& field : response.headers) {
    if (is_dropped_field(field.name)) continue;
    const std::size_t from = lowered_names_.size();
    for (const char c : field.name) lowered_names_ += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    add(std::string_view(lowered_names_).substr(from, field.name.size()), field.value);
  }
  nghttp2_data_provider provider{};
  provider.source.ptr = this;
  provider.read_callback = &read_stream_data;
  const int submitted = nghttp2_submit_response(connection_->session(), id_, fields, used,
                                                with_body && !bodyless_status ? &provider : nullptr);
  if (submitted != 0) return false;
  sent_status_ = status;
  return true;
}

void Http2Stream::answer_500_instead() {
  // Nothing went: the 500 goes whole, and the handler's writes fail from now on.
  http::Exchange::plain_error(response_, 500);
  submit_whole();
  reset_ = true;
  connection_->output_ready();
}

void Http2Stream::submit_whole() {
  if (reset_ || output_ != OutputPhase::none) return;
  std::string_view body = response_.body_bytes();
  const bool bodyless = head_request_ || http::status_forbids_body(response_.status);
  std::optional<std::uint64_t> length = response_.content_length().value_or(body.size());
  // Why none for an encoded HEAD answer: its size is only known by encoding (as HTTP/1.1 does).
  if (encoded_) length = head_request_ ? std::nullopt : std::optional<std::uint64_t>(body.size());
  whole_ = bodyless ? std::string_view{} : body;
  if (!submit_head(length, !whole_.empty())) {
    http::Exchange::plain_error(response_, 500);
    whole_ = response_.body_bytes();
    if (!submit_head(whole_.size(), true)) {
      connection_->reset_stream(id_, NGHTTP2_INTERNAL_ERROR);
      reset_ = true;
      return;
    }
  }
  enter_output(OutputPhase::whole);
  sent_bytes_ = whole_.size();
}

void Http2Stream::enter_output(OutputPhase next) noexcept {
  if (change_phase(output_, next, "an HTTP/2 stream's response")) return;
  if (connection_ != nullptr && !reset_) connection_->reset_stream(id_, NGHTTP2_INTERNAL_ERROR);
  reset_ = true;
}

Task<http::ResponseWire::Head> Http2Stream::send_head(const http::Response&, std::optional<std::uint64_t> length,
                                                      bool bodyless, bool) {
  if (!submit_head(length, !bodyless)) {
    answer_500_instead();
    co_return Head::refused;
  }
  enter_output(OutputPhase::streaming);
  co_return Head::sent;
}

Task<http::Delivery> Http2Stream::write_piece(std::string_view bytes) {
  const Queued queued = co_await queue_output(bytes);
  co_return queued == Queued::ok ? http::Delivery::sent : http::Delivery::closed;
}

Task<Http2Stream::Queued> Http2Stream::queue_output(std::string_view bytes) {
  if (reset_ || connection_ == nullptr) co_return Queued::stream_gone;
  if (!bytes.empty()) {
    pending_.append(bytes);
    sent_bytes_ += bytes.size();
    connection_->check(nghttp2_session_resume_data(connection_->session(), id_));
  }
  connection_->output_ready();
  // Why wait: back-pressure. A client whose window stays shut holds at most
  // kMaxPendingBytes of this stream, not everything the handler writes.
  while (!reset_ && pending_.size() - pending_from_ > kMaxPendingBytes) co_await drained_.wait();
  co_return reset_ ? Queued::stream_gone : Queued::ok;
}

ssize_t Http2Stream::read_data(std::uint8_t* buffer, std::size_t length, std::uint32_t* flags) noexcept {
  std::size_t copied = 0;
  if (!whole_.empty()) {
    copied = std::min(length, whole_.size());
    std::memcpy(buffer, whole_.data(), copied);
    whole_.remove_prefix(copied);
  } else if (pending_from_ < pending_.size()) {
    copied = std::min(length, pending_.size() - pending_from_);
    std::memcpy(buffer, pending_.data() + pending_from_, copied);
    pending_from_ += copied;
    if (pending_from_ == pending_.size()) {
      pending_.clear();
      pending_from_ = 0;
    } else if (pending_from_ >= kCompactFrom) {
      // Why: a handler faster than the client never lets pending_ empty; the sent front must go.
      pending_.erase(0, pending_from_);
      pending_from_ = 0;
    }
    if (pending_.size() - pending_from_ <= kMaxPendingBytes) drained_.set();
  }
  output_taken += copied;
  if ((output_ == OutputPhase::whole || output_ == OutputPhase::ended) && whole_.empty() &&
      pending_from_ == pending_.size()) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    response_.drop_body_reference();  // Why: its owner (a cache entry) may go now
    return static_cast<ssize_t>(copied);
  }
  if (copied == 0) return NGHTTP2_ERR_DEFERRED;
  return static_cast<ssize_t>(copied);
}

Task<http::BodyChunk> Http2Stream::read_body() {
  if (!body_streamed) co_return http::BodyChunk(http::BodyStatus::end);
  invite_body();
  // Why not once the handler's own time is up: re-arming would take back its
  // cancellation, which is on its way; the wait below receives it instead.
  if (input_.held() == 0 && !input_.finished() && deadline_ != nullptr && !deadline_->expired()) {
    // Why the stream's deadline: the listener's body timeouts apply while
    // the handler waits for the client, as HTTP/1.1 reads do: each piece
    // within body_ms, the whole body within body_total_ms.
    const auto outer = deadline_->armed_until();
    const auto now = Scheduler::current().now();
    auto until = now + site_.timeouts.body;
    if (site_.timeouts.body_total.count() > 0) until = std::min(until, body_began + site_.timeouts.body_total);
    deadline_->rearm(until);
    const Timed<http::BodyStatus> waited = co_await within(*deadline_, TimeoutStage::body, input_.wait());
    deadline_->restore(outer);
    if (waited.timed_out()) input_.fail(http::BodyStatus::timed_out);
  }
  const http::BodyStatus status = co_await input_.wait();
  if (status != http::BodyStatus::data) co_return http::BodyChunk(status);
  const std::string_view piece = input_.take_all();
  input_taken(piece.size());
  co_return http::BodyChunk(http::BodyStatus::data, piece);
}

std::size_t Http2Stream::take_input(char* out, std::size_t max) noexcept {
  const std::size_t taken = input_.take(out, max);
  input_taken(taken);
  return taken;
}

void Http2Stream::input_taken(std::size_t size) noexcept {
  if (connection_ != nullptr && size > 0) connection_->input_taken(*this, size);
}

void Http2Stream::invite_body() {
  if (invited_) return;
  invited_ = true;
  // Why not after a head: a 100 after the final response's HEADERS would be a malformed trailer.
  if (connection_ == nullptr || output_ != OutputPhase::none || input_.received() > 0 || input_.finished()) return;
  const std::optional<std::string_view> expect = request_.headers.get("Expect");
  if (!expect || !http::iequals(*expect, "100-continue")) return;
  // Why only now (RFC 9110 §10.1.1): a client that waits for it sends the
  // body only when invited, so a handler that answers unread never gets it.
  if (submit_continue(connection_->session(), id_)) connection_->output_ready();
}

Task<http::WebSocket*> Http2Stream::upgrade_to_websocket(http::Response& response, http::websocket::UpgradeTerms terms,
                                                         http::WebSocketOptions options) {
  if (websocket_ != nullptr || response.streaming() || !websocket_connect) {
    throw std::logic_error("accept_websocket: the response has already started");
  }
  if (connection_ == nullptr || reset_) co_return nullptr;
  if (connection_->draining()) {
    // Why refuse: a WebSocket would be told to go away (1001) at once; the client should reconnect elsewhere.
    http::Exchange::plain_error(response_, 503);
    response_.body = "shutting down\n";
    co_return nullptr;
  }
  if (!connection_->count_websocket(websocket_slot_)) {
    // Why: over HTTP/1.1 a WebSocket is a connection of its own, held to the
    // listener's limits; one over a stream is too (a stream cannot wait in
    // the accept loop for room, so it is refused).
    http::Exchange::plain_error(response_, 503);
    response_.body = "too many connections\n";
    co_return nullptr;
  }
  response.mark_head_sent();
  if (!submit_head(std::nullopt, true)) {
    answer_500_instead();
    co_return nullptr;
  }
  enter_output(OutputPhase::streaming);
  connection_->output_ready();
  // Why disarm: the handler now runs as long as the WebSocket lives; the
  // session keeps its own timers (pings, writes, the close handshake).
  if (deadline_ != nullptr) deadline_->disarm();
  tunnel_ = std::make_unique<Http2Tunnel>(*this);
  websocket_ = std::make_shared<http::WebSocketSession>(*tunnel_, std::string(), std::move(terms), options,
                                                        site_.tracker, site_.websocket_metrics);
  websocket_->start();
  co_return websocket_.get();
}

Task<void> Http2Stream::end_websocket(bool failed) {
  co_await websocket_->finish(failed ? http::websocket::close_code::internal_error
                                     : http::websocket::close_code::normal);
  const bool broke = websocket_->close_code() == http::websocket::close_code::abnormal;  // 1006: no close handshake
  websocket_.reset();
  websocket_slot_.reset();
  if (!broke) {
    end_stream({}, true);
    co_return;
  }
  // Why a reset: RFC 8441 §5 maps a TCP connection that ends abnormally to
  // RST_STREAM(CANCEL), and an orderly close to END_STREAM.
  if (!reset_) connection_->reset_stream(id_, NGHTTP2_CANCEL);
  reset_ = true;
}

}  // namespace tiffany::http2
