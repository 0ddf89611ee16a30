// The PYOS system calls in one include: GetTid, Spawn, Join, Yield, Sleep.
#pragma once

#include "coro/get_tid.hpp"
#include "coro/join.hpp"
#include "coro/sleep.hpp"
#include "coro/spawn.hpp"
#include "coro/yield.hpp"
