package dev.berth.daemon.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Layers applied to a tree in a temporary directory, next to a directory they must not reach. */
class LayerApplierTest {
  @TempDir Path dir;
  Path root;
  Path outside;
  RootTree tree;
  LayerApplier applier;

  @BeforeEach
  void setUp() throws IOException {
    root = Files.createDirectory(dir.resolve("root"));
    outside = Files.createDirectory(dir.resolve("outside"));
    Files.writeString(outside.resolve("victim"), "untouched");
    tree = new RootTree(root);
    applier = new LayerApplier(tree, new UnpackLimits(1 << 20, 1000));
  }

  private void apply(TestLayer... layers) throws IOException {
    for (int i = 0; i < layers.length; i++) {
      applier.apply(layers[i].stream(), "layer " + (i + 1));
    }
    tree.finish();
  }

  private String refusal(TestLayer... layers) {
    return assertThrows(IOException.class, () -> apply(layers)).getMessage();
  }

  /** Every path in the tree, relative, directories with a trailing slash. */
  private TreeSet<String> paths() throws IOException {
    TreeSet<String> paths = new TreeSet<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(p -> !p.equals(root))
          .forEach(
              p ->
                  paths.add(
                      root.relativize(p)
                          + (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "/" : "")));
    }
    return paths;
  }

  private void assertOutsideUntouched() throws IOException {
    assertEquals("untouched", Files.readString(outside.resolve("victim")));
    try (Stream<Path> list = Files.list(outside)) {
      assertEquals(List.of(outside.resolve("victim")), list.toList());
    }
  }

  @Test
  void unpacksFilesDirectoriesAndLinksWithTheirModesAndTimes() throws IOException {
    apply(
        new TestLayer()
            .dir("usr", 0755)
            .dir("usr/bin", 0555)
            .file("usr/bin/tool", "#!/bin/sh\n", 04755)
            .file("etc/shadow", "secret", 0)
            .symlink("bin", "usr/bin")
            .symlink("etc/mtab", "/proc/self/mounts")
            .dir("tmp", 01777));
    assertEquals(
        new TreeSet<>(
            List.of(
                "bin",
                "etc/",
                "etc/mtab",
                "etc/shadow",
                "tmp/",
                "usr/",
                "usr/bin/",
                "usr/bin/tool")),
        paths());
    assertEquals("#!/bin/sh\n", Files.readString(root.resolve("usr/bin/tool")));
    assertEquals(04755, mode("usr/bin/tool"), "setuid kept");
    assertEquals(0755, mode("usr/bin"), "the owner keeps rwx on directories");
    assertEquals(0400, mode("etc/shadow"), "the owner keeps r on files");
    assertEquals(01777, mode("tmp"), "sticky kept");
    assertEquals(Path.of("/proc/self/mounts"), Files.readSymbolicLink(root.resolve("etc/mtab")));
    FileTime time = FileTime.from(TestLayer.TIME);
    assertEquals(time, Files.getLastModifiedTime(root.resolve("usr/bin/tool")));
    assertEquals(time, Files.getLastModifiedTime(root.resolve("usr/bin")), "set after its files");
  }

  private int mode(String path) throws IOException {
    return (Integer) Files.getAttribute(root.resolve(path), "unix:mode", LinkOption.NOFOLLOW_LINKS)
        & 07777;
  }

  @Test
  void aWhiteoutRemovesWhatLowerLayersHad() throws IOException {
    apply(
        new TestLayer()
            .file("etc/keep", "k")
            .file("etc/gone", "g")
            .file("var/cache/a/b", "x")
            .file("var/cache/c", "y"),
        new TestLayer().whiteout("etc", "gone").whiteout("var", "cache"));
    assertEquals(new TreeSet<>(List.of("etc/", "etc/keep", "var/")), paths());
  }

  @Test
  void aWhiteoutLeavesWhatItsOwnLayerBrings() throws IOException {
    apply(
        new TestLayer().file("a/old", "1"),
        // The layer lists a new a/old before and another file after its whiteouts.
        new TestLayer()
            .file("a/old", "2")
            .whiteout("a", "old")
            .whiteout("a", "new")
            .file("a/new", "3"));
    assertEquals("2", Files.readString(root.resolve("a/old")));
    assertEquals("3", Files.readString(root.resolve("a/new")));
  }

  @Test
  void anOpaqueDirectoryHidesAllLowerContentButKeepsItsOwn() throws IOException {
    apply(
        new TestLayer()
            .file("opt/app/lib/old.so", "o")
            .file("opt/app/conf", "c")
            .file("opt/other", "stays"),
        new TestLayer()
            .file("opt/app/lib/new.so", "n") // before the marker: kept
            .opaque("opt/app")
            .file("opt/app/bin/run", "r")); // after it: kept
    assertEquals(
        new TreeSet<>(
            List.of(
                "opt/",
                "opt/app/",
                "opt/app/bin/",
                "opt/app/bin/run",
                "opt/app/lib/",
                "opt/app/lib/new.so",
                "opt/other")),
        paths());
  }

  @Test
  void entriesReplaceWhatIsThereAndDirectoriesMerge() throws IOException {
    apply(
        new TestLayer().file("a", "file").dir("b", 0755).file("b/inner", "i").dir("c", 0755),
        new TestLayer().dir("a", 0700).file("b", "now a file").dir("c", 0700).file("c/x", "x"));
    assertEquals(new TreeSet<>(List.of("a/", "b", "c/", "c/x")), paths());
    assertEquals("now a file", Files.readString(root.resolve("b")));
  }

  @Test
  void absolutePathsAndDotDotAreRefused() throws IOException {
    assertTrue(
        refusal(new TestLayer().file("/etc/passwd", "x")).contains("absolute path '/etc/passwd'"));
    assertTrue(refusal(new TestLayer().file("../outside/victim", "x")).contains("'..' refused"));
    assertTrue(refusal(new TestLayer().file("a/../../outside/x", "x")).contains("'..' refused"));
    assertTrue(
        refusal(new TestLayer().symlink("a", "b").hardLink("c", "../outside/victim"))
            .contains("'..' refused"));
    assertTrue(refusal(new TestLayer().whiteout("", ".")).contains("whiteout of '.' refused"));
    assertTrue(refusal(new TestLayer().file(".wh...", "")).contains("whiteout of '..' refused"));
    assertOutsideUntouched();
  }

  @Test
  void nothingIsWrittenThroughALinkedParent() throws IOException {
    // etc -> /etc as an image has it, here pointing at the directory outside; then etc/passwd.
    String why =
        refusal(
            new TestLayer().symlink("etc", outside.toString()),
            new TestLayer().file("etc/victim", "pwned"));
    assertTrue(why.startsWith("layer 2: 'etc/victim': "), why);
    assertTrue(why.contains("lies under 'etc', which is a symbolic link"), why);
    // The same with a relative link and within one layer, and with a directory entry.
    assertTrue(
        refusal(new TestLayer().symlink("up", "../outside").dir("up/new", 0755))
            .contains("which is a symbolic link"));
    assertOutsideUntouched();
  }

  @Test
  void aFileEntryReplacesALinkInsteadOfWritingThroughIt() throws IOException {
    Path victim = outside.resolve("victim");
    apply(new TestLayer().symlink("x", victim.toString()), new TestLayer().file("x", "replaced"));
    assertFalse(Files.isSymbolicLink(root.resolve("x")));
    assertEquals("replaced", Files.readString(root.resolve("x")));
    assertOutsideUntouched();
  }

  @Test
  void whiteoutsUnderALinkRemoveNothingOutside() throws IOException {
    apply(
        new TestLayer().symlink("etc", outside.toString()),
        new TestLayer().whiteout("etc", "victim").opaque("etc"));
    assertOutsideUntouched();
    assertTrue(Files.isSymbolicLink(root.resolve("etc")));
  }

  @Test
  void hardLinksShareTheFileAndStayInTheTree() throws IOException {
    apply(
        new TestLayer()
            .file("usr/bin/python3.11", "py")
            .hardLink("usr/bin/python3", "usr/bin/python3.11"),
        new TestLayer().hardLink("python", "./usr/bin/python3.11"));
    assertTrue(
        Files.isSameFile(root.resolve("usr/bin/python3"), root.resolve("usr/bin/python3.11")));
    assertTrue(Files.isSameFile(root.resolve("python"), root.resolve("usr/bin/python3.11")));
    assertTrue(
        refusal(new TestLayer().hardLink("a", "/etc/passwd"))
            .contains("absolute path '/etc/passwd'"));
    assertTrue(refusal(new TestLayer().hardLink("a", "missing")).contains("not in the image"));
    assertTrue(refusal(new TestLayer().hardLink("a", "usr/bin")).contains("directory 'usr/bin'"));
    assertOutsideUntouched();
  }

  @Test
  void aHardLinkCannotReachThroughALinkedParent() throws IOException {
    String why =
        refusal(
            new TestLayer().symlink("host", outside.toString()).hardLink("stolen", "host/victim"));
    assertTrue(why.contains("'host/victim', which is not in the image"), why);
    assertFalse(Files.exists(root.resolve("stolen")));
  }

  @Test
  void replacingAHardLinkedFileLeavesTheOtherNameAlone() throws IOException {
    apply(new TestLayer().file("a", "old").hardLink("b", "a"), new TestLayer().file("a", "new"));
    assertEquals("new", Files.readString(root.resolve("a")));
    assertEquals("old", Files.readString(root.resolve("b")));
  }

  @Test
  void devicesFifosAndDevContentAreLeftOut() throws IOException {
    apply(
        new TestLayer()
            .dir("dev", 0755)
            .charDevice("dev/null", 1, 3)
            .symlink("dev/fd", "/proc/self/fd")
            .dir("dev/pts", 0755)
            .charDevice("usr/null", 1, 3)
            .fifo("run/initctl")
            .hardLink("run/also", "run/initctl")
            .file("run/ok", ""));
    assertEquals(new TreeSet<>(List.of("dev/", "run/", "run/ok")), paths());
    assertEquals(6, applier.skipped());
  }

  @Test
  void unknownEntryTypesAreRefused() {
    assertTrue(
        refusal(new TestLayer().unknownType("label", 'Z'))
            .endsWith("'label': unsupported tar entry type 'Z'"));
  }

  @Test
  void theLimitsEndAnImport() {
    LayerApplier small = new LayerApplier(tree, new UnpackLimits(10, 1000));
    IOException big =
        assertThrows(
            IOException.class,
            () ->
                small.apply(new TestLayer().file("a", "123456").file("b", "123456").stream(), "l"));
    assertTrue(big.getMessage().contains("unpacks to more than 10 B; "), big.getMessage());
    LayerApplier few = new LayerApplier(tree, new UnpackLimits(1000, 2));
    IOException many =
        assertThrows(
            IOException.class,
            () ->
                few.apply(
                    new TestLayer().dir("a", 0755).dir("b", 0755).dir("c", 0755).stream(), "l"));
    assertTrue(many.getMessage().contains("more than 2 entries"), many.getMessage());
  }

  @Test
  void anInterruptStopsTheLayer() {
    Thread.currentThread().interrupt();
    try {
      assertThrows(
          InterruptedIOException.class,
          () -> applier.apply(new TestLayer().file("a", "x").stream(), "l"));
    } finally {
      Thread.interrupted();
    }
  }
}
