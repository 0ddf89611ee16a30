// IntrusiveList: a doubly linked list threaded through its elements (h2o's linklist.h, typed).
#pragma once

#include <cstddef>

namespace tiffany {

/// The links an element carries for one IntrusiveList it may be in.
template <typename T>
struct ListLink {
  T* prev = nullptr;
  T* next = nullptr;
};

/// A list of T linked through their member `kLink`: no allocation, O(1)
/// insertion and removal anywhere, for elements that know they are in it
/// (the scheduler's ready queues, the idle park, the connection tracker).
/// The list owns nothing; an element is in at most one list per link, and
/// must be removed before it is destroyed. Not thread-safe.
template <typename T, ListLink<T> T::*kLink>
class IntrusiveList {
 public:
  IntrusiveList() = default;
  IntrusiveList(const IntrusiveList&) = delete;
  IntrusiveList& operator=(const IntrusiveList&) = delete;

  bool empty() const noexcept { return head_ == nullptr; }
  std::size_t size() const noexcept { return size_; }
  T* front() const noexcept { return head_; }
  /// The element after `item`, or nullptr: `for (T* e = l.front(); e; e = l.next(*e))`.
  static T* next(const T& item) noexcept { return (item.*kLink).next; }

  void push_back(T& item) noexcept {
    ListLink<T>& link = item.*kLink;
    link.prev = tail_;
    link.next = nullptr;
    (tail_ != nullptr ? (tail_->*kLink).next : head_) = &item;
    tail_ = &item;
    ++size_;
  }
  void push_front(T& item) noexcept {
    ListLink<T>& link = item.*kLink;
    link.prev = nullptr;
    link.next = head_;
    (head_ != nullptr ? (head_->*kLink).prev : tail_) = &item;
    head_ = &item;
    ++size_;
  }
  /// Unlinks `item`, which must be in this list.
  void remove(T& item) noexcept {
    ListLink<T>& link = item.*kLink;
    (link.prev != nullptr ? (link.prev->*kLink).next : head_) = link.next;
    (link.next != nullptr ? (link.next->*kLink).prev : tail_) = link.prev;
    link.prev = link.next = nullptr;
    --size_;
  }
  /// Unlinks and returns the first element, or nullptr if empty.
  T* pop_front() noexcept {
    T* first = head_;
    if (first != nullptr) remove(*first);
    return first;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace tiffany
