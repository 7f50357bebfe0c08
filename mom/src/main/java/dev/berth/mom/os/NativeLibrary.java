package dev.berth.mom.os;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The mom's small JNI library (mom/src/main/c/berth-native.c, built next to berth-starter): what
 * the kernel and the C library give that Java does not — the process behind a Unix socket
 * connection ({@link PeerCredentials}), in-process user and group lookups ({@link Nss}) and bpf(2),
 * which denies devices to cgroup v2 jobs ({@code cgroup.BpfDevices}), and removing the trees jobs
 * leave as their owners ({@link TreeRemover}).
 */
public final class NativeLibrary {
  /** Its file name, next to berth-starter. */
  public static final String FILE = "libberth-native.so";

  /**
   * A system property naming the library, loaded on first use when nothing loaded it before: for
   * processes that use the mom's classes without running a mom (the tests that remove job trees).
   */
  public static final String PROPERTY = "berth.native";

  private static volatile boolean loaded;

  private NativeLibrary() {}

  /** Loads the library once per JVM; later calls do nothing. */
  public static synchronized void load(Path library) {
    if (loaded) {
      return;
    }
    if (!Files.isReadable(library)) {
      throw new IllegalArgumentException(
          "the native library " + library + " is missing (build the mom module)");
    }
    System.load(library.toAbsolutePath().toString());
    loaded = true;
  }

  public static boolean loaded() {
    return loaded;
  }

  static void require() {
    String named = System.getProperty(PROPERTY);
    if (!loaded && named != null) {
      load(Path.of(named));
    }
    if (!loaded) {
      throw new IllegalStateException(
          "the mom's native library is not loaded (-D" + PROPERTY + "=PATH names it)");
    }
  }
}
