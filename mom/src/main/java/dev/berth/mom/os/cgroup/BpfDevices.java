package dev.berth.mom.os.cgroup;

import dev.berth.mom.os.NativeLibrary;
import java.io.IOException;
import java.nio.file.Path;

/**
 * bpf(2) for cgroup v2's device rules, through {@link NativeLibrary}: Java cannot make the system
 * call, and cgroup v2 has no devices files to write instead.
 */
final class BpfDevices {
  private BpfDevices() {}

  /** Whether programs can be loaded: the library is. */
  static boolean available() {
    return NativeLibrary.loaded();
  }

  /**
   * Loads {@code program} ({@link DeviceProgram}) and attaches it to the cgroup v2 directory {@code
   * dir} after the programs already there (BPF_F_ALLOW_MULTI); it stays until the directory is
   * removed.
   *
   * @throws IOException if the kernel refuses, with its reason (and the verifier's log)
   */
  static void attach(Path dir, long[] program) throws IOException {
    if (!available()) {
      throw new IOException(
          "denying devices in cgroup v2 needs the mom's native library, which is not loaded");
    }
    attach(dir.toString(), program);
  }

  private static native void attach(String dir, long[] program) throws IOException;
}
