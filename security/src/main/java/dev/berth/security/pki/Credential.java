package dev.berth.security.pki;

import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;

/**
 * What a daemon proves itself with: its private key, its certificate, and the certificates it
 * trusts, as three PEM files in one directory. Loaded and checked when the daemon starts, so that a
 * missing file, a key others can read, a certificate another CA issued or one that has expired
 * stops it with one clear line instead of failing at its first connection.
 */
public final class Credential {
  public static final String KEY = "key.pem";
  public static final String CERTIFICATE = "cert.pem";
  public static final String TRUST = "ca.pem";

  private final Path dir;
  private final PrivateKey key;
  private final SigningKey signingKey;
  private final X509Certificate certificate;
  private final TrustAnchors trust;
  private final Identity identity;

  private Credential(
      Path dir, PrivateKey key, X509Certificate certificate, TrustAnchors trust, Identity identity)
      throws IOException {
    this.dir = dir;
    this.key = key;
    this.signingKey = SigningKey.of(key);
    this.certificate = certificate;
    this.trust = trust;
    this.identity = identity;
  }

  public static Credential load(Path dir, Clock clock) throws IOException {
    return load(dir, Revocations.NONE, clock);
  }

  /** The credential in {@code dir}, trusting no certificate {@code revocations} lists. */
  public static Credential load(Path dir, Revocations revocations, Clock clock) throws IOException {
    for (String file : new String[] {KEY, CERTIFICATE, TRUST}) {
      if (!Files.exists(dir.resolve(file))) {
        throw new IOException(
            "no credential in "
                + dir
                + " ("
                + file
                + " is missing): make the cluster's CA here with berth ca create, or issue one with"
                + " berth credential issue where the CA is and copy it here (docs/security.md)");
      }
    }
    PrivateKey key = PemFiles.readKey(dir.resolve(KEY));
    X509Certificate certificate = PemFiles.readCertificates(dir.resolve(CERTIFICATE)).get(0);
    TrustAnchors trust =
        new TrustAnchors(PemFiles.readCertificates(dir.resolve(TRUST)), revocations, clock);
    TrustAnchors.Peer self;
    try {
      self = trust.check(certificate);
    } catch (NotTrustedException e) {
      throw new IOException(dir.resolve(CERTIFICATE) + ": " + e.getMessage());
    }
    Credential credential = new Credential(dir, key, certificate, trust, self.identity());
    byte[] probe = "berth credential check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    if (!self.key().verifies(probe, credential.signingKey.sign(probe))) {
      throw new IOException(
          dir.resolve(KEY) + " is not the key of the certificate in " + dir.resolve(CERTIFICATE));
    }
    return credential;
  }

  public Path directory() {
    return dir;
  }

  public Identity identity() {
    return identity;
  }

  public PrivateKey key() {
    return key;
  }

  public SigningKey signingKey() {
    return signingKey;
  }

  public X509Certificate certificate() {
    return certificate;
  }

  public TrustAnchors trust() {
    return trust;
  }
}
