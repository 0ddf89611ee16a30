// ResponseCompression: eligibility, negotiation, labels (Vary, Content-Encoding, ETag) and encoding.
#include "http/engine/compression/response_compression.hpp"

#include <exception>

#include "http/engine/compression/accept_encoding.hpp"

namespace tiffany::http {
namespace {

constexpr std::size_t kKeptEncodedCapacity = 64 * 1024;

bool status_compressible(int status) noexcept {
  return (status >= 200 && status < 300 && status != 204 && status != 206) || status >= 400;
}

bool contains_ignoring_case(std::string_view text, std::string_view word) noexcept {
  for (std::size_t at = 0; at + word.size() <= text.size(); ++at) {
    if (iequals(text.substr(at, word.size()), word)) return true;
  }
  return false;
}

// `"abc"` -> `"abc-gzip"`, `W/"abc"` -> `W/"abc-gzip"`; anything else as it is.
void suffix_etag(Response& response, Coding coding) {
  const std::optional<std::string_view> etag = response.headers.get("ETag");
  if (!etag || etag->size() < 2 || etag->back() != '"') return;
  std::string tagged(etag->substr(0, etag->size() - 1));
  tagged += '-';
  tagged += coding_name(coding);
  tagged += '"';
  response.headers.set("ETag", tagged);
}

// Adds `Vary: Accept-Encoding` unless a Vary field already names it (the
// static handler's precompressed files do) or says "*".
void add_vary_accept_encoding(Response& response) {
  for (const Headers::Field& field : response.headers) {
    if (iequals(field.name, "Vary") &&
        (contains_ignoring_case(field.value, "accept-encoding") || field.value.find('*') != std::string::npos)) {
      return;
    }
  }
  response.headers.add("Vary", "Accept-Encoding");
}

}  // namespace

void ResponseCompression::negotiate(Request& request) {
  coding_ = negotiate_coding(request.headers, settings_->codings);
  if (coding_ == Coding::identity) return;
  const std::optional<std::string_view> if_none_match = request.headers.get("If-None-Match");
  if (!if_none_match) return;
  // Why: the ETag we sent for this coding was the handler's with "-<coding>"
  // inside the quotes; the handler only knows its own, so it must see that.
  std::string suffix = "-";
  suffix += coding_name(coding_);
  suffix += '"';
  if (if_none_match->find(suffix) == std::string_view::npos) return;
  std::string rewritten;
  std::string_view rest = *if_none_match;
  for (auto at = rest.find(suffix); at != std::string_view::npos; at = rest.find(suffix)) {
    rewritten.append(rest.substr(0, at));
    rewritten += '"';
    rest.remove_prefix(at + suffix.size());
  }
  rewritten.append(rest);
  request.headers.set("If-None-Match", rewritten);
  stripped_if_none_match_ = true;
}

bool ResponseCompression::eligible(const Response& response, std::optional<std::uint64_t> size) const noexcept {
  if (settings_ == nullptr || !status_compressible(response.status)) return false;
  if (size && *size < settings_->min_bytes) return false;
  bool listed_type = false;
  for (const Headers::Field& field : response.headers) {
    const std::string_view name = field.name;
    if (iequals(name, "Content-Encoding") || iequals(name, "Content-Range")) return false;
    if (iequals(name, "Cache-Control") && contains_ignoring_case(field.value, "no-transform")) return false;
    if (iequals(name, "Content-Type")) listed_type = settings_->compresses_type(field.value);
  }
  return listed_type;
}

void ResponseCompression::label(Response& response) const {
  add_vary_accept_encoding(response);
  if (coding_ == Coding::identity) return;
  response.headers.set("Content-Encoding", coding_name(coding_));
  // Why: this representation is made per request; a Range over it is not
  // offered (a range request gets the identity bytes, or with If-Range
  // naming this ETag the whole encoded body), as nginx's gzip does.
  response.headers.remove("Accept-Ranges");
  suffix_etag(response, coding_);
}

void ResponseCompression::label_not_modified(Response& response) const {
  // Why only then: it answers a tag of our encoded representation, so it
  // carries that tag and the Vary the 200 had (RFC 9110 §15.4.5); a 304
  // has no content, so no Content-Encoding.
  if (!stripped_if_none_match_) return;
  add_vary_accept_encoding(response);
  suffix_etag(response, coding_);
}

bool ResponseCompression::compress_whole(Response& response, bool head) {
  if (response.status == 304) {
    label_not_modified(response);
    return false;
  }
  if (!eligible(response, response.content_length().value_or(response.body_bytes().size()))) return false;
  if (coding_ != Coding::identity && !head) {
    try {
      encode_whole(coding_, settings_->level(coding_), response.body_bytes(), encoded_);
    } catch (const std::exception&) {
      // Out of memory in the library: the body goes out as it is.
      add_vary_accept_encoding(response);
      return false;
    }
    response.body.swap(encoded_);
    response.drop_body_reference();  // the encoded bytes replace a referenced body too
  }
  label(response);
  return coding_ != Coding::identity;
}

bool ResponseCompression::start_stream(Response& response, bool head) {
  if (settings_ == nullptr) return false;
  if (response.status == 304) {
    label_not_modified(response);
    return false;
  }
  if (!eligible(response, response.content_length())) return false;
  if (coding_ != Coding::identity && !head) {
    encoder_ = PooledEncoder::acquire(coding_, settings_->level(coding_), Encoder::kUnknownSize);
  }
  label(response);
  return coding_ != Coding::identity;
}

std::string_view ResponseCompression::encode_piece(std::string_view piece) {
  encoded_.clear();
  encoder_->encode(piece, false, encoded_);
  return encoded_;
}

std::string_view ResponseCompression::finish_stream() {
  encoded_.clear();
  encoder_->encode({}, true, encoded_);
  encoder_.reset();
  return encoded_;
}

void ResponseCompression::trim() noexcept {
  if (encoded_.capacity() > kKeptEncodedCapacity) std::string().swap(encoded_);
}

}  // namespace tiffany::http
