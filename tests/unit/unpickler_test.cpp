// Unpickler on the pickles of real TorchScript archives (values checked against numpy copies
// that torch wrote) and on hand-assembled hostile streams.
#include <cmath>
#include <cstring>
#include <random>

#include "io/npy.h"
#include "jit/serialization/storage_record.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "support/file_bytes.h"
#include "support/torch_fixtures.h"

using namespace tvk;
using namespace tvk::jit;
using namespace tvk::testing_support;

namespace {

// Hooks that load `<dir><key>` storages from the archive, as the jit loader will.
UnpicklerHooks archive_hooks(const ZipReader& zip, const std::string& dir = "data/") {
  UnpicklerHooks hooks;
  hooks.load_storage = [&zip, dir](const std::string& key, const std::string& type, int64_t numel,
                                   const std::string& /*location*/) {
    return read_storage_record(zip, dir + key, type, numel);
  };
  return hooks;
}

IValue load_pickle(const ZipReader& zip, const std::string& record, const std::string& dir = "data/") {
  return Unpickler::unpickle(zip.read(record), zip.display_name() + ": record '" + record + "'",
                             archive_hooks(zip, dir));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// A tiny pickle assembler for the hostile cases.
struct Pickle {
  std::string s = "\x80\x02";
  Pickle& op(char c) {
    s.push_back(c);
    return *this;
  }
  Pickle& raw(const std::string& r) {
    s += r;
    return *this;
  }
  Pickle& str(const std::string& v) {
    s.push_back('X');
    for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v.size() >> (8 * i)) & 0xFF));
    s += v;
    return *this;
  }
  Pickle& int1(uint8_t v) {
    s.push_back('K');
    s.push_back(static_cast<char>(v));
    return *this;
  }
  Pickle& flt(double v) {
    s.push_back('G');
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 7; i >= 0; --i) s.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
    return *this;
  }
  Pickle& global(const std::string& module, const std::string& name) {
    s += "c" + module + "\n" + name + "\n";
    return *this;
  }
  // ('storage', torch.<type>, key, 'cpu', numel) BINPERSID
  Pickle& storage(const std::string& type, const std::string& key, uint8_t numel) {
    op('(').str("storage").global("torch", type).str(key).str("cpu").int1(numel).op('t').op('Q');
    return *this;
  }
  std::vector<uint8_t> bytes() const { return to_bytes(s + "."); }
};

IValue run(const Pickle& p, UnpicklerHooks hooks = {}) { return Unpickler::unpickle(p.bytes(), "test.pkl", hooks); }

// load_storage that makes a storage 0, 1, 2, ... of the requested size in memory.
UnpicklerHooks counting_storage() {
  UnpicklerHooks hooks;
  hooks.load_storage = [](const std::string&, const std::string& type, int64_t numel, const std::string&) {
    Tensor t = empty({numel}, storage_dtype(type));
    if (t.dtype() == DType::Float32)
      for (int64_t i = 0; i < numel; ++i) t.data<float>()[i] = static_cast<float>(i);
    if (t.dtype() == DType::Int64)
      for (int64_t i = 0; i < numel; ++i) t.data<int64_t>()[i] = i;
    return t;
  };
  return hooks;
}

}  // namespace

TEST(Unpickler, ConvArchiveWeightsMatchWhatTorchWrote) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "conv.pt");
  IValue root = load_pickle(zip, "data.pkl");
  ASSERT_TRUE(root.isObject());
  EXPECT_EQ(root.toObject()->type_name, "__torch__.torch.nn.modules.conv.Conv2d");
  const Tensor weight = root.toObject()->get("weight").toTensor();
  const Tensor bias = root.toObject()->get("bias").toTensor();
  EXPECT_EQ(weight.sizes(), (IntList{4, 3, 3, 3}));
  EXPECT_EQ(max_abs_diff(weight, io::read_npy(torch_fixture_dir() + "conv_weight.npy")), 0.0);
  EXPECT_EQ(max_abs_diff(bias, io::read_npy(torch_fixture_dir() + "conv_bias.npy")), 0.0);
  EXPECT_GT(max_abs(weight), 0.0);
  EXPECT_TRUE(root.toObject()->get("training").toBool());
  // constants.pkl of a plain module is an empty tuple.
  IValue constants = load_pickle(zip, "constants.pkl", "constants/");
  ASSERT_TRUE(constants.isTuple());
  EXPECT_TRUE(constants.toTuple().empty());
}

