// MultipartReader: delimiters, part header lines and body bytes, found across piece boundaries.
#include <tiffany/http/multipart_reader.hpp>

#include <algorithm>
#include <utility>

#include <tiffany/http/headers.hpp>
#include <tiffany/http/media_type.hpp>

namespace tiffany::http {
namespace {

constexpr std::string_view kCrlf = "\r\n";

}  // namespace

MultipartReader::MultipartReader(std::string_view boundary, const MultipartLimits& limits)
    : delimiter_("\r\n--" + std::string(boundary)), limits_(limits) {
  if (boundary.empty()) (void)fail("no multipart boundary in the body");
}

void MultipartReader::feed(std::string_view piece) {
  if (carry_.empty()) {
    input_ = piece;  // Why no copy: the caller keeps it valid until need_more
  } else {
    carry_.append(piece);
    input_ = carry_;
  }
}

MultipartReader::Event MultipartReader::need_more() {
  // Why carry: the caller may reuse the piece's memory once it feeds the next.
  const std::string_view rest = input_.substr(consumed_);
  if (rest.data() == carry_.data()) {
    carry_.erase(0, consumed_);
  } else {
    carry_.assign(rest);
  }
  search_from_ -= std::min(search_from_, consumed_);
  if (consumed_ > 0) at_body_start_ = false;
  consumed_ = 0;
  input_ = carry_;
  return Event::need_more;
}

MultipartReader::Event MultipartReader::fail(std::string why) {
  error_ = std::move(why);
  state_ = State::failed;
  carry_.clear();
  return Event::error;
}

// After the boundary text at `after`: "--" (the close), or optional padding
// then CRLF; anything else means the boundary text only starts a longer line.
MultipartReader::Delimiter MultipartReader::classify_delimiter(std::size_t after, std::size_t& end) const noexcept {
  const std::string_view rest = input_.substr(after);
  if (rest.empty() || rest == "-") return Delimiter::incomplete;
  if (rest.substr(0, 2) == "--") {
    end = after + 2;
    return Delimiter::closing;
  }
  std::size_t at = 0;
  while (at < rest.size() && (rest[at] == ' ' || rest[at] == '\t')) ++at;
  if (at > kMaxPadding) return Delimiter::not_one;
  if (at == rest.size() || rest.substr(at) == "\r") return Delimiter::incomplete;
  if (rest.substr(at, 2) != kCrlf) return Delimiter::not_one;
  end = after + at + 2;
  return Delimiter::next_part;
}

std::size_t MultipartReader::partial_delimiter_at_end() const noexcept {
  const std::size_t longest = std::min(input_.size() - search_from_, delimiter_.size() - 1);
  for (std::size_t length = longest; length > 0; --length) {
    if (input_.substr(input_.size() - length) == std::string_view(delimiter_).substr(0, length)) return length;
  }
  return 0;
}

// One line of the part's header section; false when the section ended (the
// empty line) or more input is needed (state_ tells which) or on an error.
bool MultipartReader::read_header_line() {
  const std::size_t eol = input_.find(kCrlf, consumed_);
  const std::size_t available = (eol == std::string_view::npos ? input_.size() : eol + 2) - consumed_;
  if (header_bytes_ + available > limits_.max_part_header_bytes) {
    (void)fail("a part's header section is over " + std::to_string(limits_.max_part_header_bytes) + " bytes");
    return false;
  }
  if (eol == std::string_view::npos) return false;
  header_bytes_ += available;
  const std::string_view line = input_.substr(consumed_, eol - consumed_);
  consumed_ = eol + 2;
  if (line.empty()) {
    part_.content_type = std::string(part_.headers.get("Content-Type").value_or("text/plain"));
    if (const auto disposition = part_.headers.get("Content-Disposition")) {
      // Why a media-type reader: the parameters are written like a Content-Type's.
      if (auto name = media_type_param(*disposition, "name")) part_.name = std::move(*name);
      part_.filename = media_type_param(*disposition, "filename");
    }
    state_ = State::body;
    search_from_ = consumed_;
    return false;
  }
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_valid_field_name(line.substr(0, colon))) {
    (void)fail("a part's header line is not a field");
    return false;
  }
  const std::string_view value = trim_ows(line.substr(colon + 1));
  if (find_invalid_field_value_byte(value) != std::string_view::npos) {
    (void)fail("a part's header value holds a control byte");
    return false;
  }
  if (part_.headers.size() >= limits_.max_part_headers) {
    (void)fail("a part has over " + std::to_string(limits_.max_part_headers) + " header fields");
    return false;
  }
  part_.headers.add(line.substr(0, colon), value);
  return true;
}

