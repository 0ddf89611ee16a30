// exception_message: the text of a caught exception, for log lines.
#pragma once

#include <exception>
#include <string>

namespace tiffany {

/// The message of an exception: what() of a std::exception, else "unknown exception".
std::string exception_message(const std::exception_ptr& error);

}  // namespace tiffany
