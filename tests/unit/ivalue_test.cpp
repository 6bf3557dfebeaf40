// IValue: checked accessors, aliasing lists, equality.
#include "support/test_support.h"

using namespace tvk;

TEST(IValue, AccessorsCheckTypes) {
  IValue i(int64_t{3});
  EXPECT_EQ(i.toInt(), 3);
  EXPECT_DOUBLE_EQ(i.toDouble(), 3.0);
  EXPECT_THROW(i.toTensor(), Error);
  EXPECT_THROW(IValue("x").toInt(), Error);
  EXPECT_TRUE(IValue().isNone());
}

TEST(IValue, ListsAliasAndTuplesCompareByValue) {
  List items;
  items.emplace_back(1);
  items.emplace_back(2);
  IValue l = IValue::list(items);
  IValue alias = l;
  alias.toListRef()->push_back(IValue(3));
  EXPECT_EQ(l.toList().size(), 3u);
  EXPECT_TRUE(l.is(alias));
  List one_a;
  one_a.emplace_back(1);
  one_a.emplace_back("a");
  List two;
  two.emplace_back(2);
  EXPECT_TRUE(ivalue_equal(IValue::tuple(one_a), IValue::tuple(one_a)));
  EXPECT_FALSE(ivalue_equal(IValue::tuple(one_a), IValue::tuple(two)));
  EXPECT_EQ(IValue(IntList{1, 2}).toIntList(), (IntList{1, 2}));
}

TEST(IValue, DictKeepsInsertionOrder) {
  auto d = std::make_shared<Dict>();
  d->set(IValue("b"), IValue(1));
  d->set(IValue("a"), IValue(2));
  d->set(IValue("b"), IValue(3));
  ASSERT_EQ(d->items.size(), 2u);
  EXPECT_EQ(d->items[0].first.toStringRef(), "b");
  EXPECT_EQ(d->items[0].second.toInt(), 3);
}
