package dev.berth.daemon.image;

import dev.berth.core.ControlCharacters;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs squashfs-tools as the user: mksquashfs to write an image, unsquashfs to unpack one. Images
 * are lz4-compressed: for a Debian image mksquashfs took 1 s with lz4 against 12-24 s with gzip,
 * and unsquashfs half the time, for a third more space (docs/containers.md). They carry no extended
 * attributes (the staging tree's would be the host's, such as SELinux labels) and no owners but
 * root.
 */
final class SquashfsTools {
  /** The end of a tool's output kept for an error message. */
  private static final int OUTPUT_KEPT = 4096;

  private final Scratch scratch;

  SquashfsTools(Scratch scratch) {
    this.scratch = scratch;
  }

  /**
   * Writes the image {@code output} of the tree {@code source}, adding the pseudo files {@code
   * pseudo} (mksquashfs' {@code -p} definitions) and leaving out the paths listed in {@code
   * exclude} (null for none).
   */
  void squash(Path source, Path output, List<String> pseudo, Path exclude) throws IOException {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "mksquashfs",
                source.toString(),
                output.toString(),
                "-noappend",
                "-comp",
                "lz4",
                "-all-root",
                "-no-xattrs",
                "-no-progress",
                "-quiet"));
    for (String definition : pseudo) {
      argv.addAll(List.of("-p", definition));
    }
    if (exclude != null) {
      argv.addAll(List.of("-ef", exclude.toString()));
    }
    run(argv);
  }

  /** Unpacks {@code image} into the directory {@code destination}, which may exist empty. */
  void unsquash(Path image, Path destination) throws IOException {
    run(
        List.of(
            "unsquashfs",
            "-q",
            "-n",
            "-no-xattrs",
            "-d",
            destination.toString(),
            image.toString()));
  }

  private void run(List<String> argv) throws IOException {
    String program = argv.get(0);
    Process process;
    try {
      process =
          new ProcessBuilder(argv)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
    } catch (IOException e) {
      throw new IOException(
          "cannot run " + program + " (is squashfs-tools installed?): " + e.getMessage(), e);
    }
    scratch.running(process);
    try {
      String output = tail(process.getInputStream());
      int exit = process.waitFor();
      if (exit != 0) {
        throw new IOException(program + " failed (exit " + exit + "): " + output.strip());
      }
    } catch (InterruptedException e) {
      process.destroy();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(program + " stopped");
    } finally {
      scratch.running(null);
    }
  }

  /** Reads {@code in} to its end, keeping the last {@link #OUTPUT_KEPT} bytes. */
  private static String tail(InputStream in) throws IOException {
    byte[] kept = new byte[0];
    byte[] buffer = new byte[8192];
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      byte[] joined = new byte[kept.length + n];
      System.arraycopy(kept, 0, joined, 0, kept.length);
      System.arraycopy(buffer, 0, joined, kept.length, n);
      int from = Math.max(0, joined.length - OUTPUT_KEPT);
      kept = Arrays.copyOfRange(joined, from, joined.length);
    }
    return ControlCharacters.escape(new String(kept, StandardCharsets.UTF_8));
  }
}
