package org.tvk.example;

import android.app.Activity;
import android.graphics.Bitmap;
import android.graphics.BitmapFactory;
import android.os.Bundle;
import android.widget.TextView;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.tvk.Device;
import org.tvk.IValue;
import org.tvk.Module;
import org.tvk.Tensor;
import org.tvk.Tvk;

/** Classifies assets/image.jpg with assets/mobilenet2-vulkan.pt on Vulkan, as the seed's test app
 *  does, and shows the top class and the time forward took. */
public class MainActivity extends Activity {
  private static final float[] MEAN = {0.485f, 0.456f, 0.406f};
  private static final float[] STD = {0.229f, 0.224f, 0.225f};

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    TextView text = new TextView(this);
    setContentView(text);
    try {
      text.setText(classify());
    } catch (Exception e) {
      text.setText("error: " + e.getMessage());
    }
  }

  private String classify() throws IOException {
    Device device = Tvk.isVulkanAvailable() ? Device.VULKAN : Device.CPU;
    Bitmap bitmap;
    try (InputStream in = getAssets().open("image.jpg")) {
      bitmap = Bitmap.createScaledBitmap(BitmapFactory.decodeStream(in), 224, 224, true);
    }
    // NCHW float input, normalized as torchvision's ImageNet models expect.
    FloatBuffer buffer = Tensor.allocateFloatBuffer(1 * 3 * 224 * 224);
    int[] pixels = new int[224 * 224];
    bitmap.getPixels(pixels, 0, 224, 0, 0, 224, 224);
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < pixels.length; ++i) {
        int v = (pixels[i] >> (16 - 8 * c)) & 0xff;
        buffer.put(c * pixels.length + i, (v / 255.0f - MEAN[c]) / STD[c]);
      }
    }
    Tensor input = Tensor.fromBlob(buffer, new long[] {1, 3, 224, 224});
    try (Module module = Module.load(assetFile("mobilenet2-vulkan.pt"), device)) {
      long start = System.nanoTime();
      float[] scores = module.forward(IValue.from(input)).toTensor().getDataAsFloatArray();
      double ms = (System.nanoTime() - start) / 1e6;
      int best = 0;
      for (int i = 1; i < scores.length; ++i) if (scores[i] > scores[best]) best = i;
      return "device: " + device + "\ntop class: " + labels().get(best) + " (" + best + ")\nforward: "
          + String.format("%.1f ms", ms);
    }
  }

  /** Module.load reads files: copy the asset out of the APK once. */
  private String assetFile(String name) throws IOException {
    File file = new File(getFilesDir(), name);
    try (InputStream in = getAssets().open(name); OutputStream out = new FileOutputStream(file)) {
      byte[] chunk = new byte[1 << 16];
      for (int n; (n = in.read(chunk)) > 0; ) out.write(chunk, 0, n);
    }
    return file.getAbsolutePath();
  }

  private List<String> labels() throws IOException {
    List<String> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(getAssets().open("imagenet_classes.txt")))) {
      for (String line; (line = r.readLine()) != null; ) out.add(line);
    }
    return out;
  }
}
