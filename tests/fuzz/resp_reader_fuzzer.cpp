// libFuzzer target: RespReader (Redis replies, RESP2), fed whole and in pieces: the same replies or the
// same error either way, every value within the limits, and each value written back as RESP reads as itself.
//   build-fuzz/tests/fuzz/resp_reader_fuzzer CORPUS tests/fuzz/resp_seeds
// An input is: one byte saying where to cut (a piece of 1 to 16 bytes, or whole), then the stream.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "client/engine/redis/resp_reader.hpp"

namespace {

using tiffany::redis::RespLimits;
using tiffany::redis::RespReader;
using tiffany::redis::RespValue;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "resp_reader_fuzzer: %s\n", what);
  std::abort();
}

struct Outcome {
  std::vector<RespValue> values;
  bool error = false;
  std::size_t left = 0;
};

Outcome read(std::string_view input, std::size_t piece, const RespLimits& limits) {
  RespReader reader(limits);
  Outcome outcome;
  for (std::size_t at = 0; at < input.size() && !outcome.error; at += piece) {
    reader.feed(input.substr(at, piece));
    RespValue value;
    for (;;) {
      const RespReader::Status status = reader.next(value);
      if (status == RespReader::Status::value) {
        outcome.values.push_back(value);
        continue;
      }
      outcome.error = status == RespReader::Status::error;
      if (outcome.error && reader.why().empty()) violated("an error without a reason");
      break;
    }
  }
  outcome.left = reader.buffered();
  return outcome;
}

bool same(const RespValue& a, const RespValue& b) {
  if (a.type != b.type || a.text != b.text || a.integer != b.integer || a.elements.size() != b.elements.size()) return false;
  for (std::size_t i = 0; i < a.elements.size(); ++i) {
    if (!same(a.elements[i], b.elements[i])) return false;
  }
  return true;
}

void check(const RespValue& value, const RespLimits& limits, std::size_t depth) {
  if (depth > limits.max_depth) violated("a value nested past max_depth");
  if (value.text.size() > limits.max_bulk_bytes) violated("a string past max_bulk_bytes");
  if (value.elements.size() > limits.max_elements) violated("an array past max_elements");
  if ((value.type == RespValue::Type::simple_string || value.type == RespValue::Type::error) &&
      value.text.find_first_of("\r\n") != std::string::npos) {
    violated("a line with CR or LF inside");
  }
  for (const RespValue& element : value.elements) check(element, limits, depth + 1);
}

void write(const RespValue& value, std::string& out) {
  switch (value.type) {
    case RespValue::Type::simple_string: out += "+" + value.text + "\r\n"; break;
    case RespValue::Type::error: out += "-" + value.text + "\r\n"; break;
    case RespValue::Type::integer: out += ":" + std::to_string(value.integer) + "\r\n"; break;
    case RespValue::Type::bulk_string: out += "$" + std::to_string(value.text.size()) + "\r\n" + value.text + "\r\n"; break;
    case RespValue::Type::null: out += "$-1\r\n"; break;
    case RespValue::Type::array:
      out += "*" + std::to_string(value.elements.size()) + "\r\n";
      for (const RespValue& element : value.elements) write(element, out);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  RespLimits limits;
  limits.max_bulk_bytes = 4096;
  limits.max_elements = 64;
  limits.max_depth = 4;
  limits.max_line_bytes = 256;
  const std::size_t piece = 1 + data[0] % 16;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = read(input, input.size() + 1, limits);
  const Outcome pieces = read(input, piece, limits);
  if (whole.values.size() != pieces.values.size()) violated("whole and in pieces, the count of replies differs");
  for (std::size_t i = 0; i < whole.values.size(); ++i) {
    if (!same(whole.values[i], pieces.values[i])) violated("whole and in pieces, a reply differs");
    check(whole.values[i], limits, 0);
    std::string written;
    write(whole.values[i], written);
    const Outcome again = read(written, written.size() + 1, limits);
    if (again.error || again.values.size() != 1 || !same(again.values[0], whole.values[i]) || again.left != 0) {
      violated("a reply written back as RESP does not read as itself");
    }
  }
  if (whole.error != pieces.error) violated("whole and in pieces, one failed and the other did not");
  return 0;
}
