package org.tvk;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.BeforeClass;
import org.junit.Test;

/** The Java API on lavapipe, against torch's and the C++ API's outputs (tests/java/make_fixtures.py). */
public class ModuleTest {
  private static String dir;

  @BeforeClass
  public static void fixtures() {
    dir = System.getProperty("tvk.test.dir");
    if (dir == null) throw new IllegalStateException("set -Dtvk.test.dir to the fixtures folder");
  }

  private static float[] readFloats(String name) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Paths.get(dir, name))).order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[b.remaining() / 4];
    b.asFloatBuffer().get(out);
    return out;
  }

  private static double maxRelativeDifference(float[] a, float[] b) {
    assertEquals(a.length, b.length);
    double worst = 0, scale = 0;
    for (int i = 0; i < a.length; ++i) {
      worst = Math.max(worst, Math.abs(a[i] - b[i]));
      scale = Math.max(scale, Math.abs(b[i]));
    }
    return worst / scale;
  }

  /** The seed's Android snippet, as written there, on a Vulkan-optimized mobilenet_v2. */
  private static float[] seedSnippet(Module module) throws IOException {
    FloatBuffer buffer = Tensor.allocateFloatBuffer(1 * 3 * 224 * 224);
    buffer.put(readFloats("x.bin"));
    Tensor inputTensor = Tensor.fromBlob(buffer, new long[] {1, 3, 224, 224});
    Tensor outputTensor = module.forward(IValue.from(inputTensor)).toTensor();
    assertArrayEquals(new long[] {1, 1000}, outputTensor.shape());
    assertEquals(DType.FLOAT32, outputTensor.dtype());
    return outputTensor.getDataAsFloatArray();
  }

  @Test
  public void vulkanIsAvailable() {
    assertTrue(Tvk.isVulkanAvailable());
    assertFalse(Tvk.version().isEmpty());
  }

  @Test
  public void tuningModeIsALoadOptionAndAModuleSetting() throws IOException {
    // ON (which writes the device's table) is tested in C++ and through `tvk tune`; here the
    // mode reaches the module. OFF runs the rules' kernels, which `tvk run` ran with an empty table.
    String path = Paths.get(dir, "mobilenet2-vulkan.pt").toString();
    try (Module plain = Module.load(path, Device.VULKAN)) {
      assertNull(plain.tuning());
    }
    try (Module module = Module.load(path, Device.VULKAN, Tuning.OFF)) {
      assertEquals(Tuning.OFF, module.tuning());
      assertArrayEquals(readFloats("y_cpp.bin"), seedSnippet(module), 0.0f);
      module.setTuning(Tuning.CACHED);
      assertEquals(Tuning.CACHED, module.tuning());
      assertTrue(maxRelativeDifference(seedSnippet(module), readFloats("y_torch.bin")) <= 1e-4);
      assertThrows(IllegalArgumentException.class, () -> module.setTuning(null));
    }
  }

  @Test
  public void seedSnippetGivesWhatTheCppApiGives() throws IOException {
    try (Module module = Module.load(Paths.get(dir, "mobilenet2-vulkan.pt").toString(), Device.VULKAN)) {
      float[] out = seedSnippet(module);
      // The same library on the same input: bit for bit what `tvk run` (the C++ API) wrote.
      assertArrayEquals(readFloats("y_cpp.bin"), out, 0.0f);
      assertTrue(maxRelativeDifference(out, readFloats("y_torch.bin")) <= 1e-4);
    }
  }

  @Test
  public void unoptimizedModelOnVulkanAndOnTheCpu() throws IOException {
    for (Device device : Device.values()) {
      try (Module module = Module.load(Paths.get(dir, "mobilenet2.pt").toString(), device)) {
        double rel = maxRelativeDifference(seedSnippet(module), readFloats("y_torch.bin"));
        assertTrue(device + ": relative difference " + rel, rel <= 1e-4);
      }
    }
  }

  @Test
  public void everyKindOfValueRoundTrips() {
    try (Module module = Module.load(Paths.get(dir, "values.pt").toString(), Device.VULKAN)) {
      Map<String, IValue> dict = new LinkedHashMap<>();
      dict.put("a", IValue.from(Tensor.fromBlob(new float[] {1, 2}, new long[] {2})));
      IValue out = module.forward(
          IValue.from(Tensor.fromBlob(new float[] {1, 2, 3, 4, 5, 6}, new long[] {2, 3})), IValue.from(41L),
          IValue.from(1.25), IValue.from(true), IValue.from("tvk"),
          IValue.listFrom(Tensor.fromBlob(new float[] {0.5f}, new long[] {1})), IValue.dictStringKeyFrom(dict));
      IValue[] t = out.toTuple();
      assertEquals(7, t.length);
      assertArrayEquals(new long[] {2, 3}, t[0].toTensor().shape());
      assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, t[0].toTensor().getDataAsFloatArray(), 0f);
      assertEquals(42L, t[1].toLong());
      assertEquals(2.5, t[2].toDouble(), 0);
      assertFalse(t[3].toBool());
      assertEquals("tvk!", t[4].toStr());
      assertArrayEquals(new float[] {1.5f}, t[5].toTensorList()[0].getDataAsFloatArray(), 0f);
      assertArrayEquals(new float[] {3, 6}, t[6].toDictStringKey().get("a").toTensor().getDataAsFloatArray(), 0f);

      Tensor ints = module.runMethod("ints", IValue.from(Tensor.fromBlob(new long[] {1, -2, 3}, new long[] {3}))).toTensor();
      assertEquals(DType.INT64, ints.dtype());
      assertArrayEquals(new long[] {1, 3}, ints.shape());
      assertArrayEquals(new long[] {1, -2, 3}, ints.getDataAsLongArray());
      Tensor mask = module.runMethod("mask", IValue.from(Tensor.fromBlob(new boolean[] {false, true}, new long[] {2}))).toTensor();
      assertEquals(DType.BOOL, mask.dtype());
      assertArrayEquals(new long[] {2, 1}, mask.shape());
      assertArrayEquals(new boolean[] {false, true}, mask.getDataAsBooleanArray());

      Map<Long, IValue> longKeys = new LinkedHashMap<>();
      longKeys.put(3L, IValue.from(1.0));
      Map<Long, IValue> back = module.runMethod("long_keys", IValue.dictLongKeyFrom(longKeys)).toDictLongKey();
      assertEquals(1.5, back.get(30L).toDouble(), 0);
      assertTrue(module.runMethod("maybe", IValue.optionalNull()).isNull());
      assertArrayEquals(new float[] {0, 2},
          module.runMethod("maybe", IValue.from(Tensor.fromBlob(new float[] {-1, 2}, new long[] {2}))).toTensor()
              .getDataAsFloatArray(), 0f);
    }
  }

  @Test
  public void nativeErrorsAreExceptionsAndTheModuleStaysUsable() throws IOException {
    try {
      Module.load(Paths.get(dir, "missing.pt").toString(), Device.VULKAN);
      fail("loading a missing file must throw");
    } catch (TvkException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("missing.pt"));
    }
    try (Module module = Module.load(Paths.get(dir, "mobilenet2-vulkan.pt").toString(), Device.VULKAN)) {
      try {
        module.forward(IValue.from(Tensor.fromBlob(new float[8], new long[] {2, 4})));
        fail("a wrong input shape must throw");
      } catch (TvkException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("[2, 4]"));
      }
      try {
        module.runMethod("no_such_method");
        fail("an unknown method must throw");
      } catch (TvkException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("no_such_method"));
      }
      assertArrayEquals(readFloats("y_cpp.bin"), seedSnippet(module), 0.0f);  // still usable
      module.destroy();
      try {
        module.forward(IValue.from(Tensor.fromBlob(new float[1], new long[] {1})));
        fail("a destroyed module must throw");
      } catch (IllegalStateException expected) {
      }
      module.destroy();  // twice is harmless
    }
  }

  // Hostile code (issue 49): loops stop at the step and time limits, and calls nested too deep
  // for the stack stop cleanly on a Java thread with a 256 KiB stack, as on any other thread.
  @Test
  public void hostileCodeStopsAtItsLimitsOnSmallJavaStacks() throws Exception {
    try (Module spin = Module.load(Paths.get(dir, "spin.pt").toString(), Device.CPU, new Limits().withMaxSteps(100000))) {
      assertEquals(100, spin.forward(IValue.from(10L)).toLong());
      try {
        spin.forward(IValue.from(100000L));
        fail("a loop past the step limit must throw");
      } catch (TvkException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("100000 steps"));
      }
      spin.setLimits(new Limits().withTimeout(0.2).withMaxSteps(Long.MAX_VALUE));
      try {
        spin.forward(IValue.from(100000L));
        fail("a loop past the time limit must throw");
      } catch (TvkException e) {
        assertTrue(e.getMessage(), e.getMessage().contains("time limit"));
      }
      assertEquals(100, spin.forward(IValue.from(10L)).toLong());
    }
    final String[] message = {null};
    Thread small = new Thread(null, () -> {
      try (Module deep = Module.load(Paths.get(dir, "deep_calls.pt").toString(), Device.CPU)) {
        deep.forward();
        message[0] = "returned";
      } catch (TvkException e) {
        message[0] = e.getMessage();
      }
    }, "small-stack", 256 * 1024);
    small.start();
    small.join();
    assertTrue(message[0], message[0] != null && message[0].contains("nests too deeply"));
  }

  // Vulkan tensors count against the device-memory limit (issue 49): 4 MB of weights do not fit in
  // 1 MiB, and fit in 64 MiB, as a load option and as a module's setting.
  @Test
  public void deviceMemoryLimitIsALoadOptionAndAModuleSetting() {
    if (!Tvk.isVulkanAvailable()) return;
    String wide = Paths.get(dir, "wide.pt").toString();
    try (Module m = Module.load(wide, Device.VULKAN, new Limits().withMaxDeviceMemory(1 << 20))) {
      m.forward(IValue.from(Tensor.fromBlob(new float[1024], new long[] {1, 1024})));
      fail("4 MB of weights must not fit in 1 MiB of device memory");
    } catch (TvkException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("device memory"));
    }
    try (Module m = Module.load(wide, Device.VULKAN, new Limits().withMaxDeviceMemory(64L << 20))) {
      assertArrayEquals(new long[] {2, 1024},
                        m.forward(IValue.from(Tensor.fromBlob(new float[2048], new long[] {2, 1024}))).toTensor().shape());
      m.setLimits(new Limits().withMaxDeviceMemory(64L << 20));
      assertArrayEquals(new long[] {3, 1024},
                        m.forward(IValue.from(Tensor.fromBlob(new float[3072], new long[] {3, 1024}))).toTensor().shape());
    }
    try {
      new Limits().withMaxDeviceMemory(-1);
      fail("a negative limit must throw");
    } catch (IllegalArgumentException expected) {
    }
  }

  @Test
  public void extraFilesAreReadIntoTheMap() {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("meta.json", "");
    extra.put("note.txt", "");
    extra.put("absent.txt", "unchanged");
    try (Module module = Module.load(Paths.get(dir, "values.pt").toString(), extra, Device.VULKAN)) {
      assertEquals("{\"labels\": [\"cat\", \"dog\"]}", extra.get("meta.json"));
      assertEquals("caf\u00e9 \u2713", extra.get("note.txt"));
      assertEquals("unchanged", extra.get("absent.txt"));
      // The module works as one loaded without the map.
      IValue out = module.runMethod("maybe", IValue.optionalNull());
      assertTrue(out.isNull());
    }
    try {
      Module.load(Paths.get(dir, "missing.pt").toString(), extra, Device.CPU);
      fail("a missing file loaded");
    } catch (TvkException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("missing.pt"));
    }
  }

  @Test
  public void tensorsCheckTheirBuffers() {
    try {
      Tensor.fromBlob(Tensor.allocateFloatBuffer(5), new long[] {2, 3});
      fail("a buffer of the wrong size must be refused");
    } catch (IllegalArgumentException expected) {
    }
    try {
      Tensor.fromBlob(FloatBuffer.allocate(6), new long[] {2, 3});
      fail("a heap buffer must be refused");
    } catch (IllegalArgumentException expected) {
    }
    try {
      Tensor.fromBlob(new float[4], new long[] {Long.MAX_VALUE, 2});
      fail("an overflowing shape must be refused");
    } catch (ArithmeticException | IllegalArgumentException expected) {
    }
    try {
      IValue.from(1.0).toTensor();
      fail("a Double is not a Tensor");
    } catch (IllegalStateException expected) {
    }
    assertNull(IValue.optionalNull().data);
  }

  @Test
  public void forwardFromSeveralThreads() throws Exception {
    float[] expected = readFloats("y_cpp.bin");
    try (Module module = Module.load(Paths.get(dir, "mobilenet2-vulkan.pt").toString(), Device.VULKAN)) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<float[]>> results = new ArrayList<>();
      for (int i = 0; i < 8; ++i) results.add(pool.submit(() -> seedSnippet(module)));
      for (Future<float[]> r : results) assertArrayEquals(expected, r.get(), 0.0f);
      pool.shutdown();
    }
  }

  /** A float32 .npy array's shape and values (the fixtures torch 2.11 wrote: version 1, C order). */
  private static Tensor readNpy(String path) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Paths.get(path))).order(ByteOrder.LITTLE_ENDIAN);
    int headerLength = b.getShort(8) & 0xffff;
    String header = new String(b.array(), 10, headerLength, java.nio.charset.StandardCharsets.US_ASCII);
    assertTrue(header, header.contains("'descr': '<f4'") && header.contains("'fortran_order': False"));
    String dims = header.substring(header.indexOf("'shape': (") + 10, header.indexOf(")", header.indexOf("'shape': (")));
    List<Long> shape = new ArrayList<>();
    for (String d : dims.split(",")) if (!d.trim().isEmpty()) shape.add(Long.parseLong(d.trim()));
    b.position(10 + headerLength);
    float[] values = new float[b.remaining() / 4];
    b.asFloatBuffer().get(values);
    long[] sizes = new long[shape.size()];
    for (int i = 0; i < sizes.length; ++i) sizes[i] = shape.get(i);
    return Tensor.fromBlob(values, sizes);
  }

  /** A torch.export program (.pt2) loads as TorchScript files do and gives torch's outputs. */
  @Test
  public void exportedProgramRunsOnEachDevice() throws IOException {
    String exports = System.getProperty("tvk.export.dir");
    if (exports == null) throw new IllegalStateException("set -Dtvk.export.dir to tests/models/torch2/export");
    Tensor x = readNpy(Paths.get(exports, "cnn_bn_input0.npy").toString());
    float[] expected = readNpy(Paths.get(exports, "cnn_bn_expected0.npy").toString()).getDataAsFloatArray();
    for (Device device : Device.values()) {
      try (Module module = Module.load(Paths.get(exports, "cnn_bn.pt2").toString(), device)) {
        float[] out = module.forward(IValue.from(x)).toTensor().getDataAsFloatArray();
        double rel = maxRelativeDifference(out, expected);
        assertTrue(device + ": relative difference " + rel, rel <= 1e-5);
      }
    }
  }
}
