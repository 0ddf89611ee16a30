// exception_message: the text of a caught exception, for log lines.
#include <tiffany/coro/exception_message.hpp>

namespace tiffany {

std::string exception_message(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace tiffany
