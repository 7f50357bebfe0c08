package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.InvalidPathException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Applies image layers, each a tar stream, one after the other to a {@link RootTree}, as the OCI
 * image spec defines it: an entry replaces what lower layers had at its path (directories merge),
 * {@code .wh.NAME} removes NAME of the lower layers, and {@code .wh..wh..opq} removes everything
 * the lower layers had in its directory. A whiteout never removes what its own layer brings, in
 * whatever order the layer lists the two.
 *
 * <p>Device nodes and FIFOs are skipped (a user cannot make them, and an unprivileged unsquashfs
 * fails on them), and so is everything under {@code /dev}, which stays an empty directory for the
 * container's own.
 */
final class LayerApplier {
  private static final String WHITEOUT = ".wh.";
  private static final String OPAQUE = ".wh..opq";

  /**
   * Java writes file names in the encoding of the locale it started in; in the C locale only ASCII
   * names can be written, and images have others (Debian's CA certificates).
   */
  private static final String LOCALE_HINT =
      "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding"))
          ? ""
          : " (this JVM writes only ASCII file names: run it with LC_ALL=C.UTF-8)";

  private final RootTree tree;
  private final UnpackLimits limits;

  /** Skipped special files, so that hard links to them are skipped too. */
  private final Set<String> skipped = new HashSet<>();

  LayerApplier(RootTree tree, UnpackLimits limits) {
    this.tree = tree;
    this.limits = limits;
  }

  /** How many device nodes, FIFOs and entries under /dev were left out so far. */
  int skipped() {
    return skipped.size();
  }

  /**
   * Applies the entries of {@code tar}.
   *
   * @param layer names the layer in errors
   * @throws InterruptedIOException when the thread is interrupted (the import is being stopped)
   */
  void apply(TarArchiveInputStream tar, String layer) throws IOException {
    // This layer's entries and their parents: what the layer's whiteouts leave alone.
    Set<String> ownEntries = new HashSet<>();
    while (true) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("stopped");
      }
      TarArchiveEntry entry;
      try {
        entry = tar.getNextEntry();
      } catch (IOException | IllegalArgumentException e) {
        throw new IOException(layer + ": not a valid tar archive: " + e.getMessage(), e);
      }
      if (entry == null) {
        return;
      }
      limits.entry();
      try {
        applyEntry(entry, tar, ownEntries);
      } catch (InterruptedIOException e) {
        throw e;
      } catch (InvalidPathException e) {
        throw new IOException(
            layer + ": '" + EntryPath.show(entry.getName()) + "': " + e.getMessage() + LOCALE_HINT,
            e);
      } catch (IOException | IllegalArgumentException e) {
        throw new IOException(
            layer + ": '" + EntryPath.show(entry.getName()) + "': " + e.getMessage(), e);
      }
    }
  }

  private void applyEntry(TarArchiveEntry entry, TarArchiveInputStream tar, Set<String> own)
      throws IOException {
    if (entry.isGlobalPaxHeader()) {
      return;
    }
    List<String> path = EntryPath.components(entry.getName());
    if (path.isEmpty()) {
      return; // the root itself, whose mode the staging directory keeps
    }
    String name = EntryPath.join(path);
    if (path.get(0).equals("dev") && (path.size() > 1 || !entry.isDirectory())) {
      skipped.add(name);
      return;
    }
    String base = path.get(path.size() - 1);
    if (base.startsWith(WHITEOUT)) {
      whiteout(path.subList(0, path.size() - 1), base.substring(WHITEOUT.length()), own);
      return;
    }
    if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isFIFO()) {
      skipped.add(name);
      return;
    }
    if (entry.isDirectory()) {
      tree.directory(path, entry.getMode(), entry.getLastModifiedTime());
    } else if (entry.isSymbolicLink()) {
      tree.symlink(path, entry.getLinkName());
    } else if (entry.isLink()) {
      List<String> target = EntryPath.components(entry.getLinkName());
      if (skipped.contains(EntryPath.join(target))) {
        skipped.add(name);
        return;
      }
      tree.hardLink(path, target);
    } else if (isRegularFile(entry)) {
      limits.bytes(entry.isSparse() ? entry.getRealSize() : entry.getSize());
      tree.file(path, entry.getMode(), tar, entry.getLastModifiedTime());
    } else {
      throw new IOException("unsupported tar entry type '" + (char) entry.getLinkFlag() + "'");
    }
    addOwn(own, path);
  }

  /**
   * Whether the entry is a plain file. Not {@code isFile()}, which says yes to every type it does
   * not know (a tape volume label, say).
   */
  private static boolean isRegularFile(TarArchiveEntry entry) {
    byte type = entry.getLinkFlag();
    return type == TarConstants.LF_NORMAL
        || type == TarConstants.LF_OLDNORM
        || type == TarConstants.LF_CONTIG
        || entry.isSparse();
  }

  private void whiteout(List<String> dir, String hidden, Set<String> own) throws IOException {
    if (hidden.equals(OPAQUE)) {
      for (String child : tree.children(dir)) {
        removeLower(child(dir, child), own);
      }
    } else if (hidden.startsWith(WHITEOUT)) {
      return; // other ".wh..wh." names are aufs bookkeeping, not whiteouts
    } else if (hidden.isEmpty() || hidden.equals(".") || hidden.equals("..")) {
      throw new IOException("whiteout of '" + hidden + "' refused");
    } else {
      removeLower(child(dir, hidden), own);
    }
  }

  /** Removes what lower layers have at {@code path}, keeping what this layer brought. */
  private void removeLower(List<String> path, Set<String> own) throws IOException {
    if (!own.contains(EntryPath.join(path))) {
      tree.remove(path);
    } else if (tree.isDirectory(path)) {
      for (String child : tree.children(path)) {
        removeLower(child(path, child), own);
      }
    }
  }

  private static List<String> child(List<String> dir, String name) {
    List<String> path = new ArrayList<>(dir.size() + 1);
    path.addAll(dir);
    path.add(name);
    return path;
  }

  private static void addOwn(Set<String> own, List<String> path) {
    for (int end = path.size(); end > 0; end--) {
      if (!own.add(EntryPath.join(path.subList(0, end)))) {
        return; // its parents are in already
      }
    }
  }
}
