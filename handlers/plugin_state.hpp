// StateSlots: typed, owned objects keyed by their type, for the plugin contexts.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tiffany::detail {

/// A type's key without RTTI: the address of a variable made per type.
/// Why not typeid: plugins are built with hidden visibility, and each
/// plugin has contexts of its own, so an address unique per plugin is enough.
template <class T>
inline constexpr char kStateKey = 0;

/// At most one object per type, destroyed in reverse order of creation.
/// Not thread-safe: each context says which thread may touch it when.
class StateSlots {
 public:
  StateSlots() = default;
  StateSlots(const StateSlots&) = delete;
  StateSlots& operator=(const StateSlots&) = delete;
  ~StateSlots() { clear(); }

  /// Makes the T, owned here; throws std::logic_error if there is one already.
  template <class T, class... Args>
  T& emplace(Args&&... args) {
    if (find<T>() != nullptr) throw std::logic_error("this context already holds a state of that type");
    auto owned = std::make_unique<T>(std::forward<Args>(args)...);
    T& object = *owned;
    slots_.push_back(Slot{&kStateKey<T>, std::unique_ptr<void, void (*)(void*)>(
                                             owned.release(), [](void* p) { delete static_cast<T*>(p); })});
    return object;
  }

  /// The T, or nullptr.
  template <class T>
  T* find() const noexcept {
    for (const Slot& slot : slots_) {
      if (slot.key == &kStateKey<T>) return static_cast<T*>(slot.object.get());
    }
    return nullptr;
  }

  /// Destroys every object, newest first.
  void clear() noexcept {
    while (!slots_.empty()) slots_.pop_back();
  }

 private:
  struct Slot {
    const void* key;
    std::unique_ptr<void, void (*)(void*)> object;
  };
  std::vector<Slot> slots_;
};

/// What both plugin contexts (AppContext, WorkerContext) offer their plugin:
/// one object per type, made by emplace and reached by get or find. The
/// context's own comment says which thread may call what when.
class ContextState {
 public:
  ContextState(const ContextState&) = delete;
  ContextState& operator=(const ContextState&) = delete;

  /// Makes the context's T; throws std::logic_error if it has one already.
  template <class T, class... Args>
  T& emplace(Args&&... args) {
    return slots_.emplace<T>(std::forward<Args>(args)...);
  }
  /// The T made by emplace; throws std::logic_error, naming the plugin and
  /// where the state should have been made, when there is none.
  template <class T>
  T& get() const {
    if (T* found = slots_.find<T>()) return *found;
    throw std::logic_error(missing_message_);
  }
  /// The T made by emplace, or nullptr.
  template <class T>
  T* find() const noexcept {
    return slots_.find<T>();
  }

  // ---- the server's side ----
  /// Destroys the state, newest first.
  void clear_state() noexcept { slots_.clear(); }

 protected:
  explicit ContextState(std::string missing_message) : missing_message_(std::move(missing_message)) {}
  ~ContextState() = default;

 private:
  StateSlots slots_;
  std::string missing_message_;
};

}  // namespace tiffany::detail
