// The PYOS system calls in one include: GetTid, Spawn, Join, Cancel, Yield, Sleep.
#pragma once

#include "coro/cancel.hpp"
#include "coro/deadline.hpp"
#include "coro/get_tid.hpp"
#include "coro/join.hpp"
#include "coro/sleep.hpp"
#include "coro/spawn.hpp"
#include "coro/task_canceled.hpp"
#include "coro/yield.hpp"
