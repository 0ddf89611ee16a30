// RequestBuilder: target splitting and the convenience setters.
#include <tiffany/handlers/testkit/request_builder.hpp>

#include <stdexcept>

#include <tiffany/http/uri.hpp>

namespace tiffany::testkit {

RequestBuilder::RequestBuilder(std::string method, std::string_view target) {
  request_.method = std::move(method);
  request_.target = std::string(target);
  const auto question = target.find('?');
  if (question != std::string_view::npos) request_.query = std::string(target.substr(question + 1));
  if (!http::normalize_path(target.substr(0, question), request_.path)) {
    throw std::invalid_argument("RequestBuilder: \"" + std::string(target) + "\" is not an absolute path");
  }
  request_.peer = "127.0.0.1:40000";
}

RequestBuilder& RequestBuilder::header(std::string_view name, std::string_view value) {
  request_.headers.add(name, value);
  return *this;
}

RequestBuilder& RequestBuilder::body(std::string body) {
  request_.body = std::move(body);
  return *this;
}

RequestBuilder& RequestBuilder::body_in_pieces(std::vector<std::string> pieces, http::BodyStatus ending) {
  request_.body.clear();
  pieces_ = std::move(pieces);
  ending_ = ending;
  streams_body_ = true;
  return *this;
}

RequestBuilder& RequestBuilder::json(std::string_view text) {
  request_.headers.set("Content-Type", "application/json");
  request_.body = std::string(text);
  return *this;
}

RequestBuilder& RequestBuilder::json(const picojson::value& value) { return json(value.serialize()); }

RequestBuilder& RequestBuilder::form(std::string_view encoded) {
  request_.headers.set("Content-Type", "application/x-www-form-urlencoded");
  request_.body = std::string(encoded);
  return *this;
}

RequestBuilder& RequestBuilder::cookie(std::string_view name, std::string_view value) {
  if (!cookies_.empty()) cookies_ += "; ";
  cookies_ += std::string(name) + "=" + std::string(value);
  request_.headers.set("Cookie", cookies_);
  return *this;
}

RequestBuilder& RequestBuilder::param(std::string name, std::string value) {
  request_.params.emplace_back(std::move(name), std::move(value));
  return *this;
}

RequestBuilder& RequestBuilder::version(int major, int minor) {
  request_.version_major = major;
  request_.version_minor = minor;
  return *this;
}

}  // namespace tiffany::testkit
