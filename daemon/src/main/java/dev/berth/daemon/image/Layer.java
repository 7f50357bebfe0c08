package dev.berth.daemon.image;

/**
 * One layer of an image: where its blob is and what it must hash to. An OCI manifest names the
 * blob's digest, size and compression; a docker-save archive names only the digest of the
 * uncompressed tar (the config's {@code diff_ids}), and its compression is read from its first
 * bytes.
 *
 * @param what names the layer in messages ("layer 2 of 5 (sha256:...)")
 * @param blobDigest what the blob as stored hashes to, or null
 * @param blobSize the blob's size as stored, or -1
 * @param tarDigest what the uncompressed tar hashes to, or null
 */
record Layer(
    String what,
    ImageFiles files,
    String path,
    Digest blobDigest,
    long blobSize,
    Digest tarDigest,
    Compression compression) {

  /** How a layer's tar is compressed. */
  enum Compression {
    NONE,
    GZIP,
    /** Unknown until its first bytes are read. */
    DETECT
  }
}
