package dev.berth.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real container images for the integration tests: lz4-compressed squashfs files, built on first
 * use and then cached for every later run on this machine.
 *
 * <ul>
 *   <li>{@link #openMpi()}: Debian bookworm (debootstrap {@code --variant=minbase}) with {@code
 *       openmpi-bin} and {@code libopenmpi3} from {@value #MIRROR}, the same Open MPI (4.1.4) as
 *       the host's, so that programs built with the host's {@code mpicc} run inside. About 190 MB
 *       unpacked, one to one and a half minutes to build. Its /etc/os-release is Debian's, which is
 *       the host's too.
 *   <li>{@link #tiny()}: busybox-static's {@code /bin/busybox} and a symbolic link for each of its
 *       applets (sh, cat, ls, id, mount, ...), built in under a second, for tests of container
 *       mechanics that need no MPI.
 * </ul>
 *
 * Both have an empty /dev, the mount points /proc, /sys, /tmp and an empty /workspace, an
 * /etc/hosts with the localhost lines (without it Open MPI asks DNS for localhost and may stall for
 * 5 s), an /etc/passwd with root, and the marker file {@value #MARKER} holding {@link
 * #OPENMPI_MARKER} or {@link #TINY_MARKER}: a process that reads the marker runs inside the image.
 *
 * <p>The cache is {@value #CACHE_DIR} (root's, mode 0755; the images are 0644, so any test user can
 * unpack them), one file {@code NAME-vVERSION.sqsh} per image, plus debootstrap's downloaded
 * packages in {@code debs/}. Bump {@link #OPENMPI_VERSION} or {@link #TINY_VERSION} when a recipe
 * changes, and the next run builds the new image under its new name. Building needs root and the
 * Debian packages debootstrap, busybox-static and squashfs-tools.
 */
final class TestImages {
  static final String CACHE_DIR = "/var/cache/berth-test-images";
  static final Path CACHE = Path.of(CACHE_DIR);

  /** Where the images keep their marker. */
  static final String MARKER = "/etc/berth-test-image";

  /** The marker's text in {@link #openMpi()} (the file ends with a newline). */
  static final String OPENMPI_MARKER = "berth-test-image openmpi bookworm";

  /** The marker's text in {@link #tiny()} (the file ends with a newline). */
  static final String TINY_MARKER = "berth-test-image tiny busybox";

  /** Bump when the Open MPI recipe changes. */
  static final String OPENMPI_VERSION = "1";

  /** Bump when the tiny recipe changes. */
  static final String TINY_VERSION = "1";

  /** The host's Debian mirror (/etc/apt/sources.list.d/debian.sources). */
  static final String MIRROR = "http://deb.debian.org/debian";

  /** Generous: debootstrap takes about a minute, longer on a loaded machine. */
  private static final Duration STEP_TIMEOUT = Duration.ofMinutes(20);

  private TestImages() {}

  /** The Debian bookworm image with Open MPI; see the class comment. */
  static Path openMpi() throws IOException {
    return image("openmpi-bookworm-v" + OPENMPI_VERSION, OPENMPI_MARKER, TestImages::debian);
  }

  /** The busybox image; see the class comment. */
  static Path tiny() throws IOException {
    return image("tiny-busybox-v" + TINY_VERSION, TINY_MARKER, TestImages::busybox);
  }

  /** Fills an empty root directory with the image's own files. */
  private interface Recipe {
    void fill(Path root) throws IOException;
  }

  /**
   * The cached image {@code name}, built first if it is missing. {@code synchronized} keeps this
   * JVM's threads apart; the file lock keeps other JVMs apart (a JVM cannot lock a region twice).
   */
  private static synchronized Path image(String name, String marker, Recipe recipe)
      throws IOException {
    Path image = CACHE.resolve(name + ".sqsh");
    // An image only ever gets this name complete (by rename), so no lock is needed to use it.
    if (Files.exists(image)) {
      return image;
    }
    Files.createDirectories(CACHE);
    Files.setPosixFilePermissions(CACHE, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (FileChannel lockFile =
        FileChannel.open(
            CACHE.resolve(name + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      lockFile.lock(); // held until the channel closes
      if (Files.exists(image)) {
        return image; // another JVM built it while this one waited
      }
      long start = System.nanoTime();
      Path root = CACHE.resolve(name + ".rootfs");
      Path partial = CACHE.resolve(name + ".sqsh.partial");
      // Leftovers of a build that was killed: with the lock held, nobody is working on them.
      unmountUnder(root);
      remove(root);
      Files.deleteIfExists(partial);
      Files.createDirectory(root);
      Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
      // A failed step leaves the tree for a look (debootstrap/debootstrap.log); the next build
      // removes it.
      recipe.fill(root);
      finish(root, marker);
      run(
          "mksquashfs",
          root.toString(),
          partial.toString(),
          "-noappend",
          "-comp",
          "lz4",
          "-no-progress");
      Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-r--r--"));
      // On disk before it gets its final name: a crash must not leave a cached empty file.
      try (FileChannel file = FileChannel.open(partial, StandardOpenOption.WRITE)) {
        file.force(true);
      }
      Files.move(partial, image, StandardCopyOption.ATOMIC_MOVE);
      remove(root);
      System.out.printf(
          "TestImages: built %s in %.1f s%n", image, (System.nanoTime() - start) / 1e9);
      return image;
    }
  }

  /** What both images have: the mount points, host names, marker and no device nodes. */
  private static void finish(Path root, String marker) throws IOException {
    // debootstrap leaves device nodes in /dev, which an unprivileged unsquashfs cannot create
    // (it fails with exit 2); a container gets its /dev at run time anyway.
    remove(root.resolve("dev"));
    directory(root.resolve("dev"), "rwxr-xr-x");
    directory(root.resolve("workspace"), "rwxr-xr-x");
    file(root.resolve("etc/hosts"), "127.0.0.1 localhost\n::1 localhost ip6-localhost\n");
    file(root.resolve(MARKER.substring(1)), marker + "\n");
  }

  private static void debian(Path root) throws IOException {
    Path debs = CACHE.resolve("debs");
    Files.createDirectories(debs);
    run(
        "debootstrap",
        "--variant=minbase",
        "--include=openmpi-bin,libopenmpi3",
        // Downloaded packages are kept here, so a rebuild does not fetch them again.
        "--cache-dir=" + debs,
        "bookworm",
        root.toString(),
        MIRROR);
    // No downloaded packages, no package lists (55 MB), as in Debian's own images; the empty
    // partial/ directories stay, as debootstrap made them.
    for (String dir : List.of("var/cache/apt/archives", "var/lib/apt/lists")) {
      try (Stream<Path> entries = Files.list(root.resolve(dir))) {
        for (Path entry : entries.toList()) {
          if (!entry.getFileName().toString().equals("partial")) {
            remove(entry);
          }
        }
      }
    }
  }

  private static void busybox(Path root) throws IOException {
    for (String dir : List.of("bin", "sbin", "usr/bin", "usr/sbin", "etc", "proc", "sys", "root")) {
      directory(root.resolve(dir), dir.equals("root") ? "rwx------" : "rwxr-xr-x");
    }
    directory(root.resolve("tmp"), "rwxr-xr-x");
    run("chmod", "1777", root.resolve("tmp").toString()); // Java cannot set the sticky bit
    Path busybox = root.resolve("bin/busybox");
    Files.copy(Path.of("/bin/busybox"), busybox);
    Files.setPosixFilePermissions(busybox, PosixFilePermissions.fromString("rwxr-xr-x"));
    // Each applet is a link to /bin/busybox, which picks the applet by the name it was run as.
    for (String applet : run(busybox.toString(), "--list-full").split("\n")) {
      Path link = root.resolve(applet.strip());
      if (!applet.isBlank() && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
        Files.createSymbolicLink(link, Path.of("/bin/busybox"));
      }
    }
    file(root.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    file(root.resolve("etc/group"), "root:x:0:\n");
  }

  private static void directory(Path dir, String mode) throws IOException {
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
  }

  private static void file(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
  }

  /**
   * Unmounts, deepest first, what a killed debootstrap left mounted in the tree (it mounts /proc
   * and /sys there while it installs packages).
   */
  private static void unmountUnder(Path root) throws IOException {
    List<String> mountPoints =
        Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
            .map(line -> line.split(" ")[4])
            .filter(point -> point.startsWith(root + "/"))
            .sorted(Comparator.reverseOrder())
            .toList();
    for (String point : mountPoints) {
      run("umount", "--lazy", point);
    }
  }

  /**
   * Removes a tree; {@code --one-file-system} leaves alone what a killed debootstrap may have left
   * mounted inside it (/proc, /sys), rather than descending into the host's.
   */
  private static void remove(Path path) throws IOException {
    run("rm", "-rf", "--one-file-system", path.toString());
  }

  /**
   * Runs a build step and returns its output (stdout and stderr); if it fails or times out, the
   * exception carries the end of that output.
   */
  private static String run(String... argv) throws IOException {
    Path log = Files.createTempFile("berth-test-image-", ".log");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(argv)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(new File("/dev/null"));
      // debootstrap needs chroot from /usr/sbin; C keeps the tools' messages plain.
      builder.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin");
      builder.environment().put("LC_ALL", "C");
      Process process = builder.start();
      boolean finished = process.waitFor(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (!finished) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
      }
      String output = new String(Files.readAllBytes(log), UTF_8);
      if (!finished || process.exitValue() != 0) {
        String end = output.substring(Math.max(0, output.length() - 6000));
        throw new IOException(
            String.join(" ", argv)
                + (finished ? " failed with exit " + process.exitValue() : " timed out")
                + ":\n"
                + end);
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted: " + String.join(" ", argv));
    } finally {
      Files.delete(log);
    }
  }
}
