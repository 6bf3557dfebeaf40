// Pickler: round trips through Unpickler, torch's encoding choices, and readers outside tvk
// (Python's pickle, torch.jit.load) accepting what it writes.
#include <map>

#include "io/npy.h"
#include "jit/serialization/pickler.h"
#include "jit/serialization/storage_record.h"
#include "jit/serialization/unpickler.h"
#include "jit/serialization/zip_reader.h"
#include "jit/serialization/zip_writer.h"
#include "support/file_bytes.h"
#include "support/torch_fixtures.h"

using namespace tvk;
using namespace tvk::jit;
using namespace tvk::testing_support;

namespace {

// Unpickles with storages served from what the pickler collected.
IValue round_trip(const IValue& v, Pickler* used = nullptr) {
  Pickler local;
  Pickler& p = used ? *used : local;
  const std::vector<uint8_t> bytes = p.pickle(v);
  std::map<std::string, Tensor> by_key;
  for (const auto& [key, t] : p.storages()) by_key[key] = t;
  UnpicklerHooks hooks;
  hooks.load_storage = [by_key](const std::string& key, const std::string& type, int64_t numel, const std::string&) {
    const Tensor& t = by_key.at(key);
    EXPECT_EQ(storage_dtype(type), t.dtype());
    EXPECT_EQ(numel, t.numel());
    return t.clone();  // a fresh storage, as a file load would give
  };
  return Unpickler::unpickle(bytes, "round-trip", hooks);
}

std::shared_ptr<Object> sample_module() {
  auto m = std::make_shared<Object>();
  m->type_name = "__torch__.Sample";
  Tensor base = tensor_from({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  m->set("training", IValue(true));
  m->set("base", IValue(base));
  m->set("window", IValue(base.as_strided({2, 2}, {4, 1}, 5)));
  m->set("transposed", IValue(base.as_strided({4, 3}, {1, 4}, 0)));
  Tensor idx = empty({2}, DType::Int64);
  idx.data<int64_t>()[0] = -7;
  idx.data<int64_t>()[1] = int64_t{1} << 50;
  m->set("idx", IValue(idx));
  m->set("ints", IValue(IntList{0, 255, 256, 65535, 65536, -1, INT32_MIN, INT64_MIN, INT64_MAX}));
  List floats;
  floats.emplace_back(0.1);
  floats.emplace_back(-2.5e300);
  m->set("floats", IValue::list(floats));
  List names;
  names.emplace_back("a");
  names.emplace_back("b\n\xc3\xa9");
  m->set("names", IValue::list(names));
  auto table = std::make_shared<Dict>();
  table->set(IValue("x"), IValue(1));
  table->set(IValue("y"), IValue(2));
  m->set("table", IValue(table));
  List pair;
  pair.emplace_back(3);
  pair.emplace_back("z");
  m->set("pair", IValue::tuple(pair));
  List four;
  for (int i = 0; i < 4; ++i) four.emplace_back(i);
  m->set("four", IValue::tuple(four));
  m->set("maybe", IValue());
  m->set("flag", IValue(false));
  m->set("dev", IValue(Device::CPU));
  auto child = std::make_shared<Object>();
  child->type_name = "__torch__.torch.nn.modules.linear.Linear";
  child->set("weight", IValue(rand({2, 2}, 3)));
  m->set("child", IValue(child));
  m->set("same_child", IValue(child));
  m->set("empty", IValue::list({}));
  return m;
}

}  // namespace

TEST(Pickler, RoundTripsEveryValueKind) {
  Pickler p;
  IValue back = round_trip(IValue(sample_module()), &p);
  const Object& m = *back.toObject();
  EXPECT_EQ(m.type_name, "__torch__.Sample");
  EXPECT_EQ(m.get("ints").toIntList(), (IntList{0, 255, 256, 65535, 65536, -1, INT32_MIN, INT64_MIN, INT64_MAX}));
  EXPECT_EQ(m.get("floats").toDoubleList(), (std::vector<double>{0.1, -2.5e300}));
  EXPECT_EQ(m.get("names").toList()[1].toStringRef(), "b\n\xc3\xa9");
  EXPECT_EQ(m.get("table").toDict()->items[1].first.toStringRef(), "y");
  EXPECT_EQ(m.get("pair").toTuple()[1].toStringRef(), "z");
  EXPECT_EQ(m.get("four").toTuple().size(), 4u);
  EXPECT_TRUE(m.get("maybe").isNone());
  EXPECT_FALSE(m.get("flag").toBool());
  EXPECT_TRUE(m.get("training").toBool());
  EXPECT_EQ(m.get("dev").toDevice(), Device::CPU);
  EXPECT_TRUE(m.get("empty").isList());
  EXPECT_EQ(m.get("idx").toTensor().data<int64_t>()[1], int64_t{1} << 50);
  // Views keep their geometry and share one storage; a shared object stays one object.
  const Tensor window = m.get("window").toTensor();
  EXPECT_EQ(window.storage(), m.get("base").toTensor().storage());
  EXPECT_EQ(window.storage_offset(), 5);
  EXPECT_EQ(window.contiguous().data<float>()[2], 9.0f);
  EXPECT_EQ(m.get("transposed").toTensor().strides(), (IntList{1, 4}));
  EXPECT_TRUE(m.get("child").is(m.get("same_child")));
  EXPECT_EQ(p.storages().size(), 3u);  // base (+ its views), idx, child weight
  EXPECT_EQ(p.storages()[0].first, "0");
}

TEST(Pickler, EncodesIntegersFloatsAndStringsAsTorchDoes) {
  auto bytes = [](const IValue& v) {
    std::vector<uint8_t> b = Pickler().pickle(v);
    return std::string(b.begin() + 2, b.end() - 1);  // without PROTO 2 and STOP
  };
  EXPECT_EQ(bytes(IValue(5)), std::string("K\x05", 2));
  EXPECT_EQ(bytes(IValue(300)), std::string("M\x2c\x01", 3));
  EXPECT_EQ(bytes(IValue(-5)), std::string("J\xfb\xff\xff\xff", 5));
  EXPECT_EQ(bytes(IValue(int64_t{1} << 40)), std::string("\x8a\x08\0\0\0\0\0\x01\0\0", 10));
  EXPECT_EQ(bytes(IValue(1.0)), std::string("G\x3f\xf0\0\0\0\0\0\0", 9));  // big-endian
  EXPECT_EQ(bytes(IValue("ab")), std::string("X\x02\0\0\0abq\0", 9));
  EXPECT_EQ(bytes(IValue(true)), "\x88");
  const std::vector<uint8_t> whole = Pickler().pickle(IValue());
  EXPECT_EQ(std::string(whole.begin(), whole.end()), "\x80\x02N.");
}

TEST(Pickler, MemoBeyond255UsesLongBinputAndBinget) {
  auto name = [](int i) {
    std::string s = "s";
    s += std::to_string(i);  // (not "s" + ...: GCC 12 warns falsely about that)
    return s;
  };
  List strings;
  for (int i = 0; i < 300; ++i) strings.emplace_back(name(i));
  for (int i = 0; i < 300; ++i) strings.emplace_back(name(i));  // memo hits
  const std::vector<uint8_t> b = Pickler().pickle(IValue::list(strings));
  const std::string s(b.begin(), b.end());
  EXPECT_NE(s.find(std::string("r\x2c\x01\0\0", 5)), std::string::npos);  // LONG_BINPUT 300
  EXPECT_NE(s.find('j'), std::string::npos);                              // LONG_BINGET
  IValue back = Unpickler::unpickle(b, "memo");
  ASSERT_EQ(back.toList().size(), 600u);
  EXPECT_EQ(back.toList()[599].toStringRef(), "s299");
}

TEST(Pickler, RefusesSelfContainingAndNativeObjects) {
  IValue l = IValue::list({});
  l.toListRef()->push_back(l);
  EXPECT_THROW(Pickler().pickle(l), Error);
  l.toListRef()->clear();  // break the cycle so it can be freed
  auto native = std::make_shared<Object>();
  native->type_name = "__torch__.torch.classes.test.Unregistered";  // no __getstate__ known
  native->payload = std::make_shared<CustomClassPayload>();
  EXPECT_THROW(Pickler().pickle(IValue(native)), Error);
  // A registered class name over a foreign payload is refused too, never misread.
  native->type_name = "__torch__.torch.classes.vulkan.Conv2dPackedContext";
  if (TVK_USE_VULKAN) {
    EXPECT_THROW(Pickler().pickle(IValue(native)), Error);
  }
}

TEST(Pickler, PythonPickleReadsWhatWeWrite) {
  TVK_NEED_TORCH_FIXTURES();
  const std::string dir = ::testing::TempDir() + "tvk_pickle_py/";
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  Pickler p;
  write_bytes(dir + "data.pkl", p.pickle(IValue(sample_module())));
  for (const auto& [key, t] : p.storages()) io::write_npy(dir + key + ".npy", t);
  const std::string script = R"PY(
import pickle, sys, collections, numpy as np
d = sys.argv[1]
class Obj:
    pass
def rebuild(storage, offset, size, stride, requires_grad, hooks):
    arr = storage
    return np.lib.stride_tricks.as_strided(arr[offset:], shape=size, strides=[s * arr.itemsize for s in stride])
class U(pickle.Unpickler):
    def find_class(self, module, name):
        if module.startswith('__torch__'):
            return type(name, (Obj,), {'qualified': module + '.' + name})
        table = {('torch._utils', '_rebuild_tensor_v2'): rebuild,
                 ('collections', 'OrderedDict'): collections.OrderedDict,
                 ('torch.jit._pickle', 'build_intlist'): lambda l: l,
                 ('torch.jit._pickle', 'build_doublelist'): lambda l: l,
                 ('torch.jit._pickle', 'build_tensorlist'): lambda l: l,
                 ('torch.jit._pickle', 'restore_type_tag'): lambda v, t: (v, t),
                 ('torch', 'device'): lambda s: ('device', s),
                 ('torch', 'FloatStorage'): 'FloatStorage', ('torch', 'LongStorage'): 'LongStorage'}
        return table[(module, name)]
    def persistent_load(self, pid):
        tag, kind, key, location, numel = pid
        assert tag == 'storage' and location == 'cpu'
        arr = np.load(d + key + '.npy')
        assert arr.size == numel
        return arr
m = U(open(d + 'data.pkl', 'rb')).load()
assert m.qualified == '__torch__.Sample'
assert m.ints == [0, 255, 256, 65535, 65536, -1, -2**31, -2**63, 2**63 - 1], m.ints
assert m.floats == [0.1, -2.5e300]
assert m.names == (['a', 'b\n\u00e9'], 'List[str]'), m.names
assert m.table == ({'x': 1, 'y': 2}, 'Dict[str, int]'), m.table
assert m.pair == (3, 'z') and m.four == (0, 1, 2, 3) and m.maybe is None and m.flag is False
assert m.dev == ('device', 'cpu')
assert (m.window == np.array([[5, 6], [9, 10]], np.float32)).all(), m.window
assert (m.transposed == np.arange(12, dtype=np.float32).reshape(3, 4).T).all()
assert list(m.idx) == [-7, 2**50]
assert m.child is m.same_child and m.child.qualified.endswith('linear.Linear')
print('python pickle read tvk output OK')
)PY";
  EXPECT_EQ(run_python(script, "pickle_check", dir), 0);
}

TEST(Pickler, TorchJitLoadAcceptsARewrittenArchive) {
  TVK_NEED_TORCH_FIXTURES();
  // conv.pt -> unpickle data.pkl -> pickle it again with fresh storages -> new archive.
  ZipReader src = ZipReader::open(torch_fixture_dir() + "conv.pt");
  UnpicklerHooks hooks;
  hooks.load_storage = [&src](const std::string& key, const std::string& type, int64_t numel, const std::string&) {
    return read_storage_record(src, "data/" + key, type, numel);
  };
  IValue root = Unpickler::unpickle(src.read("data.pkl"), "conv.pt data.pkl", hooks);
  const std::string path = ::testing::TempDir() + "tvk_rewritten.pt";
  {
    ZipWriter out(path, "tvk_rewritten");
    Pickler p([&out](const Tensor& storage) {
      static int next = 0;
      const std::string key = std::to_string(next++);
      out.add("data/" + key, storage.raw_data(), storage.nbytes());
      return key;
    });
    out.add("data.pkl", p.pickle(root));
    for (const std::string& r : src.records())
      if (r != "data.pkl" && r.rfind("data/", 0) != 0) out.add(r, src.read(r));
    out.finish();
  }
  const std::string script =
      "import torch, numpy as np, sys\n"
      "m = torch.jit.load(sys.argv[1])\n"
      "w = np.load(sys.argv[2] + 'conv_weight.npy')\n"
      "assert (m.weight.detach().numpy() == w).all()\n"
      "x = torch.ones(1, 3, 5, 5)\n"
      "assert m(x).shape == (1, 4, 3, 3)\n";
  EXPECT_EQ(run_python(script, "jit_load_check", path + " " + torch_fixture_dir()), 0);
}
