package dev.berth.daemon.image;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.zip.GZIPInputStream;

/**
 * Reads a layer's tar out of its blob, hashing the bytes as they pass: once the tar has been read,
 * {@link #finish} reads the rest of both streams and checks the blob's digest and size and the
 * tar's digest against what the image says. A layer that does not match fails the import; what it
 * unpacked goes with the staging tree.
 */
final class LayerReader implements AutoCloseable {
  private static final byte[] GZIP_MAGIC = {0x1f, (byte) 0x8b};
  private static final byte[] ZSTD_MAGIC = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd};

  private final Layer layer;
  private final Hashing blob;
  private final Hashing tar;

  LayerReader(Layer layer) throws IOException {
    this.layer = layer;
    this.blob = new Hashing(layer.files().open(layer.path()), layer.blobDigest() != null);
    try {
      BufferedInputStream buffered = new BufferedInputStream(blob, 1 << 16);
      this.tar = new Hashing(decompress(buffered), layer.tarDigest() != null);
    } catch (IOException | RuntimeException e) {
      blob.close();
      throw e;
    }
  }

  /** The uncompressed tar. */
  InputStream tar() {
    return tar;
  }

  /** Reads both streams to their ends and checks them. */
  void finish() throws IOException {
    tar.transferTo(OutputStream.nullOutputStream());
    blob.transferTo(OutputStream.nullOutputStream());
    String where = layer.what() + " (" + layer.files().describe(layer.path()) + ")";
    if (layer.blobSize() >= 0 && blob.count != layer.blobSize()) {
      throw new IOException(
          where
              + " is corrupt or was changed: it has "
              + blob.count
              + " bytes, the manifest says "
              + layer.blobSize());
    }
    if (layer.blobDigest() != null) {
      layer.blobDigest().verify(blob.digest.digest(), where);
    }
    if (layer.tarDigest() != null) {
      layer.tarDigest().verify(tar.digest.digest(), where + ", uncompressed,");
    }
  }

  private InputStream decompress(BufferedInputStream in) throws IOException {
    Layer.Compression compression = layer.compression();
    if (compression == Layer.Compression.DETECT) {
      in.mark(ZSTD_MAGIC.length);
      byte[] start = in.readNBytes(ZSTD_MAGIC.length);
      in.reset();
      if (startsWith(start, ZSTD_MAGIC)) {
        throw new IOException(layer.what() + " is zstd-compressed, " + OciLayout.ZSTD_ADVICE);
      }
      compression = startsWith(start, GZIP_MAGIC) ? Layer.Compression.GZIP : Layer.Compression.NONE;
    }
    // GZIPInputStream reads concatenated members, which parallel gzip tools write.
    return compression == Layer.Compression.GZIP ? new GZIPInputStream(in, 1 << 16) : in;
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    if (bytes.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (bytes[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    tar.close(); // and with it the decompressor and the blob
  }

  /** Counts what is read through it, and hashes it if asked to. */
  private static final class Hashing extends FilterInputStream {
    final MessageDigest digest;
    long count;

    Hashing(InputStream in, boolean hash) {
      super(in);
      digest = hash ? Digest.sha256() : null;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count++;
        if (digest != null) {
          digest.update((byte) b);
        }
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count += n;
        if (digest != null) {
          digest.update(buffer, offset, n);
        }
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      // Skipped bytes must be counted and hashed too: read them instead.
      if (n <= 0) {
        return 0;
      }
      return Math.max(0, read(new byte[(int) Math.min(n, 8192)]));
    }

    @Override
    public boolean markSupported() {
      return false;
    }
  }
}
