// TaskContext and ContextVar: values local to a task, snapshotted into the tasks it spawns.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <typeinfo>
#include <utility>

#include <tiffany/coro/frame_allocator.hpp>

namespace tiffany {

namespace detail {

/// One value set through a ContextVar. Immutable while shared; counted, not
/// atomically: a context never leaves its scheduler's thread.
class ContextValue {
 public:
  ContextValue() noexcept = default;
  ContextValue(const ContextValue&) = delete;
  ContextValue& operator=(const ContextValue&) = delete;
  virtual ~ContextValue() = default;

  void retain() noexcept { ++references_; }
  void release() noexcept {
    if (--references_ == 0) delete this;
  }
  bool shared() const noexcept { return references_ > 1; }

  // Why: contexts are made per request; the frame recycler keeps that off malloc.
  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* block, std::size_t size) noexcept { deallocate_frame(block, size); }

 private:
  std::uint32_t references_ = 1;
};

template <class T>
class TypedContextValue final : public ContextValue {
 public:
  explicit TypedContextValue(T initial) : value(std::move(initial)) {}
  T value;
};

}  // namespace detail

/// The values of one task (PYOS-style task-local storage, like Python's
/// contextvars). A spawned task starts with a snapshot of its parent's:
/// the two share the storage until either sets a value (copy on write), so
/// spawning costs one counter increment, and what one sets never shows in
/// the other. gather and race spawn their children from the caller, so those
/// see the caller's values too.
///
/// Holds at most kCapacity distinct variables. One thread: the scheduler's.
class TaskContext {
 public:
  static constexpr std::size_t kCapacity = 8;

  /// The value `name` holds here if it is a T, else nullptr.
  template <class T>
  const T* find(std::string_view name) const noexcept {
    const Entry* entry = entry_for(name);
    if (entry == nullptr || *entry->type != typeid(T)) return nullptr;
    return &static_cast<const detail::TypedContextValue<T>*>(entry->value)->value;
  }

  // ---- for ContextVar and the scheduler ----

  /// A context `slot` alone owns, made by copying a shared one (or new).
  static TaskContext& writable(TaskContext*& slot);
  /// Shares `context` (may be null) with one more task.
  static TaskContext* share(TaskContext* context) noexcept {
    if (context != nullptr) ++context->references_;
    return context;
  }
  /// Drops one task's share (inline: most tasks never set a value).
  static void release(TaskContext* context) noexcept {
    if (context != nullptr && --context->references_ == 0) destroy(context);
  }

  template <class T, class U>
  void set(std::string_view name, U&& value) {
    Entry* entry = entry_for(name);
    if (entry != nullptr && *entry->type == typeid(T) && !entry->value->shared()) {
      // Why in place: a connection sets its request id per request; assigning
      // into the value (and a string's buffer) keeps that off the allocator.
      static_cast<detail::TypedContextValue<T>*>(entry->value)->value = std::forward<U>(value);
      return;
    }
    put(name, typeid(T), new detail::TypedContextValue<T>(T(std::forward<U>(value))));
  }
  void erase(std::string_view name) noexcept;

  static void* operator new(std::size_t size) { return detail::allocate_frame(size); }
  static void operator delete(void* block, std::size_t size) noexcept { detail::deallocate_frame(block, size); }

 private:
  struct Entry {
    std::string_view name;  // the ContextVar's name: static storage
    const std::type_info* type;
    detail::ContextValue* value;  // one reference owned
  };

  TaskContext() = default;
  TaskContext(const TaskContext& other) noexcept;
  ~TaskContext();
  static void destroy(TaskContext* context) noexcept;

  const Entry* entry_for(std::string_view name) const noexcept;
  Entry* entry_for(std::string_view name) noexcept {
    return const_cast<Entry*>(std::as_const(*this).entry_for(name));
  }
  /// Stores `value` (taking its reference) under `name`, replacing any other.
  void put(std::string_view name, const std::type_info& type, detail::ContextValue* value);

  std::uint32_t references_ = 1;
  std::uint32_t size_ = 0;
  std::array<Entry, kCapacity> entries_;
};

/// The current task's context; nullptr outside a task or before anything was set.
const TaskContext* current_task_context() noexcept;
/// The current task's context slot, to write; throws std::logic_error outside a task.
TaskContext*& current_task_context_slot();

/// A task-local variable of type T, known by its name (so a plugin built
/// against the SDK reads what the server set: two ContextVars with one name
/// and type are the same variable). Declare it once, e.g.
///   inline const ContextVar<std::string> kTenant{"shop.tenant"};
/// and use it from inside tasks:
///   kTenant.set("acme");                    // this task and what it spawns next
///   const std::string* tenant = kTenant.get();
/// Reading a name set with another type gives nullptr. The name must be a
/// string with static storage (a literal).
template <class T>
class ContextVar {
 public:
  explicit constexpr ContextVar(std::string_view name) noexcept : name_(name) {}

  std::string_view name() const noexcept { return name_; }
  /// The current task's value, or nullptr (unset, or outside a task).
  const T* get() const noexcept { return get_from(current_task_context()); }
  /// The value in `context` (may be null), e.g. a finished task's.
  const T* get_from(const TaskContext* context) const noexcept {
    return context == nullptr ? nullptr : context->find<T>(name_);
  }
  /// Sets the current task's value; tasks it spawns from now on inherit it.
  void set(const T& value) const { TaskContext::writable(current_task_context_slot()).set<T>(name_, value); }
  void set(T&& value) const { TaskContext::writable(current_task_context_slot()).set<T>(name_, std::move(value)); }
  /// Removes the current task's value (its children keep theirs).
  void reset() const {
    TaskContext*& slot = current_task_context_slot();
    if (slot != nullptr && slot->find<T>(name_) != nullptr) TaskContext::writable(slot).erase(name_);
  }

 private:
  std::string_view name_;
};

}  // namespace tiffany
