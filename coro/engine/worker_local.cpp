// worker_local: each scheduler's values by key; a thread's own outside any scheduler.
#include "coro/engine/worker_local.hpp"

#include <unordered_map>
#include <utility>
#include <vector>

namespace tiffany::detail {
namespace {

struct Value {
  const void* key;
  void* value;
  void (*destroy)(void*);
};

// Destroys `made` (one scheduler's values, in the order they were made),
// last made first: a later one may use an earlier one.
void destroy_all(std::vector<Value> made) noexcept {
  while (!made.empty()) {
    const Value value = made.back();
    made.pop_back();
    value.destroy(value.value);
  }
}

// Every scheduler's values on this thread. Why a map on the thread, not a
// member of Scheduler: a scheduler belongs to one thread, and its layout is
// the SDK's. The real server holds one entry a worker thread; the simulation
// one per simulated worker. The null key is the thread's own (no scheduler
// current), destroyed with the thread.
struct ThreadValues {
  std::unordered_map<const Scheduler*, std::vector<Value>> by_scheduler;
  ~ThreadValues() {
    for (auto& [scheduler, made] : by_scheduler) destroy_all(std::move(made));
  }
};

thread_local ThreadValues t_values;

}  // namespace

void* worker_local_slot(const void* key, void* (*make)(), void (*destroy)(void*)) {
  std::vector<Value>& values = t_values.by_scheduler[Scheduler::current_or_null()];
  for (const Value& value : values) {
    if (value.key == key) return value.value;
  }
  void* made = make();
  values.push_back(Value{key, made, destroy});
  return made;
}

void end_worker_locals(const Scheduler* scheduler) noexcept {
  const auto found = t_values.by_scheduler.find(scheduler);
  if (found == t_values.by_scheduler.end()) return;
  // Why taken out first: a value's destructor may ask for another worker_local.
  std::vector<Value> made = std::move(found->second);
  t_values.by_scheduler.erase(found);
  destroy_all(std::move(made));
}

}  // namespace tiffany::detail
