package dev.berth.daemon.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code berth image import, create, list, remove} as berth-alice, an unprivileged user, in a JVM
 * of her own, with the real mksquashfs and unsquashfs; the images are checked with {@code
 * unsquashfs -lln} and {@code -cat}. The daemon module runs no integration-test phase, so this is a
 * unit test kept to a few seconds. It needs root (to run as another user), the user berth-alice
 * (ops/test makes her) and squashfs-tools.
 */
class ImageImportTest {
  static final String USER = "berth-alice";

  static Path work;
  static Path data;
  static String classpath;

  /** Two gzip layers: a file, links, a whiteout, an opaque directory, hard links, a device. */
  static List<TestLayer> layers() {
    return List.of(
        new TestLayer()
            .dir("etc", 0755)
            .file("etc/os-release", "ID=berth-test\n")
            .file("etc/motd", "old motd\n")
            .file("opt/app/old.conf", "old")
            .file("usr/bin/tool", "#!/bin/sh\necho tool\n", 0755)
            .hardLink("usr/bin/tool2", "usr/bin/tool")
            .symlink("bin", "usr/bin")
            .file("usr/share/ca-certificates/F\u0151tan\u00fas\u00edtv\u00e1ny.crt", "cert")
            .dir("dev", 0755)
            .charDevice("dev/null", 1, 3)
            .fifo("run/initctl"),
        new TestLayer()
            .whiteout("etc", "motd")
            .opaque("opt/app")
            .file("opt/app/new.conf", "new")
            .symlink("etc/mtab", "/proc/self/mounts")
            .file("etc/os-release", "ID=berth-test\nVERSION=2\n")
            .hardLink("usr/bin/tool3", "usr/bin/tool"));
  }

  /** The paths both layered imports must give, mount points and config files included. */
  static final Set<String> LAYERED =
      new TreeSet<>(
          List.of(
              "/bin",
              "/dev",
              "/etc",
              "/etc/berth",
              "/etc/berth/environment",
              "/etc/berth/workdir",
              "/etc/hosts",
              "/etc/mtab",
              "/etc/os-release",
              "/etc/resolv.conf",
              "/opt",
              "/opt/app",
              "/opt/app/new.conf",
              "/proc",
              "/run",
              "/sys",
              "/tmp",
              "/usr",
              "/usr/bin",
              "/usr/bin/tool",
              "/usr/bin/tool2",
              "/usr/bin/tool3",
              "/usr/share",
              "/usr/share/ca-certificates",
              "/usr/share/ca-certificates/F\u0151tan\u00fas\u00edtv\u00e1ny.crt",
              "/workspace"));

