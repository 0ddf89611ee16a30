// append_command: a Redis command in RESP2's request form (an array of bulk strings).
#pragma once

#include <charconv>
#include <initializer_list>
#include <string>
#include <string_view>

namespace tiffany::redis {

/// Appends `words` (`{"PUBLISH", channel, message}`) as one command: any bytes are fine in each.
inline void append_command(std::string& out, std::initializer_list<std::string_view> words) {
  char digits[24];
  const auto number = [&](char type, std::size_t value) {
    out += type;
    const auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, end);
    out += "\r\n";
  };
  number('*', words.size());
  for (const std::string_view word : words) {
    number('$', word.size());
    out.append(word);
    out += "\r\n";
  }
}

}  // namespace tiffany::redis
