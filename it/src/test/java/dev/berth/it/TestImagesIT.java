package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fixture's own test: both {@link TestImages} are built (or found in the cache), hold what they
 * promise, unpack as an unprivileged user, and work: berth-alice enters each unpacked tree through
 * an unprivileged user namespace and chroot, and in the Open MPI image runs a program built with
 * the host's mpicc under mpirun. The images stay cached; everything else is removed.
 */
@Tag("integration")
class TestImagesIT {
  static final String USER = TestUsers.ALICE;

  /** Each rank prints the first line of the image's marker, or "none" outside an image. */
  static final String HELLO =
      """
      #include <mpi.h>
      #include <stdio.h>
      int main(int c, char **v) {
        MPI_Init(&c, &v);
        int r, s;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Comm_size(MPI_COMM_WORLD, &s);
        FILE *f = fopen("/etc/berth-test-image", "r");
        char m[128] = "none";
        if (f) { fgets(m, sizeof m, f); fclose(f); }
        printf("rank %d/%d marker %s\\n", r, s, m);
        MPI_Finalize();
        return 0;
      }
      """;

  /**
   * Run by {@code sh} in a new user namespace (the user mapped to root in it), mount and pid
   * namespace: the container's /proc, /sys, /dev (only harmless nodes) and /tmp are mounted on the
   * unpacked tree ($1), then the rest of the arguments run chrooted into it with a clean
   * environment.
   */
  static final String ENTER =
      """
      set -eu
      cd "$1"; shift
      mount -t proc proc proc
      mount --rbind /sys sys
      mount -t tmpfs -o mode=0755 tmpfs dev
      for node in null zero full random urandom tty; do
        touch dev/$node
        mount --bind /dev/$node dev/$node
      done
      mkdir -m 1777 dev/shm
      mount -t tmpfs -o mode=1777 tmpfs tmp
      exec /usr/sbin/chroot . /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root "$@"
      """;

  static Path work;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(USER);
    work = MultiNodeCluster.workFor(USER, "berth-test-images-");
  }

  @AfterAll
  static void removeWork() throws IOException {
    JobFiles.removeTree(work);
  }

  @Test
  void tinyImageUnpacksAndRunsItsShell() throws IOException {
    Path image = timed("tiny", TestImages::tiny);
    assertCommon(image, TestImages.TINY_MARKER);
    assertTrue(list(image).contains("squashfs-root/bin/busybox"));

    Path root = unpack(image, "tiny");
    TestCluster.Result r = enter(root, "/bin/sh", "-c", "cat " + TestImages.MARKER);
    assertEquals(0, r.exit(), r.toString());
    assertEquals(TestImages.TINY_MARKER + "\n", r.out());
  }

  @Test
  void openMpiImageRunsAProgramBuiltWithTheHostsMpicc() throws IOException {
    Path image = timed("openMpi", TestImages::openMpi);
    assertCommon(image, TestImages.OPENMPI_MARKER);
    assertTrue(list(image).contains("squashfs-root/usr/bin/mpirun"));
    String hostVersion =
        TestCluster.exec(work, List.of("dpkg-query", "-W", "-f=${Version}", "libopenmpi3")).out();
    assertEquals(
        hostVersion,
        packageVersion(cat(image, "var/lib/dpkg/status"), "libopenmpi3"),
        "the image's Open MPI is the host's (else bump TestImages.OPENMPI_VERSION)");

    Path root = unpack(image, "openmpi");
    Files.writeString(work.resolve("hello.c"), HELLO);
    MultiNodeCluster.runAs(
        USER, work, "mpicc", "-O2", "-o", root.resolve("workspace/hello").toString(), "hello.c");
    long start = System.nanoTime();
    TestCluster.Result r =
        enter(
            root,
            "mpirun",
            "--allow-run-as-root", // the user is root in its user namespace
            "-np",
            "2",
            "--oversubscribe",
            "/workspace/hello");
    System.out.printf(
        "TestImagesIT: mpirun -np 2 in the image took %d ms%n",
        (System.nanoTime() - start) / 1000000);
    assertEquals(0, r.exit(), r.toString());
    List<String> ranks = r.out().lines().filter(l -> l.startsWith("rank ")).sorted().toList();
    String marker = " marker " + TestImages.OPENMPI_MARKER;
    assertEquals(List.of("rank 0/2" + marker, "rank 1/2" + marker), ranks, r.toString());
  }

  private interface Build {
    Path get() throws IOException;
  }

  /** Gets an image twice and prints how long each took: a build (or the cache), then the cache. */
  private static Path timed(String name, Build build) throws IOException {
    long start = System.nanoTime();
    Path image = build.get();
    long first = System.nanoTime();
    assertEquals(image, build.get());
    long again = System.nanoTime();
    System.out.printf(
        "TestImagesIT: %s() took %d ms, again %d ms%n",
        name, (first - start) / 1000000, (again - first) / 1000000);
    return image;
  }

  /** The marker, an empty /dev, the mount points and a file any user can read. */
  private static void assertCommon(Path image, String marker) throws IOException {
    assertEquals(image.getParent(), TestImages.CACHE);
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(image)));
    assertEquals(marker + "\n", cat(image, TestImages.MARKER));
    assertTrue(cat(image, "etc/hosts").contains("127.0.0.1 localhost\n"));
    assertTrue(cat(image, "etc/passwd").startsWith("root:"));
    List<String> entries = list(image);
    for (String dir : List.of("dev", "proc", "sys", "tmp", "workspace")) {
      assertTrue(entries.contains("squashfs-root/" + dir), dir);
    }
    assertFalse(entries.stream().anyMatch(e -> e.startsWith("squashfs-root/dev/")), "/dev empty");
    assertFalse(entries.stream().anyMatch(e -> e.startsWith("squashfs-root/workspace/")), "empty");
  }

  private static List<String> list(Path image) {
    TestCluster.Result r = TestCluster.exec(work, List.of("unsquashfs", "-l", image.toString()));
    assertEquals(0, r.exit(), r.toString());
    return r.out().lines().toList();
  }

  private static String cat(Path image, String file) {
    TestCluster.Result r =
        TestCluster.exec(work, List.of("unsquashfs", "-cat", image.toString(), file));
    assertEquals(0, r.exit(), r.toString());
    return r.out();
  }

  /** The Version field of {@code name}'s paragraph in a dpkg status file. */
  private static String packageVersion(String status, String name) {
    for (String paragraph : status.split("\n\n")) {
      if (paragraph.startsWith("Package: " + name + "\n")) {
        return paragraph
            .lines()
            .filter(l -> l.startsWith("Version: "))
            .findFirst()
            .orElseThrow()
            .substring("Version: ".length());
      }
    }
    throw new AssertionError(name + " is not in the image's dpkg status");
  }

  /** Unpacks the image as the unprivileged user, which fails on any device node in it. */
  private static Path unpack(Path image, String name) {
    Path root = work.resolve(name);
    MultiNodeCluster.runAs(
        USER, work, "unsquashfs", "-no-xattrs", "-d", root.toString(), image.toString());
    return root;
  }

  /** Runs {@code command} inside the unpacked tree as the user, entered as {@link #ENTER} says. */
  private static TestCluster.Result enter(Path root, String... command) {
    List<String> argv = new ArrayList<>(TestUsers.loginEnv(USER));
    argv.addAll(
        List.of(
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "--pid",
            "--fork",
            "sh",
            "-c",
            ENTER,
            "enter",
            root.toString()));
    argv.addAll(List.of(command));
    return TestCluster.exec(work, argv);
  }
}
