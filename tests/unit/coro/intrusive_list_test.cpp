// IntrusiveList: order, removal from anywhere, and size, with no allocation.
#include <tiffany/coro/intrusive_list.hpp>

#include <gtest/gtest.h>

#include <string>

namespace tiffany {
namespace {

struct Item {
  explicit Item(char n) : name(n) {}
  char name;
  ListLink<Item> link;
};
using ItemList = IntrusiveList<Item, &Item::link>;

std::string names(const ItemList& list) {
  std::string out;
  for (Item* item = list.front(); item != nullptr; item = ItemList::next(*item)) out += item->name;
  return out;
}

TEST(IntrusiveList, KeepsInsertionOrderAtBothEnds) {
  Item a('a'), b('b'), c('c');
  ItemList list;
  EXPECT_TRUE(list.empty());
  list.push_back(b);
  list.push_back(c);
  list.push_front(a);
  EXPECT_EQ(names(list), "abc");
  EXPECT_EQ(list.size(), 3u);
}

TEST(IntrusiveList, RemovesFromTheHeadTheMiddleAndTheTail) {
  Item a('a'), b('b'), c('c'), d('d');
  ItemList list;
  for (Item* item : {&a, &b, &c, &d}) list.push_back(*item);
  list.remove(b);
  EXPECT_EQ(names(list), "acd");
  list.remove(d);
  EXPECT_EQ(names(list), "ac");
  list.push_back(d);  // the tail was updated
  EXPECT_EQ(names(list), "acd");
  EXPECT_EQ(list.pop_front(), &a);
  EXPECT_EQ(names(list), "cd");
  list.remove(c);
  list.remove(d);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.pop_front(), nullptr);
  list.push_back(b);  // usable again once emptied
  EXPECT_EQ(names(list), "b");
  EXPECT_EQ(list.size(), 1u);
}

TEST(IntrusiveList, AnElementMayBeInTwoListsThroughTwoLinks) {
  struct Both {
    ListLink<Both> first;
    ListLink<Both> second;
  };
  Both x, y;
  IntrusiveList<Both, &Both::first> ones;
  IntrusiveList<Both, &Both::second> others;
  ones.push_back(x);
  ones.push_back(y);
  others.push_back(y);
  others.push_back(x);
  EXPECT_EQ(ones.front(), &x);
  EXPECT_EQ(others.front(), &y);
  ones.remove(x);
  EXPECT_EQ(others.size(), 2u);
}

}  // namespace
}  // namespace tiffany
