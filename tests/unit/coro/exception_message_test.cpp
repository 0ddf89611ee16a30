// exception_message: the text log lines give a caught exception.
#include <tiffany/coro/exception_message.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace tiffany {
namespace {

TEST(ExceptionMessage, IsWhatOfAStdException) {
  EXPECT_EQ(exception_message(std::make_exception_ptr(std::runtime_error("boom"))), "boom");
}

TEST(ExceptionMessage, NamesAnythingElseUnknown) {
  EXPECT_EQ(exception_message(std::make_exception_ptr(42)), "unknown exception");
}

}  // namespace
}  // namespace tiffany
