// offload: run a blocking or CPU-heavy function on the offload pool and await it.
#pragma once

#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

#include "coro/external_promise.hpp"
#include "coro/offload_pool.hpp"
#include "coro/task.hpp"

namespace tiffany {

/// `auto digest = co_await offload(pool, [file] { return sha256(file); });`
/// runs `fn` on a pool thread and resumes the caller on its own scheduler's
/// thread with the result, or rethrows what `fn` threw. The worker's reactor
/// keeps serving other tasks meanwhile. If the caller is canceled it stops
/// waiting (TaskCanceled) while `fn` runs to its end, so `fn` must own what it
/// uses: capture by value, not references into the caller's frame.
template <class F>
Task<std::invoke_result_t<F&>> offload(OffloadPool& pool, F fn) {
  using R = std::invoke_result_t<F&>;
  struct Job {
    F fn;
    ExternalPromise<R> promise;
  };
  auto job = std::make_shared<Job>(Job{std::move(fn), {}});
  ExternalFuture<R> result = job->promise.future();
  pool.submit([job] {
    std::exception_ptr failure;
    try {
      if constexpr (std::is_void_v<R>) {
        job->fn();
        job->promise.set_value();
      } else {
        job->promise.set_value(job->fn());
      }
    } catch (...) {
      failure = std::current_exception();
    }
    // Why outside the handler: once the failure is handed over, this thread
    // must hold no reference to the exception (see ExternalFuture's resume).
    if (failure) job->promise.set_exception(std::move(failure));
  });
  co_return co_await std::move(result);
}

/// offload on the process-wide default pool.
template <class F>
Task<std::invoke_result_t<F&>> offload(F fn) {
  return offload(OffloadPool::default_pool(), std::move(fn));
}

}  // namespace tiffany
