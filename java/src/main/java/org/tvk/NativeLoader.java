package org.tvk;

/** Loads libtvk_jni once: from the path in the system property {@code tvk.jni.library} if set
 *  (tests, desktop apps), else by name from java.library.path (Android packs it in the APK). */
final class NativeLoader {
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) return;
    String path = System.getProperty("tvk.jni.library");
    if (path != null && !path.isEmpty()) {
      System.load(path);
    } else {
      System.loadLibrary("tvk_jni");
    }
    loaded = true;
  }
}
