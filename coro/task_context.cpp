// TaskContext: copy-on-write storage of task-local values.
#include <tiffany/coro/kernel.hpp>
#include <tiffany/coro/task_context.hpp>

#include <tiffany/coro/scheduler.hpp>

namespace tiffany {

TaskContext::TaskContext(const TaskContext& other) noexcept : size_(other.size_) {
  for (std::uint32_t i = 0; i < size_; ++i) {
    entries_[i] = other.entries_[i];
    entries_[i].value->retain();
  }
}

TaskContext::~TaskContext() {
  for (std::uint32_t i = 0; i < size_; ++i) entries_[i].value->release();
}

TaskContext& TaskContext::writable(TaskContext*& slot) {
  if (slot == nullptr) {
    slot = new TaskContext();
  } else if (slot->references_ > 1) {
    TaskContext* copy = new TaskContext(*slot);
    --slot->references_;
    slot = copy;
  }
  return *slot;
}

void TaskContext::destroy(TaskContext* context) noexcept { delete context; }

const TaskContext::Entry* TaskContext::entry_for(std::string_view name) const noexcept {
  for (std::uint32_t i = 0; i < size_; ++i) {
    if (entries_[i].name == name) return &entries_[i];
  }
  return nullptr;
}

void TaskContext::put(std::string_view name, const std::type_info& type, detail::ContextValue* value) {
  if (Entry* entry = entry_for(name)) {
    entry->value->release();
    *entry = Entry{name, &type, value};
    return;
  }
  if (size_ == kCapacity) {
    value->release();
    throw std::length_error("a task context holds at most 8 variables");
  }
  entries_[size_++] = Entry{name, &type, value};
}

void TaskContext::erase(std::string_view name) noexcept {
  Entry* entry = entry_for(name);
  if (entry == nullptr) return;
  entry->value->release();
  *entry = entries_[--size_];
}

const TaskContext* current_task_context() noexcept {
  Scheduler* scheduler = Scheduler::current_or_null();
  const detail::TaskRecord* task = scheduler != nullptr ? detail::Kernel(*scheduler).current_task() : nullptr;
  return task != nullptr ? task->context() : nullptr;
}

TaskContext*& current_task_context_slot() {
  Scheduler* scheduler = Scheduler::current_or_null();
  detail::TaskRecord* task = scheduler != nullptr ? detail::Kernel(*scheduler).current_task() : nullptr;
  if (task == nullptr) throw std::logic_error("a ContextVar is set from inside a task");
  return task->context_slot();
}

}  // namespace tiffany
