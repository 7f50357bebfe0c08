package dev.berth.security.pki;

import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The certificates a cluster trusts to sign its credentials (ca.pem), and the peers they vouch for.
 * A peer certificate is checked once, then remembered by its digest until it expires: node messages
 * carry their sender's certificate, and a signature check per message must not also pay for a
 * certificate check.
 */
public final class TrustAnchors {
  /** Enough for every member of a large cluster; past it the cache starts over. */
  private static final int MAX_REMEMBERED = 100_000;

  /** A certificate found good: whom it names and the key to check its holder's signatures. */
  public record Peer(
      Identity identity, VerifyingKey key, Instant notAfter, java.math.BigInteger serial) {}

  private final List<X509Certificate> anchors;
  private final Revocations revocations;
  private final Clock clock;
  private final Map<String, Peer> remembered = new ConcurrentHashMap<>();

  public TrustAnchors(List<X509Certificate> anchors, Revocations revocations, Clock clock) {
    if (anchors.isEmpty()) {
      throw new IllegalArgumentException("no trusted certificate");
    }
    this.anchors = List.copyOf(anchors);
    this.revocations = revocations;
    this.clock = clock;
  }

  public Revocations revocations() {
    return revocations;
  }

  public List<X509Certificate> anchors() {
    return anchors;
  }

  /** The peer a DER certificate names, if one of the anchors issued it and it is valid now. */
  public Peer peer(byte[] der) throws NotTrustedException {
    String digest = digest(der);
    Peer known = remembered.get(digest);
    Instant now = clock.instant();
    if (known != null && now.isBefore(known.notAfter())) {
      if (revocations.revoked(known.serial())) {
        throw new NotTrustedException("the certificate of " + known.identity() + " is revoked");
      }
      return known;
    }
    X509Certificate certificate;
    try {
      certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(der));
    } catch (CertificateException e) {
      throw new NotTrustedException("unreadable certificate: " + e.getMessage());
    }
    Peer peer = check(certificate);
    if (remembered.size() >= MAX_REMEMBERED) {
      remembered.clear();
    }
    remembered.put(digest, peer);
    return peer;
  }

  /** Checks that an anchor issued {@code certificate}, that it is valid now, and whom it names. */
  public Peer check(X509Certificate certificate) throws NotTrustedException {
    String subject = certificate.getSubjectX500Principal().getName();
    if (!issuedByAnchor(certificate)) {
      throw new NotTrustedException(
          "certificate " + subject + " was not issued by this cluster's certificate authority");
    }
    if (revocations.revoked(certificate)) {
      throw new NotTrustedException(
          "certificate "
              + subject
              + " (serial "
              + certificate.getSerialNumber().toString(16)
              + ") is revoked");
    }
    Instant now = clock.instant();
    if (now.isBefore(certificate.getNotBefore().toInstant())
        || now.isAfter(certificate.getNotAfter().toInstant())) {
      throw new NotTrustedException(
          "certificate "
              + subject
              + " is not valid now (valid "
              + certificate.getNotBefore().toInstant()
              + " to "
              + certificate.getNotAfter().toInstant()
              + ")");
    }
    try {
      return new Peer(
          Identity.of(certificate),
          VerifyingKey.of(certificate.getPublicKey()),
          certificate.getNotAfter().toInstant(),
          certificate.getSerialNumber());
    } catch (IllegalArgumentException | IOException e) {
      throw new NotTrustedException(e.getMessage());
    }
  }

  private boolean issuedByAnchor(X509Certificate certificate) {
    for (X509Certificate anchor : anchors) {
      if (!anchor.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())) {
        continue;
      }
      try {
        certificate.verify(anchor.getPublicKey());
        return true;
      } catch (GeneralSecurityException e) {
        // another anchor with the same name may have signed it
      }
    }
    return false;
  }

  private static String digest(byte[] der) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
