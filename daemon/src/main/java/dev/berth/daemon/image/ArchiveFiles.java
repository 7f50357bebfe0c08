package dev.berth.daemon.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarFile;

/**
 * The members of an uncompressed tar archive ({@code docker save}, an OCI layout in a tar), read in
 * place: the archive is indexed once and each member read from its offset, so a layer is never
 * copied out first. Docker writes a layer that two images share once and links to it from the
 * other's directory; such links are followed inside the archive only.
 */
final class ArchiveFiles implements ImageFiles {
  private static final int MAX_LINKS = 8;

  private final Path archive;
  private final TarFile tar;
  private final Map<String, TarArchiveEntry> members = new HashMap<>();

  private ArchiveFiles(Path archive, TarFile tar) {
    this.archive = archive;
    this.tar = tar;
  }

  static ArchiveFiles open(Path archive) throws IOException {
    TarFile tar;
    try {
      tar = new TarFile(archive, StandardCharsets.UTF_8.name());
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          archive
              + ": not an uncompressed tar archive ("
              + e.getMessage()
              + "); a compressed one must be uncompressed first",
          e);
    }
    ArchiveFiles files = new ArchiveFiles(archive, tar);
    try {
      for (TarArchiveEntry entry : tar.getEntries()) {
        String name = EntryPath.join(EntryPath.components(entry.getName()));
        if (files.members.put(name, entry) != null) {
          throw new IOException(archive + ": holds '" + EntryPath.show(name) + "' twice");
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      tar.close();
      throw e instanceof IOException io ? io : new IOException(archive + ": " + e.getMessage(), e);
    }
    return files;
  }

  @Override
  public boolean has(String path) throws IOException {
    TarArchiveEntry entry = find(path);
    return entry != null && entry.isFile();
  }

  @Override
  public InputStream open(String path) throws IOException {
    TarArchiveEntry entry = find(path);
    if (entry == null || !entry.isFile()) {
      throw new IOException(describe(path) + ": no such file in the archive");
    }
    return tar.getInputStream(entry);
  }

  /** The member at {@code path}, following links inside the archive; null if there is none. */
  private TarArchiveEntry find(String path) throws IOException {
    List<String> at = EntryPath.components(path);
    for (int hops = 0; hops <= MAX_LINKS; hops++) {
      TarArchiveEntry entry = members.get(EntryPath.join(at));
      if (entry == null || !(entry.isSymbolicLink() || entry.isLink())) {
        return entry;
      }
      String target = entry.getLinkName();
      List<String> next = new ArrayList<>();
      if (entry.isSymbolicLink() && !target.startsWith("/")) {
        next.addAll(at.subList(0, at.size() - 1));
      }
      for (String part : target.split("/")) {
        if (part.equals("..")) {
          if (next.isEmpty()) {
            throw new IOException(describe(path) + ": links outside the archive");
          }
          next.remove(next.size() - 1);
        } else if (!part.isEmpty() && !part.equals(".")) {
          next.add(part);
        }
      }
      at = next;
    }
    throw new IOException(describe(path) + ": more than " + MAX_LINKS + " links in a row");
  }

  @Override
  public String describe(String path) {
    return path.isEmpty() ? archive.toString() : archive + ":" + EntryPath.show(path);
  }

  @Override
  public void close() throws IOException {
    tar.close();
  }
}
