package dev.berth.daemon.image;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * The files of an image source by their path inside it ({@code index.json}, {@code
 * blobs/sha256/HEX}, {@code manifest.json}): an OCI layout directory's, or a tar archive's (docker
 * save, or an OCI layout in a tar). Paths that leave the source are refused.
 */
interface ImageFiles extends Closeable {
  /** Whether the source holds a file at {@code path}. */
  boolean has(String path) throws IOException;

  /** The content of the file at {@code path}; an IOException naming it if there is none. */
  InputStream open(String path) throws IOException;

  /** Where {@code path} is, for messages: a file name, or the archive and the member. */
  String describe(String path);

  /**
   * The whole of a small file (a manifest, a config), refused when it is larger than {@code max}.
   */
  default byte[] read(String path, int max) throws IOException {
    try (InputStream in = open(path)) {
      byte[] bytes = in.readNBytes(max + 1);
      if (bytes.length > max) {
        throw new IOException(describe(path) + " is larger than " + max + " bytes");
      }
      return bytes;
    }
  }
}
