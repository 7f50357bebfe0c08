package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.mom.job.StarterStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * berth-starter entering container images for real, as the user nobody: a busybox image squashed
 * here, its cache, named and writable containers, and the cache's eviction against a starter that
 * holds an entry.
 */
@Tag("integration")
class ContainerEntryIT {
  private static final Path STARTER = Path.of("target/native/berth-starter").toAbsolutePath();
  private static final int NOBODY = 65534;
  private static final String MARKER = "busybox image for ContainerEntryIT";

  private static Path dir;
  private static Path image;
  private static LinuxLauncher launcher;
  private final List<JobProcess> started = new ArrayList<>();
  private final UserInfo nobody =
      new UserInfo("nobody", NOBODY, NOBODY, "/nonexistent", "/bin/sh", List.of());
  private ContainerCache cache;
  private Path ownCache;

  @BeforeAll
  static void image() throws Exception {
    assumeTrue(System.getProperty("user.name").equals("root"), "the starter runs as root");
    assertTrue(
        Files.isExecutable(Path.of("/usr/bin/mksquashfs")), "ops/test installs squashfs-tools");
    assertTrue(Files.isExecutable(Path.of("/bin/busybox")), "ops/test installs busybox-static");
    dir = Files.createTempDirectory(Path.of("/tmp"), "berth-entry-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path root = Files.createDirectories(dir.resolve("rootfs"));
    for (String d : List.of("bin", "dev", "proc", "sys", "tmp", "etc", "work")) {
      Files.createDirectories(root.resolve(d));
    }
    Files.copy(Path.of("/bin/busybox"), root.resolve("bin/busybox"));
    for (String applet : List.of("sh", "cat", "id", "touch", "ls", "sleep", "echo", "pwd")) {
      Files.createSymbolicLink(root.resolve("bin").resolve(applet), Path.of("busybox"));
    }
    Files.writeString(root.resolve("etc/marker"), MARKER + "\n");
    // as berth image import writes an image's own environment
    Files.createDirectories(root.resolve("etc/berth"));
    Files.writeString(root.resolve("etc/berth/environment"), "GREETING=image\nOTHER=image\n");
    image = dir.resolve("busybox.sqsh");
    Process p =
        new ProcessBuilder(
                "mksquashfs",
                root.toString(),
                image.toString(),
                "-noappend",
                "-comp",
                "lz4",
                "-all-root",
                "-quiet",
                "-no-progress")
            .inheritIO()
            .start();
    assertEquals(0, p.waitFor());
    Files.setPosixFilePermissions(image, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setAttribute(Files.createDirectories(dir.resolve("out")), "unix:uid", NOBODY);
    launcher = new LinuxLauncher(STARTER);
  }

  @AfterAll
  static void removeAll() throws IOException {
    if (dir != null) {
      JobFiles.removeTree(dir);
    }
  }

  @AfterEach
  void killLeftovers() throws Exception {
    for (JobProcess p : started) {
      ProcessSessions.kill(p.pid());
      p.exited().get(10, TimeUnit.SECONDS);
    }
  }

  private ContainerCache cache() throws IOException {
    if (cache == null) {
      cache = new ContainerCache(dir.resolve("cache-" + System.nanoTime()), 1L << 30);
      ownCache = cache.forOwner(nobody, NOBODY);
    }
    return cache;
  }

  private ContainerSpec container(Path named, boolean writable, boolean remapRoot)
      throws IOException {
    cache();
    Path scratch = Files.createDirectories(dir.resolve("scratch-" + System.nanoTime()));
    Files.setAttribute(scratch, "unix:uid", NOBODY);
    return new ContainerSpec(
        image, ownCache, named, scratch, "/work", writable, remapRoot, List.of(), List.of(),
        List.of(), null, List.of());
  }

  private JobProcess start(ContainerSpec container, String script, String name) throws IOException {
    return start(container, Map.of("PATH", "/bin"), script, name);
  }

  private JobProcess start(
      ContainerSpec container, Map<String, String> env, String script, String name)
      throws IOException {
    StartSpec spec =
        new StartSpec(
            nobody,
            NOBODY,
            Path.of("/"),
            null,
            dir.resolve("out").resolve(name),
            null,
            true,
            null,
            List.of(),
            dir.resolve(name + ".status"),
            null,
            List.of("/bin/sh", "-c", script),
            env,
            false,
            false,
            null,
            container,
            null,
            null,
            ProcessLimits.NONE);
    JobProcess p = launcher.start(spec);
    started.add(p);
    return p;
  }

  /** Runs {@code script} in the container; its output, after checking it exited 0. */
  private String run(ContainerSpec container, String script) throws Exception {
    return run(container, Map.of("PATH", "/bin"), script);
  }

  private String run(ContainerSpec container, Map<String, String> env, String script)
      throws Exception {
    String name = "run-" + System.nanoTime();
    start(container, env, script, name).exited().get(60, TimeUnit.SECONDS);
    StarterStatus status = StarterStatus.parse(Files.readString(dir.resolve(name + ".status")));
    String out = Files.readString(dir.resolve("out").resolve(name));
    assertEquals(0, status.exitStatus(), status + ": " + out);
    return out;
  }

  @Test
  void aProcessRunsInTheImageAsItsOwnerOnAReadOnlyRoot() throws Exception {
    String out =
        run(
            container(null, false, false),
            "cat /etc/marker; id -u; pwd; touch /x 2>&1; echo done > /tmp/t && cat /tmp/t");
    assertEquals(MARKER + "\n" + NOBODY + "\n/work\ntouch: /x: Read-only file system\ndone\n", out);
    assertTrue(Files.isSymbolicLink(ownCache.resolve("ids").toFile().listFiles()[0].toPath()));
  }

  /**
   * The image's own environment wins over what the process brings, as pyxis's does, but for the
   * names kept from the host (pyxis's --container-env).
   */
  @Test
  void theImagesValuesWinButForTheNamesKeptFromTheHost() throws Exception {
    ContainerSpec c = container(null, false, false);
    ContainerSpec keeping =
        new ContainerSpec(
            c.image(),
            c.cache(),
            null,
            c.scratch(),
            "/work",
            false,
            false,
            List.of(),
            List.of(),
            List.of(),
            null,
            List.of("GREETING"));
    Map<String, String> env = Map.of("PATH", "/bin", "GREETING", "host", "OTHER", "host");
    assertEquals("image image\n", run(c, env, "echo $GREETING $OTHER"));
    assertEquals("host image\n", run(keeping, env, "echo $GREETING $OTHER"));
  }

  @Test
  void theImageIsUnpackedOnceAndASecondEntryFindsIt() throws Exception {
    ContainerSpec c = container(null, false, false);
    run(c, "true");
    List<Path> entries = cache.entries().stream().map(ContainerCache.Entry::dir).toList();
    assertEquals(1, entries.size());
    Object inode = Files.getAttribute(entries.get(0), "unix:ino");
    run(c, "true");
    assertEquals(entries, cache.entries().stream().map(ContainerCache.Entry::dir).toList());
    assertEquals(inode, Files.getAttribute(entries.get(0), "unix:ino"), "not unpacked again");
  }

  @Test
  void aWritableContainerChangesItsOwnLayerNotTheCache() throws Exception {
    ContainerSpec c = container(null, true, false);
    assertEquals("kept\n", run(c, "echo kept > /etc/new && cat /etc/new"));
    Path entry = cache.entries().get(0).dir();
    assertFalse(Files.exists(entry.resolve("etc/new")), "the cached image is unchanged");
    assertEquals("", run(c, "cat /etc/new 2>/dev/null; true"), "each entry starts afresh");
  }

  @Test
  void aNamedContainerIsMadeOnceAndKeepsItsChanges() throws Exception {
    Path named = dir.resolve("home-" + System.nanoTime()).resolve("containers/dev");
    Files.createDirectories(named.getParent().getParent());
    Files.setAttribute(named.getParent().getParent(), "unix:uid", NOBODY);
    run(container(named, true, false), "echo installed > /etc/tool");
    assertEquals("installed\n", run(container(named, false, false), "cat /etc/tool"));
    assertTrue(Files.isDirectory(named));
    assertEquals(NOBODY, Files.getAttribute(named.resolve("etc/tool"), "unix:uid"));
  }

  @Test
  void remapRootMakesTheOwnerRootInside() throws Exception {
    assertEquals("0\n", run(container(null, false, true), "id -u"));
  }

  /** An entry a running process entered stays; once it has ended, the cache may evict it. */
  @Test
  void anEntryInUseIsNotEvicted() throws Exception {
    ContainerSpec c = container(null, false, false);
    JobProcess holder =
        start(c.startingIn(null), "echo in > /tmp/x; sleep 600", "holder-" + System.nanoTime());
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (cache.entries().isEmpty() || !inUse()) {
      assertTrue(System.nanoTime() < deadline, "the holder did not enter its container");
      Thread.sleep(20);
    }
    ContainerCache tight = new ContainerCache(cache.base(), 0);
    assertEquals(List.of(), tight.evict(), "in use");
    ProcessSessions.kill(holder.pid());
    holder.exited().get(10, TimeUnit.SECONDS);
    // the starter ends before the killed sleep it started is gone, which holds the lock too
    while (inUse()) {
      assertTrue(System.nanoTime() < deadline, "the holder's processes kept the lock");
      Thread.sleep(20);
    }
    assertEquals(1, tight.evict().size());
    assertEquals(List.of(), tight.entries());
  }

  /** Whether a process holds the lock of the cache's entry (its starter's descriptor). */
  private boolean inUse() throws IOException {
    Path lock =
        ownCache.resolve("sha256").resolve(cache.entries().get(0).dir().getFileName() + ".lock");
    String inode = ":" + Files.getAttribute(lock, "unix:ino") + " ";
    return Files.readAllLines(Path.of("/proc/locks")).stream().anyMatch(l -> l.contains(inode));
  }

  /**
   * NVIDIA GPUs need the driver's files in the container; without libnvidia-container's CLI the
   * process does not start, saying why (this machine has no NVIDIA driver: ops/gpu-check runs the
   * real thing).
   */
  @Test
  void nvidiaGpusWithoutTheContainerToolkitAreRefused() throws Exception {
    assumeTrue(
        !Files.exists(Path.of("/usr/bin/nvidia-container-cli")),
        "this machine has nvidia-container-cli: ops/gpu-check checks it with real GPUs");
    ContainerSpec c = container(null, false, false);
    ContainerSpec gpu =
        new ContainerSpec(
            c.image(),
            c.cache(),
            null,
            c.scratch(),
            null,
            false,
            false,
            List.of(),
            List.of(),
            List.of(),
            "GPU-0000",
            List.of());
    String name = "nvidia-" + System.nanoTime();
    start(gpu, "true", name).exited().get(60, TimeUnit.SECONDS);
    String status = Files.readString(dir.resolve(name + ".status"));
    assertTrue(status.startsWith("failed this node has GPUs but no nvidia-container-cli"), status);
  }
}
