package dev.berth.daemon.image;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/** A layer tar written entry by entry, as image tools write them; names are kept exactly. */
final class TestLayer {
  static final Instant TIME = Instant.parse("2024-05-06T07:08:09Z");

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes, "UTF-8");
  private byte[] written;

  TestLayer() {
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
  }

  TestLayer dir(String name, int mode) {
    TarArchiveEntry e = entry(name.endsWith("/") ? name : name + "/", TarConstants.LF_DIR);
    e.setMode(mode);
    return put(e, new byte[0]);
  }

  TestLayer file(String name, String content) {
    return file(name, content, 0644);
  }

  TestLayer file(String name, String content, int mode) {
    TarArchiveEntry e = entry(name, TarConstants.LF_NORMAL);
    e.setMode(mode);
    return put(e, content.getBytes(StandardCharsets.UTF_8));
  }

  TestLayer symlink(String name, String target) {
    TarArchiveEntry e = entry(name, TarConstants.LF_SYMLINK);
    e.setLinkName(target);
    return put(e, new byte[0]);
  }

  TestLayer hardLink(String name, String target) {
    TarArchiveEntry e = entry(name, TarConstants.LF_LINK);
    e.setLinkName(target);
    return put(e, new byte[0]);
  }

  /** Hides {@code name} of the lower layers. */
  TestLayer whiteout(String dir, String name) {
    return file((dir.isEmpty() ? "" : dir + "/") + ".wh." + name, "");
  }

  /** Hides everything the lower layers have in {@code dir}. */
  TestLayer opaque(String dir) {
    return file(dir + "/.wh..wh..opq", "");
  }

  TestLayer fifo(String name) {
    return put(entry(name, TarConstants.LF_FIFO), new byte[0]);
  }

  TestLayer charDevice(String name, int major, int minor) {
    TarArchiveEntry e = entry(name, TarConstants.LF_CHR);
    e.setDevMajor(major);
    e.setDevMinor(minor);
    return put(e, new byte[0]);
  }

  /** An entry of a type no image tool writes. */
  TestLayer unknownType(String name, char type) {
    return put(entry(name, (byte) type), new byte[0]);
  }

  private static TarArchiveEntry entry(String name, byte type) {
    TarArchiveEntry e = new TarArchiveEntry(name, type, true); // keeps "/" and ".." as given
    e.setModTime(TIME.toEpochMilli());
    return e;
  }

  private TestLayer put(TarArchiveEntry e, byte[] content) {
    try {
      e.setSize(content.length);
      tar.putArchiveEntry(e);
      tar.write(content);
      tar.closeArchiveEntry();
      return this;
    } catch (IOException x) {
      throw new UncheckedIOException(x);
    }
  }

  /** The uncompressed tar; no entries can be added after. */
  byte[] tar() {
    try {
      if (written == null) {
        tar.finish();
        written = bytes.toByteArray();
      }
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tar, gzip-compressed. */
  byte[] gzip() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(tar());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The tar as a stream to apply. */
  TarArchiveInputStream stream() {
    return new TarArchiveInputStream(new ByteArrayInputStream(tar()), "UTF-8");
  }
}