TEST(Unpickler, AttributesOfEveryKindComeBackWithTheirValues) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "attrs.pt");
  IValue root = load_pickle(zip, "data.pkl");
  const Object& m = *root.toObject();
  EXPECT_EQ(m.type_name, "__torch__.Attrs");
  EXPECT_EQ(m.get("ints").toIntList(), (IntList{1, 2, 300, 70000, -5, int64_t{1} << 40}));
  EXPECT_EQ(m.get("floats").toDoubleList(), (std::vector<double>{0.5, -1.25}));
  ASSERT_EQ(m.get("flags").toList().size(), 2u);
  EXPECT_TRUE(m.get("flags").toList()[0].toBool());
  EXPECT_FALSE(m.get("flags").toList()[1].toBool());
  EXPECT_EQ(m.get("names").toList()[1].toStringRef(), "b");
  const Dict& table = *m.get("table").toDict();
  ASSERT_EQ(table.items.size(), 2u);
  EXPECT_EQ(table.items[0].first.toStringRef(), "x");
  EXPECT_EQ(table.items[1].second.toInt(), 2);
  ASSERT_TRUE(m.get("pair").isTuple());
  EXPECT_EQ(m.get("pair").toTuple()[0].toInt(), 3);
  EXPECT_EQ(m.get("pair").toTuple()[1].toStringRef(), "z");
  EXPECT_DOUBLE_EQ(m.get("scale").toDouble(), 0.1);
  EXPECT_TRUE(m.get("maybe").isNone());
  EXPECT_EQ(m.get("dev").toDevice(), Device::CPU);
  const Tensor idx = m.get("idx").toTensor();
  ASSERT_EQ(idx.dtype(), DType::Int64);
  EXPECT_EQ(idx.data<int64_t>()[2], 3);
  const Tensor mask = m.get("mask").toTensor();
  ASSERT_EQ(mask.dtype(), DType::Bool);
  EXPECT_TRUE(mask.data<bool>()[0]);
  EXPECT_FALSE(mask.data<bool>()[1]);

  // Views keep sharing the storage of the tensor they came from.
  const Tensor base = m.get("base").toTensor();
  const Tensor window = m.get("window").toTensor();
  const Tensor transposed = m.get("transposed").toTensor();
  EXPECT_EQ(window.storage(), base.storage());
  EXPECT_EQ(transposed.storage(), base.storage());
  EXPECT_EQ(window.storage_offset(), 8);
  EXPECT_EQ(window.strides(), (IntList{6, 1}));
  EXPECT_EQ(transposed.strides(), (IntList{1, 6}));
  EXPECT_EQ(max_abs_diff(window, io::read_npy(torch_fixture_dir() + "attrs_window.npy")), 0.0);
  EXPECT_EQ(max_abs_diff(transposed, io::read_npy(torch_fixture_dir() + "attrs_transposed.npy")), 0.0);
}

TEST(Unpickler, BigModuleWithLongMemoIndices) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "seq.pt");
  const std::vector<uint8_t> pkl = zip.read("data.pkl");
  ASSERT_NE(std::string(pkl.begin(), pkl.end()).find('r'), std::string::npos);  // LONG_BINPUT present
  IValue root = load_pickle(zip, "data.pkl");
  const Object& seq = *root.toObject();
  const Object& last = *seq.get("39").toObject();
  EXPECT_EQ(max_abs_diff(last.get("weight").toTensor(), io::read_npy(torch_fixture_dir() + "seq_39_weight.npy")), 0.0);
  // Every Linear got its own storages.
  EXPECT_NE(seq.get("0").toObject()->get("weight").toTensor().storage(), last.get("weight").toTensor().storage());
}

