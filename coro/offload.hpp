// offload: run a blocking or CPU-heavy function on the offload pool and await it.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tiffany/coro/external_promise.hpp>
#include <tiffany/coro/offload_pool.hpp>
#include <tiffany/coro/task.hpp>

namespace tiffany {
namespace detail {

// Why these checks: g++ 12 (Debian 12's compiler) destroys a temporary
// closure or aggregate twice when it appears inside a co_await operand, so
// `co_await offload(pool, [body = request.body] { ... })` frees `body` twice
// and crashes. offload's arguments always sit in such an operand, so it
// refuses the forms that compile to a double free: an rvalue callable whose
// destructor does something (a lambda capturing a string, a shared_ptr, ...)
// and an rvalue aggregate argument with such members. What it accepts is
// safe: a capture-less (or reference-capturing) lambda with the data passed
// as arguments, or a named callable (copied).
template <class F>
inline constexpr bool kSafeCallableInCoAwait =
    std::is_lvalue_reference_v<F> || std::is_trivially_destructible_v<std::remove_cvref_t<F>>;

template <class A>
inline constexpr bool kSafeArgumentInCoAwait =
    std::is_lvalue_reference_v<A> || std::is_trivially_destructible_v<std::remove_cvref_t<A>> ||
    !std::is_aggregate_v<std::remove_cvref_t<A>>;

// The callable and its arguments, owned on the heap so the pool thread can
// run them after the caller has stopped waiting (canceled).
template <class R, class F, class... Args>
class OffloadJob {
 public:
  template <class G, class... A>
  explicit OffloadJob(G&& fn, A&&... args) : fn_(std::forward<G>(fn)), args_(std::forward<A>(args)...) {}

  ExternalFuture<R> future() { return promise_.future(); }

  // Runs on a pool thread, once: the arguments are moved into `fn`.
  void run() {
    std::exception_ptr failure;
    try {
      if constexpr (std::is_void_v<R>) {
        std::apply(fn_, std::move(args_));
        promise_.set_value();
      } else {
        promise_.set_value(std::apply(fn_, std::move(args_)));
      }
    } catch (...) {
      failure = std::current_exception();
    }
    // Why outside the handler: once the failure is handed over, this thread
    // must hold no reference to the exception (see ExternalFuture's resume).
    if (failure) promise_.set_exception(std::move(failure));
  }

 private:
  F fn_;
  std::tuple<Args...> args_;
  ExternalPromise<R> promise_;
};

// The lazy part: the job is submitted when the task first runs.
template <class R, class Job>
Task<R> submit_and_wait(OffloadPool& pool, std::shared_ptr<Job> job) {
  ExternalFuture<R> result = job->future();
  pool.submit([job] { job->run(); });
  co_return co_await std::move(result);
}

}  // namespace detail

/// ```
/// auto digest = co_await offload(pool, [](std::string body) { return sha256(body); },
///                                std::move(request.body));
/// ```
/// runs `fn(args...)` on a pool thread and resumes the caller on its own
/// scheduler's thread with the result, or rethrows what `fn` threw. The
/// worker's reactor keeps serving other tasks meanwhile. Nothing runs until
/// the returned task is awaited.
///
/// Ownership: `fn` and `args` are moved (or copied, for lvalues) into a job
/// that outlives the caller if it is canceled (it stops waiting with
/// TaskCanceled while `fn` runs to its end). So pass data by value as
/// arguments, not as references into the caller's frame.
///
/// Compile-time guard: a lambda temporary that captures something with a
/// destructor (`[body = request.body] { ... }`) is refused, because g++ 12
/// destroys such a temporary twice inside a co_await operand. Pass what it
/// would capture as arguments instead, or name the lambda first and pass it
/// (it is copied).
template <class F, class... Args>
  requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
Task<std::invoke_result_t<std::decay_t<F>&, std::decay_t<Args>...>> offload(OffloadPool& pool, F&& fn,
                                                                             Args&&... args) {
  static_assert(detail::kSafeCallableInCoAwait<F>,
                "offload: a lambda temporary capturing values with destructors is destroyed twice by g++ 12 "
                "inside co_await; capture nothing and pass the values as arguments: "
                "offload(pool, [](std::string body) { ... }, std::move(body))");
  static_assert((detail::kSafeArgumentInCoAwait<Args> && ...),
                "offload: an aggregate temporary with members that have destructors is destroyed twice by g++ 12 "
                "inside co_await; name it first and pass it with std::move");
  using R = std::invoke_result_t<std::decay_t<F>&, std::decay_t<Args>...>;
  using Job = detail::OffloadJob<R, std::decay_t<F>, std::decay_t<Args>...>;
  auto job = std::make_shared<Job>(std::forward<F>(fn), std::forward<Args>(args)...);
  return detail::submit_and_wait<R>(pool, std::move(job));
}

/// offload on the process-wide default pool.
template <class F, class... Args>
  requires std::is_invocable_v<std::decay_t<F>&, std::decay_t<Args>...>
Task<std::invoke_result_t<std::decay_t<F>&, std::decay_t<Args>...>> offload(F&& fn, Args&&... args) {
  return offload(OffloadPool::default_pool(), std::forward<F>(fn), std::forward<Args>(args)...);
}

}  // namespace tiffany
