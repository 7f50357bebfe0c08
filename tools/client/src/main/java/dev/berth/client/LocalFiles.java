package dev.berth.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How a command reads a file it was given (qsub's job script), and looks at paths it names. */
@FunctionalInterface
public interface LocalFiles {
  /** Reads with this process's own permissions. */
  LocalFiles PROCESS =
      file -> {
        if (Files.isDirectory(file)) {
          throw new DirectoryException(file);
        }
        return Files.readAllBytes(file);
      };

  /**
   * The whole file.
   *
   * @throws java.nio.file.NoSuchFileException when it does not exist
   * @throws java.nio.file.AccessDeniedException when the caller may not read it
   * @throws DirectoryException when it is a directory
   */
  byte[] read(Path file) throws IOException;

  /**
   * What a command may learn of a path without reading it: what it is, whether the caller can read
   * it (a directory: list and enter it), whether they may write it (a directory: make files in it),
   * its size, and, for a file that starts like a squashfs image, its superblock; nothing of any
   * other file's content.
   */
  record Probe(Kind kind, long size, byte[] squashfsHead, String reason, boolean writable) {
    /** A probe of something the caller may not write. */
    public Probe(Kind kind, long size, byte[] squashfsHead, String reason) {
      this(kind, size, squashfsHead, reason, false);
    }

    public enum Kind {
      MISSING,
      DENIED,
      DIRECTORY,
      FILE,
      OTHER
    }
  }

  /** The bytes of a squashfs superblock, which a probe returns of an image. */
  int SQUASHFS_HEAD = 96;

  /** Probes each path with this process's own permissions. */
  default Map<Path, Probe> probe(List<Path> paths) {
    Map<Path, Probe> probes = new LinkedHashMap<>();
    for (Path path : paths) {
      probes.put(path, probeOne(path));
    }
    return probes;
  }

  private static Probe probeOne(Path path) {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      return new Probe(Probe.Kind.MISSING, 0, null, "");
    } catch (AccessDeniedException e) {
      return new Probe(Probe.Kind.DENIED, 0, null, "");
    } catch (IOException e) {
      return new Probe(Probe.Kind.OTHER, 0, null, String.valueOf(e.getMessage()));
    }
    if (a.isDirectory()) {
      boolean writable = Files.isWritable(path) && Files.isExecutable(path);
      return Files.isReadable(path) && Files.isExecutable(path)
          ? new Probe(Probe.Kind.DIRECTORY, 0, null, "", writable)
          : new Probe(Probe.Kind.DENIED, 0, null, "", writable);
    }
    if (!a.isRegularFile()) {
      return new Probe(Probe.Kind.OTHER, 0, null, "not a regular file", Files.isWritable(path));
    }
    try (InputStream in = Files.newInputStream(path)) {
      byte[] head = in.readNBytes(SQUASHFS_HEAD);
      boolean squashfs =
          head.length == SQUASHFS_HEAD
              && head[0] == 'h'
              && head[1] == 's'
              && head[2] == 'q'
              && head[3] == 's';
      return new Probe(
          Probe.Kind.FILE, a.size(), squashfs ? head : null, "", Files.isWritable(path));
    } catch (AccessDeniedException e) {
      return new Probe(Probe.Kind.DENIED, 0, null, "");
    } catch (IOException e) {
      return new Probe(Probe.Kind.OTHER, 0, null, String.valueOf(e.getMessage()));
    }
  }

  /** The path names a directory, not a file. */
  final class DirectoryException extends IOException {
    private static final long serialVersionUID = 1L;

    public DirectoryException(Path file) {
      super(file + " is a directory");
    }
  }
}