TEST(Unpickler, LiteInterpreterBytecodeParses) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "conv.ptl");
  IValue bytecode = load_pickle(zip, "bytecode.pkl", "constants/");
  ASSERT_TRUE(bytecode.isTuple());
  ASSERT_GE(bytecode.toTuple().size(), 2u);
  EXPECT_GE(bytecode.toTuple()[0].toInt(), 4);  // bytecode version
  const List& method = bytecode.toTuple()[1].toTuple();
  EXPECT_EQ(method[0].toStringRef(), "__torch__.torch.nn.modules.conv.Conv2d.forward");
  EXPECT_TRUE(load_pickle(zip, "data.pkl").isObject());
  for (const std::string& r : zip.records()) {
    if (r.size() > 10 && r.compare(r.size() - 10, 10, ".debug_pkl") == 0) {
      EXPECT_TRUE(load_pickle(zip, r).isTuple());
    }
  }
}

TEST(Unpickler, TruncatedPickleAtEveryCutThrowsError) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "attrs.pt");
  const std::vector<uint8_t> pkl = zip.read("data.pkl");
  for (size_t cut = 0; cut < pkl.size(); ++cut) {
    const std::string msg = error_of([&] { Unpickler(pkl.data(), cut, "attrs.pt: record 'data.pkl'", archive_hooks(zip)).parse(); });
    ASSERT_NE(msg.find("attrs.pt: record 'data.pkl' at offset"), std::string::npos) << "cut " << cut << ": " << msg;
  }
}

TEST(Unpickler, FlippedBytesEitherParseOrThrowError) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "attrs.pt");
  const std::vector<uint8_t> pkl = zip.read("data.pkl");
  std::mt19937 rng(99);
  int failures = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> b = pkl;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < flips; ++i) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    try {
      Unpickler::unpickle(b, "attrs.pt: record 'data.pkl'", archive_hooks(zip));
    } catch (const Error&) {
      ++failures;
    }
  }
  EXPECT_GT(failures, 1000);
}