  @BeforeAll
  static void setUp() throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "runs berth image as berth-alice, which needs root");
    assumeTrue(
        run(List.of("id", "-u", USER)).exit == 0, "no user " + USER + " (ops/test makes it)");
    for (String tool : List.of("mksquashfs", "unsquashfs")) {
      assumeTrue(
          run(List.of("sh", "-c", "command -v " + tool)).exit == 0,
          tool + " is not installed (apt-get install squashfs-tools)");
    }
    work = Files.createTempDirectory("berth-image-test-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path home = Files.createDirectory(work.resolve("alice"));
    Files.setOwner(home, owner(USER));
    data = home.resolve("data");
    classpath = readableClasspath(Files.createDirectory(work.resolve("classpath")));
  }

  @AfterAll
  static void tearDown() throws IOException {
    if (work != null) {
      Trees.delete(work);
    }
  }

  /**
   * This JVM's classpath where berth-alice can read it: Maven's repository lives in root's home, so
   * its jars are linked (or copied) into a directory of the test's.
   */
  static String readableClasspath(Path dir) throws IOException {
    List<String> entries = new ArrayList<>();
    int n = 0;
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path from = Path.of(entry);
      if (Files.isDirectory(from)) {
        Path to = dir.resolve("classes" + n++);
        try (Stream<Path> walk = Files.walk(from)) {
          for (Path p : walk.toList()) {
            Path target = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(target);
            } else {
              Files.copy(p, target);
            }
          }
        }
        entries.add(to.toString());
      } else if (Files.isRegularFile(from)) {
        Path to = dir.resolve(n++ + "-" + from.getFileName());
        try {
          Files.createLink(to, from);
        } catch (IOException e) {
          Files.copy(from, to);
        }
        entries.add(to.toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  record Result(int exit, String out, String err) {}

  static Result run(List<String> argv) throws IOException, InterruptedException {
    Path out = Files.createTempFile("berth-image-out", "");
    Path err = Files.createTempFile("berth-image-err", "");
    try {
      Process p =
          new ProcessBuilder(argv)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new AssertionError(argv + " did not end");
      }
      return new Result(
          p.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.delete(out);
      Files.delete(err);
    }
  }

  /** The berth command as berth-alice, with nothing of root's environment. */
  static List<String> berthArgv(String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                USER,
                "--",
                "env",
                "-i",
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "HOME=" + work.resolve("alice"),
                "LC_ALL=C.UTF-8",
                "BERTH_DATA_PATH=" + data,
                ProcessHandle.current().info().command().orElse("java"),
                "-XX:-UsePerfData",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classpath,
                "dev.berth.daemon.Berth",
                "image"));
    argv.addAll(List.of(args));
    return argv;
  }

  static Result berth(String... args) throws IOException, InterruptedException {
    return run(berthArgv(args));
  }

  static Result ok(String... args) throws IOException, InterruptedException {
    Result r = berth(args);
    assertEquals(0, r.exit, String.join(" ", args) + ": " + r.err + r.out);
    return r;
  }

  static UserPrincipal owner(String user) throws IOException {
    return FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(user);
  }

  /** The paths in an image (from its root, "/..."), checking that root owns each. */
  static Set<String> listing(Path image) throws Exception {
    Result r = run(List.of("unsquashfs", "-lln", image.toString()));
    assertEquals(0, r.exit, r.err);
    Set<String> paths = new TreeSet<>();
    for (String line : r.out.split("\n")) {
      int at = line.indexOf(" squashfs-root");
      if (at < 0) {
        continue;
      }
      assertTrue(line.split("\\s+")[1].equals("0/0"), "owned by root: " + line);
      String path = line.substring(at + " squashfs-root".length()).replaceFirst(" -> .*", "");
      if (!path.isEmpty()) {
        paths.add(path);
      }
    }
    return paths;
  }

  static String cat(Path image, String path) throws Exception {
    Result r = run(List.of("unsquashfs", "-cat", image.toString(), path));
    assertEquals(0, r.exit, r.err);
    return r.out;
  }

  static void assertNoScratch() throws IOException {
    try (Stream<Path> walk = Files.walk(data)) {
      List<Path> left = walk.filter(p -> p.getFileName().toString().startsWith(".")).toList();
      assertEquals(List.of(), left, "staging trees and partial files are gone");
    }
  }

  /** Runs a berth image command that must succeed and prints how long it took, for the log. */
  static void timed(String what, String... args) throws Exception {
    long start = System.nanoTime();
    Result r = ok(args);
    System.out.printf(
        "%s: %.2f s with the JVM's start: %s", what, (System.nanoTime() - start) / 1e9, r.out);
  }

  @Test
  void importsCreatesListsAndRemovesAsAnUnprivilegedUser() throws Exception {
    Path oci = ImageLayouts.ociLayout(work.resolve("oci-layout"), layers());
    Path archive = ImageLayouts.dockerArchive(work.resolve("app.tar"), layers());

    timed("OCI layout import", "import", "oci:" + oci, "--name", "ocitest");
    Path image = data.resolve("images/ocitest.sqsh");
    assertEquals(owner(USER), Files.getOwner(image), "made by berth-alice");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data)));
    assertEquals(LAYERED, listing(image));
    assertEquals("ID=berth-test\nVERSION=2\n", cat(image, "etc/os-release"));
    assertEquals(
        "PATH=/usr/local/bin:/usr/bin:/bin\nGREETING=hello world\n",
        cat(image, "etc/berth/environment"));
    assertEquals("/srv/app\n", cat(image, "etc/berth/workdir"));
    assertEquals("", cat(image, "etc/hosts"));
    String detailed = run(List.of("unsquashfs", "-lln", image.toString())).out;
    assertTrue(detailed.contains("drwxrwxrwt 0/0"), "/tmp is sticky: " + detailed);
    assertTrue(detailed.contains("squashfs-root/etc/mtab -> /proc/self/mounts"), detailed);
    assertTrue(detailed.contains("squashfs-root/bin -> usr/bin"), detailed);

    timed("docker-save archive import", "import", archive.toString());
    assertEquals(LAYERED, listing(data.resolve("images/app.sqsh")));
    assertEquals("new", cat(data.resolve("images/app.sqsh"), "opt/app/new.conf"));

    Path rootfs = Files.createDirectories(work.resolve("rootfs"));
    Files.createDirectories(rootfs.resolve("usr/bin"));
    Files.writeString(rootfs.resolve("usr/bin/hello"), "hi\n");
    Files.createDirectories(rootfs.resolve("dev"));
    Files.writeString(rootfs.resolve("dev/stray"), "");
    assertEquals(0, run(List.of("mkfifo", rootfs.resolve("fifo").toString())).exit);
    Result dir = berth("import", "dir:" + rootfs);
    assertEquals(0, dir.exit, dir.err);
    assertTrue(dir.err.contains("left out 2 device nodes, FIFOs, sockets"), dir.err);
    assertEquals(
        new TreeSet<>(
            List.of(
                "/dev",
                "/etc",
                "/etc/hosts",
                "/etc/resolv.conf",
                "/proc",
                "/run",
                "/sys",
                "/tmp",
                "/usr",
                "/usr/bin",
                "/usr/bin/hello",
                "/workspace")),
        listing(data.resolve("images/rootfs.sqsh")));

    Result exists = berth("import", "oci:" + oci, "--name", "ocitest");
    assertEquals(1, exists.exit);
    assertTrue(
        exists.err.contains("ocitest.sqsh exists; remove it first, or give --force"), exists.err);

    Path box = Path.of(ok("create", "ocitest", "--name", "box").out.strip());
    assertEquals(data.resolve("containers/box"), box);
    assertEquals(owner(USER), Files.getOwner(box.resolve("usr/bin/tool")), "a rootfs of her own");
    assertTrue(Files.isSameFile(box.resolve("usr/bin/tool"), box.resolve("usr/bin/tool2")));
    assertTrue(Files.isSameFile(box.resolve("usr/bin/tool"), box.resolve("usr/bin/tool3")));
    assertEquals(1, berth("create", image.toString(), "--name", "box").exit, "box exists");

    String table = ok("list").out;
    assertTrue(table.startsWith("NAME "), table);
    for (String line : List.of("app ", "ocitest ", "rootfs ", "box ")) {
      assertTrue(table.contains("\n" + line), line + " in " + table);
    }
    String json = ok("list", "--json").out;
    assertTrue(json.contains("\"name\":\"box\""), json);
    assertTrue(json.contains("\"path\":\"" + image + "\""), json);

    assertTrue(ok("remove", "ocitest", "box").out.contains("removed container " + box));
    assertFalse(Files.exists(image));
    assertFalse(Files.exists(box));
    Result refused = berth("remove", "../alice", "app.sqsh", "missing");
    assertEquals(1, refused.exit);
    assertTrue(
        refused.err.contains("'../alice': names with / or a leading . refused"), refused.err);
    assertTrue(refused.err.contains("no image or container named missing"), refused.err);
    assertFalse(Files.exists(data.resolve("images/app.sqsh")), "the good name was removed");
    assertNoScratch();
  }

  @Test
  void aLayerThatReachesOutFailsAndLeavesNothingBehind() throws Exception {
    Path outside = Files.createDirectory(work.resolve("outside"));
    Files.setOwner(outside, owner(USER)); // a directory she could write to herself
    Path evil =
        ImageLayouts.ociLayout(
            work.resolve("evil"),
            List.of(
                new TestLayer().symlink("etc", outside.toString()),
                new TestLayer().file("etc/pwned", "x")));
    Result r = berth("import", "oci:" + evil);
    assertNotEquals(0, r.exit);
    assertTrue(
        r.err.contains("'etc/pwned': 'etc/pwned' lies under 'etc', which is a symbolic link"),
        r.err);
    try (Stream<Path> list = Files.list(outside)) {
      assertEquals(0, list.count());
    }
    assertFalse(Files.exists(data.resolve("images/evil.sqsh")));
    assertNoScratch();
  }

  @Test
  void aStoppedImportLeavesNothingBehind() throws Exception {
    // One layer of a 512 MiB file of zeros: a small blob that takes a while to unpack.
    Path oci = Files.createDirectory(work.resolve("big"));
    Files.createDirectories(oci.resolve("blobs/sha256"));
    Path layer = oci.resolve("layer");
    try (OutputStream file = Files.newOutputStream(layer);
        GZIPOutputStream gz =
            new GZIPOutputStream(file, 1 << 16) {
              {
                def.setLevel(Deflater.BEST_SPEED);
              }
            };
        TarArchiveOutputStream tar = new TarArchiveOutputStream(gz)) {
      TarArchiveEntry e = new TarArchiveEntry("zeros");
      e.setSize(512L << 20);
      tar.putArchiveEntry(e);
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i < 512; i++) {
        tar.write(zeros);
      }
      tar.closeArchiveEntry();
    }
    byte[] blob = Files.readAllBytes(layer);
    Files.delete(layer);
    Digest digest = ImageLayouts.blob(oci, blob);
    String config = "{\"config\":{}}";
    Digest configDigest = ImageLayouts.blob(oci, config.getBytes(StandardCharsets.UTF_8));
    byte[] manifest =
        ("{\"schemaVersion\":2,\"config\":"
                + ImageLayouts.descriptor(
                    "application/vnd.oci.image.config.v1+json", configDigest, config.length())
                + ",\"layers\":["
                + ImageLayouts.descriptor(
                    "application/vnd.oci.image.layer.v1.tar+gzip", digest, blob.length)
                + "]}")
            .getBytes(StandardCharsets.UTF_8);
    Files.writeString(oci.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    Files.writeString(
        oci.resolve("index.json"),
        "{\"schemaVersion\":2,\"manifests\":["
            + ImageLayouts.descriptor(
                "application/vnd.oci.image.manifest.v1+json",
                ImageLayouts.blob(oci, manifest),
                manifest.length)
            + "]}");

    // The data directory, hers, to be watched for the staging directory.
    assertEquals(
        0,
        run(List.of("runuser", "-u", USER, "--", "mkdir", "-p", "-m", "700", data.toString()))
            .exit);
    try (WatchService watch = FileSystems.getDefault().newWatchService()) {
      data.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
      Process importing =
          new ProcessBuilder(berthArgv("import", "oci:" + oci))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      boolean staged = false;
      while (!staged) {
        WatchKey key = watch.poll(60, TimeUnit.SECONDS);
        assertTrue(key != null, "the import made no staging directory");
        staged =
            key.pollEvents().stream().anyMatch(e -> e.context().toString().startsWith(".import-"));
        key.reset();
      }
      // The JVM itself, not runuser, which does not pass signals on.
      ProcessHandle java =
          importing
              .descendants()
              .filter(p -> p.info().command().orElse("").endsWith("java"))
              .findFirst()
              .orElseThrow();
      java.destroy(); // SIGTERM, as kill sends
      assertTrue(importing.waitFor(60, TimeUnit.SECONDS));
      assertNotEquals(0, importing.exitValue(), "stopped before it ended");
    }
    assertFalse(Files.exists(data.resolve("images/big.sqsh")));
    assertNoScratch();
  }
}
