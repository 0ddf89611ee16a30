// The PYOS system calls in one include: GetTid, Spawn, Join, Cancel, Yield, Sleep.
#pragma once

#include <tiffany/coro/cancel.hpp>
#include <tiffany/coro/deadline.hpp>
#include <tiffany/coro/get_tid.hpp>
#include <tiffany/coro/join.hpp>
#include <tiffany/coro/sleep.hpp>
#include <tiffany/coro/spawn.hpp>
#include <tiffany/coro/task_canceled.hpp>
#include <tiffany/coro/yield.hpp>