TEST(Unpickler, UnknownOpcodeNamesOpcodeAndOffset) {
  const std::string msg = error_of([] { run(Pickle().int1(1).op('\xff')); });
  EXPECT_NE(msg.find("test.pkl at offset 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("opcode 0xff"), std::string::npos) << msg;
  // FRAME and SHORT_BINUNICODE belong to protocol 4, which TorchScript never writes.
  EXPECT_NE(error_of([] { run(Pickle().raw("\x8c\x01" "a")); }).find("opcode 0x8c"), std::string::npos);
}

TEST(Unpickler, OnlyProtocolTwoIsAccepted) {
  Pickle p;
  p.s = "\x80\x04N";
  EXPECT_NE(error_of([&] { run(p); }).find("protocol 4"), std::string::npos);
}

TEST(Unpickler, MemoIndexOutOfRangeIsAnError) {
  const std::string msg = error_of([] { run(Pickle().op('N').op('q').raw(std::string(1, '\0')).op('h').raw("\x05")); });
  EXPECT_NE(msg.find("memo index 5"), std::string::npos) << msg;
  const std::string long_msg = error_of([] { run(Pickle().op('j').raw("\xff\xff\xff\x7f")); });
  EXPECT_NE(long_msg.find("memo index 2147483647"), std::string::npos) << long_msg;
}

TEST(Unpickler, HugeDeclaredStringLengthIsTruncationNotAllocation) {
  const std::string msg = error_of([] { run(Pickle().op('X').raw("\xff\xff\xff\xff" "abc")); });
  EXPECT_NE(msg.find("truncated pickle"), std::string::npos) << msg;
}

TEST(Unpickler, UnknownGlobalNamesModuleAndName) {
  const std::string msg = error_of([] { run(Pickle().global("os", "system").str("rm").op('\x85').op('R')); });
  EXPECT_NE(msg.find("unknown GLOBAL 'os.system'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset 2"), std::string::npos) << msg;
}

TEST(Unpickler, StackUnderflowAndMissingMarkAreErrors) {
  EXPECT_NE(error_of([] { run(Pickle().op('a')); }).find("stack is empty"), std::string::npos);
  EXPECT_NE(error_of([] { run(Pickle().op('}').int1(1).int1(2).op('u')); }).find("without a preceding MARK"),
            std::string::npos);
  EXPECT_NE(error_of([] { run(Pickle().op('(').op('N').op('\x86')); }).find("needs 2 values"), std::string::npos);
  EXPECT_NE(error_of([] { run(Pickle().op('N').op('N')); }).find("2 values on the stack"), std::string::npos);
  EXPECT_NE(error_of([] { run(Pickle().op('(').op('N')); }).find("unclosed MARK"), std::string::npos);
  EXPECT_NE(error_of([] { Unpickler::unpickle(to_bytes("\x80\x02N"), "t"); }).find("without STOP"), std::string::npos);
}

TEST(Unpickler, Long1OfEightBytesOrFewerIsSignExtended) {
  EXPECT_EQ(run(Pickle().op('\x8a').raw(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\x7f", 9))).toInt(), INT64_MAX);
  EXPECT_EQ(run(Pickle().op('\x8a').raw(std::string("\x02\x00\xff", 3))).toInt(), -256);
  EXPECT_EQ(run(Pickle().op('\x8a').raw(std::string("\x00", 1))).toInt(), 0);
  EXPECT_NE(error_of([] { run(Pickle().op('\x8a').raw(std::string("\x09", 1) + std::string(9, '\1'))); })
                .find("does not fit in int64"),
            std::string::npos);
}

TEST(Unpickler, DeepNestingIsRefusedAndShallowNestingWorks) {
  auto nested = [](int n) {
    Pickle p;
    for (int i = 0; i < n; ++i) p.op(']');
    for (int i = 1; i < n; ++i) p.op('a');
    return p;
  };
  IValue ok = run(nested(100));
  int depth = 0;
  for (IValue v = ok; v.isList() && !v.toList().empty(); v = v.toList()[0]) ++depth;
  EXPECT_EQ(depth, 99);
  const std::string msg = error_of([&] { run(nested(100000)); });
  EXPECT_NE(msg.find("nest deeper than"), std::string::npos) << msg;
}

TEST(Unpickler, CyclesAreRefused) {
  // l = []; l.append(l)
  const std::string msg = error_of([] { run(Pickle().op(']').op('q').raw(std::string(1, '\0')).op('h').raw(std::string(1, '\0')).op('a')); });
  EXPECT_NE(msg.find("already inside another container"), std::string::npos) << msg;
  // a = []; b = [a]; a.append(b)
  const std::string msg2 = error_of([] {
    run(Pickle().op(']').op('q').raw(std::string(1, '\0')).op(']').op('h').raw(std::string(1, '\0')).op('a')
            .op('q').raw("\1").op('0').op('h').raw(std::string(1, '\0')).op('h').raw("\1").op('a'));
  });
  EXPECT_NE(msg2.find("already inside another container"), std::string::npos) << msg2;
}

TEST(Unpickler, DictsKeepInsertionOrderAndLastValueWins) {
  IValue d = run(Pickle().op('}').op('(').str("b").int1(1).str("a").int1(2).str("b").int1(3).op('u'));
  const Dict& dict = *d.toDict();
  ASSERT_EQ(dict.items.size(), 2u);
  EXPECT_EQ(dict.items[0].first.toStringRef(), "b");
  EXPECT_EQ(dict.items[0].second.toInt(), 3);
  // Keys TorchScript cannot have are refused rather than compared structurally.
  const std::string msg = error_of([] { run(Pickle().op('}').op(')').int1(1).op('s')); });
  EXPECT_NE(msg.find("dict keys of type"), std::string::npos) << msg;
}

TEST(Unpickler, ObjectsUseTheHooks) {
  // __torch__.M() with state {'x': 1}
  Pickle p;
  p.global("__torch__.foo", "M").op(')').op('\x81').op('}').op('(').str("x").int1(1).op('u').op('b');
  IValue v = run(p);
  EXPECT_EQ(v.toObject()->type_name, "__torch__.foo.M");
  EXPECT_EQ(v.toObject()->get("x").toInt(), 1);

  // A TorchBind-style class with a tuple state needs set_state.
  Pickle q;
  q.global("__torch__.torch.classes.xnnpack", "LinearOpContext").op(')').op('\x81').int1(7).op('N').op('\x86').op('b');
  EXPECT_NE(error_of([&] { run(q); }).find("set_state"), std::string::npos);
  UnpicklerHooks hooks;
  std::string made;
  hooks.make_object = [&](const std::string& name) {
    made = name;
    auto o = std::make_shared<Object>();
    o->type_name = name;
    return o;
  };
  hooks.set_state = [](const std::shared_ptr<Object>& o, IValue state) { o->set("state", state); };
  IValue w = run(q, hooks);
  EXPECT_EQ(made, "__torch__.torch.classes.xnnpack.LinearOpContext");
  EXPECT_EQ(w.toObject()->get("state").toTuple()[0].toInt(), 7);
}

TEST(Unpickler, TensorViewsAreBoundsChecked) {
  auto tensor = [](uint8_t numel, uint8_t offset, uint8_t size, uint8_t stride) {
    Pickle p;
    p.global("torch._utils", "_rebuild_tensor_v2").op('(').storage("FloatStorage", "0", numel).int1(offset);
    p.op('(').int1(size).op('t').op('(').int1(stride).op('t').op('\x89');
    p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
    return p;
  };
  Tensor t = run(tensor(8, 2, 3, 2), counting_storage()).toTensor();
  EXPECT_EQ(t.sizes(), IntList{3});
  EXPECT_EQ(t.data<float>()[0], 2.0f);
  EXPECT_EQ(t.strides(), IntList{2});
  EXPECT_EQ(t.contiguous().data<float>()[1], 4.0f);
  EXPECT_EQ(t.contiguous().data<float>()[2], 6.0f);
  EXPECT_NE(error_of([&] { run(tensor(8, 2, 4, 2), counting_storage()); }).find("reaches element 8"), std::string::npos);
  EXPECT_NE(error_of([&] { run(tensor(8, 9, 0, 1), counting_storage()); }).find("offset 9"), std::string::npos);
  EXPECT_NE(error_of([&] { run(tensor(8, 0, 1, 1)); }).find("no load_storage hook"), std::string::npos);
}

// Archives of PyTorch 1.3-1.5 (format versions 1 and 2): persistent ids carry a sixth element,
// the view metadata (issue 11: such a file failed with "BINPERSID expects ...").
TEST(Unpickler, VersionOnePersistentIdsWithViewMetadataLoad) {
  auto tensor = [](const std::function<void(Pickle&)>& view_metadata) {
    Pickle p;
    p.global("torch._utils", "_rebuild_tensor_v2").op('(');
    p.op('(').str("storage").global("torch", "FloatStorage").str("0").str("cpu").int1(8);
    view_metadata(p);
    p.op('t').op('Q').int1(0).op('(').int1(3).op('t').op('(').int1(1).op('t').op('\x89');
    p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
    return p;
  };
  Tensor whole = run(tensor([](Pickle& p) { p.op('N'); }), counting_storage()).toTensor();
  EXPECT_EQ(whole.sizes(), IntList{3});
  EXPECT_EQ(whole.data<float>()[2], 2.0f);
  // A view of 4 elements at offset 3 of the 8-element storage: the tensor starts at element 3.
  Tensor view = run(tensor([](Pickle& p) { p.op('(').str("v").int1(3).int1(4).op('t'); }), counting_storage()).toTensor();
  EXPECT_EQ(view.data<float>()[0], 3.0f);
  EXPECT_EQ(view.contiguous().data<float>()[2], 5.0f);
  EXPECT_NE(error_of([&] { run(tensor([](Pickle& p) { p.op('(').str("v").int1(6).int1(4).op('t'); }), counting_storage()); })
                .find("lies outside storage"),
            std::string::npos);
}

// Quantized tensors in their older forms (issue 11): per-channel scales and zero points as
// build_doublelist / build_intlist lists with the axis as a one-element list (PyTorch 1.5), and
// the 8-argument per-tensor form with a flat scale and zero point; each gives the values the
// current form gives, (q - zero_point) * scale.
TEST(Unpickler, QuantizedTensorsInOlderFormsDequantize) {
  auto qtensor = [](const std::function<void(Pickle&)>& quantizer, bool flat) {
    Pickle p;
    p.global("torch._utils", "_rebuild_qtensor").op('(').storage("QInt8Storage", "0", 4).int1(0);
    p.op('(').int1(2).int1(2).op('t').op('(').int1(2).int1(1).op('t');
    quantizer(p);
    if (!flat) p.op('\x89');
    p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
    return p;
  };
  auto list_of = [](Pickle& p, const char* builder, const std::function<void(Pickle&)>& items) {
    p.global("torch.jit._pickle", builder).op('(').op(']').op('(');
    items(p);
    p.op('e').op('t').op('R');
  };
  // Storage values 0, 1, 2, 3 as [[0, 1], [2, 3]]; channel 0: scale 0.5, zero 1; channel 1: 0.25, 0.
  const Tensor lists = run(qtensor([&](Pickle& p) {
                             p.op('(').global("torch", "per_channel_affine");
                             list_of(p, "build_doublelist", [](Pickle& q) { q.flt(0.5).flt(0.25); });
                             list_of(p, "build_intlist", [](Pickle& q) { q.int1(1).int1(0); });
                             list_of(p, "build_intlist", [](Pickle& q) { q.int1(0); });
                             p.op('t');
                           }, false),
                           counting_storage())
                           .toTensor();
  ASSERT_EQ(lists.sizes(), (IntList{2, 2}));
  EXPECT_EQ(lists.data<float>()[0], -0.5f);
  EXPECT_EQ(lists.data<float>()[1], 0.0f);
  EXPECT_EQ(lists.data<float>()[2], 0.5f);
  EXPECT_EQ(lists.data<float>()[3], 0.75f);
  // The flat 8-argument form: scale 0.5, zero point 2, then requires_grad and the hooks.
  const Tensor flat = run(qtensor([](Pickle& p) { p.flt(0.5).int1(2).op('\x89'); }, true), counting_storage()).toTensor();
  EXPECT_EQ(flat.data<float>()[0], -1.0f);
  EXPECT_EQ(flat.data<float>()[3], 0.5f);
  // A list of scales of the wrong length, and a non-positive scale, are errors naming the problem.
  const std::string short_list = error_of([&] {
    run(qtensor([&](Pickle& p) {
          p.op('(').global("torch", "per_channel_affine");
          list_of(p, "build_doublelist", [](Pickle& q) { q.flt(0.5); });
          list_of(p, "build_intlist", [](Pickle& q) { q.int1(1); });
          p.int1(0).op('t');
        }, false),
        counting_storage());
  });
  EXPECT_NE(short_list.find("2 channels need as many scales"), std::string::npos) << short_list;
  const std::string zero_scale =
      error_of([&] { run(qtensor([](Pickle& p) { p.flt(0.0).int1(2).op('\x89'); }, true), counting_storage()); });
  EXPECT_NE(zero_scale.find("is not positive"), std::string::npos) << zero_scale;
}

TEST(Unpickler, UnsupportedStorageTypeNamesTheType) {
  Pickle p;
  p.global("torch._utils", "_rebuild_tensor_v2").op('(').storage("ComplexFloatStorage", "0", 1).int1(0);
  p.op(')').op(')').op('\x89').global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
  const std::string msg = error_of([&] { run(p, counting_storage()); });
  EXPECT_NE(msg.find("torch.ComplexFloatStorage"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.pkl at offset"), std::string::npos) << msg;
}

// Traced models keep float64 constants (maxvit_t), and older files int32 or uint8 ones: they
// load as float32 and int64, the element count and any view over them unchanged.
TEST(Unpickler, NarrowAndWideStorageTypesConvert) {
  EXPECT_EQ(storage_format("DoubleStorage").dtype, DType::Float32);
  EXPECT_EQ(storage_format("DoubleStorage").stored_bytes, 8u);
  EXPECT_EQ(storage_format("HalfStorage").dtype, DType::Float32);
  EXPECT_EQ(storage_format("IntStorage").dtype, DType::Int64);
  EXPECT_EQ(storage_format("ByteStorage").dtype, DType::Int64);
  EXPECT_EQ(storage_format("FloatStorage").kind, StorageFormat::Kind::Same);
}

// The same 432 bytes read as the other storage types, against their bytes read by hand.
TEST(Unpickler, ConvertedStorageRecordsHoldTheirValues) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "conv.pt");
  const std::vector<uint8_t> bytes = zip.read("data/0");
  ASSERT_EQ(bytes.size(), 432u);
  const Tensor doubles = read_storage_record(zip, "data/0", "DoubleStorage", 54);
  const Tensor ints = read_storage_record(zip, "data/0", "IntStorage", 108);
  const Tensor halves = read_storage_record(zip, "data/0", "HalfStorage", 216);
  const Tensor bytes_as_ints = read_storage_record(zip, "data/0", "ByteStorage", 432);
  ASSERT_EQ(doubles.dtype(), DType::Float32);
  ASSERT_EQ(ints.dtype(), DType::Int64);
  for (int i = 0; i < 54; ++i) {
    double d;
    std::memcpy(&d, bytes.data() + 8 * i, 8);
    EXPECT_EQ(doubles.data<float>()[i], static_cast<float>(d));
  }
  for (int i = 0; i < 108; ++i) {
    int32_t v;
    std::memcpy(&v, bytes.data() + 4 * i, 4);
    EXPECT_EQ(ints.data<int64_t>()[i], v);
  }
  for (int i = 0; i < 432; ++i) EXPECT_EQ(bytes_as_ints.data<int64_t>()[i], bytes[i]);
  // Halves: 1.0 is 0x3c00, -2.0 0xc000, 2^-24 (the smallest subnormal) 0x0001.
  int checked = 0;
  for (int i = 0; i < 216; ++i) {
    uint16_t h;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    const float f = halves.data<float>()[i];
    if ((h & 0x7c00u) == 0x7c00u) continue;  // inf / NaN patterns
    const int exponent = (h >> 10) & 0x1f;
    const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(h & 0x3ffu), -24)
                                          : std::ldexp(static_cast<float>((h & 0x3ffu) | 0x400u), exponent - 25);
    EXPECT_EQ(f, (h & 0x8000u) ? -magnitude : magnitude) << "half 0x" << std::hex << h;
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(Unpickler, StorageRecordSizeMustMatchTheDeclaredCount) {
  TVK_NEED_TORCH_FIXTURES();
  ZipReader zip = ZipReader::open(torch_fixture_dir() + "conv.pt");
  // data/0 is the 4x3x3x3 weight: 108 floats.
  EXPECT_EQ(read_storage_record(zip, "data/0", "FloatStorage", 108).numel(), 108);
  const std::string msg = error_of([&] { read_storage_record(zip, "data/0", "FloatStorage", 1000); });
  EXPECT_NE(msg.find("record 'data/0' holds 432 bytes"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { read_storage_record(zip, "data/0", "LongStorage", int64_t{1} << 62); }).find("declares"),
            std::string::npos);
}
