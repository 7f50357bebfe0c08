package dev.berth.daemon.image;

import java.io.IOException;

/**
 * The most one import may unpack, over all its layers: bytes of file content and entries. An image
 * from anywhere can be a small archive of zeros that unpacks to fill the disk, or of millions of
 * empty files; either ends here with an error that says which limit and how to raise it.
 */
final class UnpackLimits {
  private final long maxBytes;
  private final long maxEntries;
  private long bytes;
  private long entries;

  UnpackLimits(long maxBytes, long maxEntries) {
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
  }

  /** Counts one more entry. */
  void entry() throws IOException {
    if (++entries > maxEntries) {
      throw new IOException(
          "the image has more than "
              + maxEntries
              + " entries; if it really is that large, raise --max-entries");
    }
  }

  /** Counts {@code n} more bytes of file content. */
  void bytes(long n) throws IOException {
    bytes += n;
    if (n < 0 || bytes > maxBytes || bytes < 0) {
      throw new IOException(
          "the image unpacks to more than "
              + HumanBytes.of(maxBytes)
              + "; if it really is that large, raise --max-size");
    }
  }
}