MultipartReader::Event MultipartReader::next() {
  data_ = {};
  for (;;) {
    switch (state_) {
      case State::failed: return Event::error;
      case State::epilogue: return Event::done;

      case State::preamble: {
        // The first delimiter opens the body without its CRLF, or follows
        // the preamble's CRLF.
        std::size_t after = std::string_view::npos;
        const bool opening = at_body_start_ && search_from_ == 0;
        if (opening) {
          const std::string_view dash = std::string_view(delimiter_).substr(2);
          const std::string_view head = input_.substr(0, dash.size());
          if (head == dash.substr(0, head.size())) {
            if (head.size() < dash.size()) return finished_ ? fail("no multipart boundary in the body") : need_more();
            after = dash.size();
          }
        }
        if (after == std::string_view::npos) {
          const std::size_t at = input_.find(delimiter_, search_from_);
          if (at == std::string_view::npos) {
            if (finished_) return fail("no multipart boundary in the body");
            consumed_ = input_.size() - partial_delimiter_at_end();  // the preamble is skipped
            return need_more();
          }
          consumed_ = at;
          after = at + delimiter_.size();
        }
        std::size_t end = 0;
        switch (classify_delimiter(after, end)) {
          case Delimiter::incomplete: return finished_ ? fail("no multipart boundary in the body") : need_more();
          case Delimiter::not_one:  // look again, past its first byte
            search_from_ = opening && after < delimiter_.size() ? 1 : after - delimiter_.size() + 1;
            at_body_start_ = false;
            break;
          case Delimiter::closing:
            consumed_ = end;
            state_ = State::epilogue;
            break;
          case Delimiter::next_part:
            consumed_ = end;
            at_body_start_ = false;
            if (parts_ >= limits_.max_parts) return fail("over " + std::to_string(limits_.max_parts) + " parts");
            ++parts_;
            part_ = MultipartPart{};
            header_bytes_ = 0;
            state_ = State::headers;
            break;
        }
        break;
      }

      case State::headers:
        while (read_header_line()) {
        }
        if (state_ == State::failed) return Event::error;
        if (state_ == State::body) {
          data_ = input_.substr(consumed_, 0);  // empty, where the part's body begins
          return Event::part;
        }
        return finished_ ? fail("a part's header section does not end") : need_more();

      case State::body: {
        const std::size_t at = input_.find(delimiter_, search_from_);
        if (at == std::string_view::npos) {
          const std::size_t safe_end = input_.size() - partial_delimiter_at_end();
          if (safe_end > consumed_) {
            data_ = input_.substr(consumed_, safe_end - consumed_);
            consumed_ = safe_end;
            search_from_ = consumed_;
            return Event::data;
          }
          return finished_ ? fail("the multipart body ends before its closing boundary") : need_more();
        }
        if (at > consumed_) {  // the bytes before a delimiter candidate are the part's
          data_ = input_.substr(consumed_, at - consumed_);
          consumed_ = at;
          search_from_ = at;
          return Event::data;
        }
        std::size_t end = 0;
        switch (classify_delimiter(at + delimiter_.size(), end)) {
          case Delimiter::incomplete:
            return finished_ ? fail("the multipart body ends before its closing boundary") : need_more();
          case Delimiter::not_one:
            search_from_ = at + 1;  // its bytes are data: the next round hands them over
            break;
          case Delimiter::closing:
            consumed_ = end;
            state_ = State::epilogue;
            return Event::part_end;
          case Delimiter::next_part:
            consumed_ = end;
            if (parts_ >= limits_.max_parts) {
              state_ = State::failed;  // reported on the next call, after this part's end
              error_ = "over " + std::to_string(limits_.max_parts) + " parts";
              return Event::part_end;
            }
            ++parts_;
            part_ = MultipartPart{};
            header_bytes_ = 0;
            state_ = State::headers;
            return Event::part_end;
        }
        break;
      }
    }
  }
}

}  // namespace tiffany::http
