// Op schemas: the parser and the registry's dispatch rules.
#include "ops/registry.h"
#include "support/test_support.h"

using namespace tvk;

TEST(Schema, ParsesNamesTypesDefaultsAndKwargOnly) {
  ops::Schema s = ops::parse_schema(
      "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
      "int[2] dilation=1, bool ceil_mode=False) -> Tensor");
  EXPECT_EQ(s.full_name(), "aten::max_pool2d");
  ASSERT_EQ(s.arguments.size(), 6u);
  EXPECT_EQ(s.arguments[1].type, "int[2]");
  EXPECT_EQ(s.arguments[3].default_value->toIntList(), (IntList{0, 0}));
  EXPECT_EQ(s.arguments[4].default_value->toIntList(), (IntList{1, 1}));
  EXPECT_TRUE(s.arguments[2].default_value->toIntList().empty());
  EXPECT_FALSE(s.arguments[5].default_value->toBool());

  ops::Schema add = ops::parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(add.overload, "Tensor");
  EXPECT_TRUE(add.arguments[2].kwarg_only);
  EXPECT_EQ(add.index_of("alpha"), 2);
  EXPECT_EQ(add.returns, (std::vector<std::string>{"Tensor"}));
}

TEST(Schema, MalformedTextIsAnError) {
  EXPECT_THROW(ops::parse_schema("add(Tensor self) -> Tensor"), Error);
  EXPECT_THROW(ops::parse_schema("aten::add(Tensor self"), Error);
  EXPECT_THROW(ops::parse_schema("aten::add(Tensor) -> Tensor"), Error);
}

TEST(Registry, FirstOpsAreRegisteredWithCpuKernels) {
  for (const char* name : {"aten::add.Tensor", "aten::add.Scalar", "aten::add_.Tensor", "aten::mul.Scalar",
                           "aten::relu", "aten::relu_", "aten::clamp", "aten::hardtanh", "aten::hardtanh_"}) {
    const ops::OpEntry* op = ops::Registry::global().find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->supports(Device::CPU)) << name;
#if TVK_USE_VULKAN
    EXPECT_TRUE(op->supports(Device::Vulkan)) << name;
#endif
  }
  EXPECT_EQ(ops::Registry::global().find("aten::no_such_op"), nullptr);
  EXPECT_THROW(call_op("aten::no_such_op", {}), UnsupportedError);
}

TEST(Registry, MissingArgumentsAndDefaultsAreHandled) {
  Tensor x = tensor_from({-1, 2}, {2});
  Tensor y = call_op("aten::hardtanh", {x}).toTensor();  // defaults -1, 1
  EXPECT_EQ(y.data<float>()[1], 1.f);
  EXPECT_THROW(call_op("aten::add.Tensor", {x}), Error);
  EXPECT_THROW(call_op("aten::relu", {x, x}), Error);
}
