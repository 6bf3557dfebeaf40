import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;

import org.tvk.Device;
import org.tvk.IValue;
import org.tvk.Module;
import org.tvk.Tensor;
import org.tvk.Tvk;

/**
 * Runs a TorchScript image model from Java, on Vulkan when a device is there:
 *
 * <pre>java -cp tvk.jar:. Example MODEL.pt INPUT.bin [EXPECTED.bin]</pre>
 *
 * INPUT.bin holds a [1, 3, 224, 224] float32 image (little-endian, as numpy's tofile writes it).
 * Prints the five highest scores; given EXPECTED.bin (the model's output in PyTorch), also the
 * largest difference, and exits 1 when it is over 1e-3 of the largest score.
 */
public final class Example {
  private Example() {}

  static float[] readFloats(String path) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(Paths.get(path))).order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[bytes.remaining() / 4];
    bytes.asFloatBuffer().get(out);
    return out;
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: java -cp tvk.jar:. Example MODEL.pt INPUT.bin [EXPECTED.bin]");
      System.exit(2);
    }
    Device device = Tvk.isVulkanAvailable() ? Device.VULKAN : Device.CPU;
    try (Module module = Module.load(args[0], device)) {
      Tensor input = Tensor.fromBlob(readFloats(args[1]), new long[] {1, 3, 224, 224});
      float[] scores = module.forward(IValue.from(input)).toTensor().getDataAsFloatArray();
      System.out.println("ran on " + device + ", " + scores.length + " scores");
      boolean[] taken = new boolean[scores.length];
      for (int k = 0; k < Math.min(5, scores.length); ++k) {
        int best = -1;
        for (int i = 0; i < scores.length; ++i)
          if (!taken[i] && (best < 0 || scores[i] > scores[best])) best = i;
        taken[best] = true;
        System.out.printf("  class %d: %.4f%n", best, scores[best]);
      }
      if (args.length > 2) {
        float[] expected = readFloats(args[2]);
        float diff = 0, scale = 0;
        for (int i = 0; i < scores.length; ++i) {
          diff = Math.max(diff, Math.abs(scores[i] - expected[i]));
          scale = Math.max(scale, Math.abs(expected[i]));
        }
        System.out.printf("max |java - pytorch| = %.3g (largest score %.3g)%n", diff, scale);
        if (expected.length != scores.length || diff > 1e-3 * scale) System.exit(1);
      }
    }
  }
}
