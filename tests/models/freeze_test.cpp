// Freezing: a frozen graph computes what the interpreted module computes, keeps the checks that
// depend on the input, and folds what depends only on attributes.
#include "io/npy.h"
#include "jit/ir/freeze.h"
#include "jit/runtime/graph_executor.h"
#include "jit/serialization/import.h"
#include "support/test_support.h"

using namespace tvk;
using namespace tvk::jit;

namespace {
std::string fixture(const std::string& name) { return TVK_SOURCE_DIR "/tests/models/torch2/" + name; }

IValue forward(jit::Module& m, const Tensor& x) {
  std::vector<IValue> in;
  in.emplace_back(x);
  return m.forward(std::move(in));
}
}  // namespace

TEST(Freeze, MobilenetGraphMatchesTheInterpreter) {
  jit::Module module = jit::load(fixture("mobilenet_v2_script.pt"));
  set_eval_mode(*module.state());
  auto graph = freeze_method(*module.state(), "forward");
  const auto histogram = graph->op_histogram();
  EXPECT_EQ(histogram.at("aten::conv2d"), 52) << graph->dump();
  EXPECT_EQ(histogram.at("aten::batch_norm"), 52);
  // The BatchNorm input-rank checks stay, as If nodes guarding a raise.
  EXPECT_GE(histogram.at("prim::If"), 52);
  EXPECT_EQ(histogram.count("aten::add_.Tensor"), 0u) << "training-only code is folded away";

  GraphExecutor executor(std::shared_ptr<const Graph>(std::move(graph)));
  Tensor x = io::read_npy(fixture("mobilenet_v2_input.npy"));
  Stack inputs;
  inputs.emplace_back(x);
  Tensor frozen = executor.run(std::move(inputs)).toTensor();
  Tensor interpreted = forward(module, x).toTensor();
  EXPECT_LE(testing_support::max_abs_diff(frozen, interpreted), 1e-6);
}

TEST(Freeze, InputChecksStillRaiseWithTheModelsMessage) {
  jit::Module module = jit::load(fixture("mobilenet_v2_script.pt"));
  set_eval_mode(*module.state());
  GraphExecutor executor(std::shared_ptr<const Graph>(freeze_method(*module.state(), "forward")));
  Stack inputs;
  inputs.emplace_back(tvk::rand({3, 64, 64}));
  try {
    executor.run(std::move(inputs));
    FAIL() << "a 3-D input must be refused";
  } catch (const ScriptException& e) {
    EXPECT_NE(std::string(e.what()).find("expected 4D input (got 3D input)"), std::string::npos) << e.what();
  }
}

TEST(Freeze, ControlFlowOnAttributesIsFoldedAndLoopsUnrolled) {
  jit::Module module = jit::load(fixture("control_flow_script.pt"));
  set_eval_mode(*module.state());
  auto graph = freeze_method(*module.state(), "forward");
  const auto histogram = graph->op_histogram();
  EXPECT_EQ(histogram.at("aten::relu"), 2) << "the while loop runs twice, unrolled\n" << graph->dump();
  EXPECT_EQ(histogram.at("aten::conv2d"), 1);
  GraphExecutor executor(std::shared_ptr<const Graph>(std::move(graph)));
  Tensor x = io::read_npy(fixture("control_flow_input.npy"));
  Stack inputs;
  inputs.emplace_back(x);
  IValue frozen = executor.run(std::move(inputs));
  IValue interpreted = forward(module, x);
  ASSERT_TRUE(frozen.isTuple());
  EXPECT_LE(testing_support::max_abs_diff(frozen.toTuple()[0].toTensor(), interpreted.toTuple()[0].toTensor()), 1e-6);
  EXPECT_LE(testing_support::max_abs_diff(frozen.toTuple()[1].toList()[1].toTensor(),
                                          interpreted.toTuple()[1].toList()[1].toTensor()),
            1e-6);
}
