package org.tvk;

import java.io.File;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;

/** Loads libtvk_jni once, with no JVM flags needed: from the system property
 *  {@code tvk.jni.library} or the environment variable {@code TVK_JNI_LIBRARY} if set; else
 *  beside tvk.jar (the build tree), or in the install prefix's library folder when the jar is
 *  in {@code PREFIX/share/java}; else by name from java.library.path (Android packs it in the
 *  APK). */
final class NativeLoader {
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) return;
    String explicit = System.getProperty("tvk.jni.library");
    if (explicit == null || explicit.isEmpty()) explicit = System.getenv("TVK_JNI_LIBRARY");
    if (explicit != null && !explicit.isEmpty()) {
      System.load(explicit);
      loaded = true;
      return;
    }
    List<File> tried = new ArrayList<>();
    for (File candidate : besideTheJar()) {
      tried.add(candidate);
      if (candidate.isFile()) {
        System.load(candidate.getAbsolutePath());
        loaded = true;
        return;
      }
    }
    try {
      System.loadLibrary("tvk_jni");
    } catch (UnsatisfiedLinkError e) {
      UnsatisfiedLinkError error = new UnsatisfiedLinkError(
          "libtvk_jni was not found: looked at " + tried + " and in java.library.path ("
          + System.getProperty("java.library.path") + "); set -Dtvk.jni.library=/path/to/"
          + System.mapLibraryName("tvk_jni") + " or TVK_JNI_LIBRARY");
      error.initCause(e);
      throw error;
    }
    loaded = true;
  }

  /** Where the library sits relative to the jar this class came from: the same folder (the
   *  build tree), and PREFIX/lib and PREFIX/lib/<multiarch> for a jar in PREFIX/share/java. */
  private static List<File> besideTheJar() {
    List<File> out = new ArrayList<>();
    File jar;
    try {
      jar = new File(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      return out;
    }
    File dir = jar.isFile() ? jar.getParentFile() : jar;
    if (dir == null) return out;
    String name = System.mapLibraryName("tvk_jni");
    out.add(new File(dir, name));
    File share = dir.getParentFile();
    File prefix = share == null ? null : share.getParentFile();
    if (prefix != null && "java".equals(dir.getName()) && "share".equals(share.getName())) {
      File lib = new File(prefix, "lib");
      out.add(new File(lib, name));
      File[] multiarch = lib.listFiles(File::isDirectory);
      if (multiarch != null)
        for (File d : multiarch) out.add(new File(d, name));
    }
    return out;
  }
}
