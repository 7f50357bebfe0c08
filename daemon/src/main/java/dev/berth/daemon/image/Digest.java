package dev.berth.daemon.image;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A content digest as OCI and Docker write it: {@code sha256:} and 64 lower-case hex digits. It is
 * the only algorithm read: every image tool writes it, and refusing anything else keeps a digest
 * that names a blob's path ({@code blobs/sha256/HEX}) from naming anything but a blob.
 */
record Digest(String hex) {
  private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");

  Digest {
    if (!HEX.matcher(hex).matches()) {
      throw new IllegalArgumentException("not a sha256 digest: " + hex);
    }
  }

  /**
   * Reads {@code sha256:HEX}.
   *
   * @throws IllegalArgumentException naming {@code what} carried it
   */
  static Digest parse(String text, String what) {
    if (!text.startsWith("sha256:") || !HEX.matcher(text.substring(7)).matches()) {
      throw new IllegalArgumentException(
          what + " has digest '" + text + "': only sha256:<64 hex digits> is read");
    }
    return new Digest(text.substring(7));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  static Digest of(byte[] bytes) {
    return new Digest(HexFormat.of().formatHex(sha256().digest(bytes)));
  }

  /** The path of the blob with this digest in an OCI image layout. */
  String blobPath() {
    return "blobs/sha256/" + hex;
  }

  /** Fails unless {@code computed} (a finished SHA-256) is this digest. */
  void verify(byte[] computed, String what) throws IOException {
    String actual = HexFormat.of().formatHex(computed);
    if (!actual.equals(hex)) {
      throw new IOException(
          what
              + " is corrupt or was changed: its content has digest sha256:"
              + actual
              + ", not "
              + this);
    }
  }

  @Override
  public String toString() {
    return "sha256:" + hex;
  }
}
