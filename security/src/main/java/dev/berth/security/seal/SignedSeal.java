package dev.berth.security.seal;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.proto.Letter;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.pki.Credential;
import dev.berth.security.pki.TrustAnchors;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;

/** Letters signed with this daemon's credential, and checked against the cluster's CA. */
public final class SignedSeal implements Seal {
  private final Credential credential;
  private final ByteString certificate;
  private final Clock clock;

  public SignedSeal(Credential credential, Clock clock) {
    this.credential = credential;
    this.clock = clock;
    try {
      this.certificate = ByteString.copyFrom(credential.certificate().getEncoded());
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("cannot encode " + credential.identity(), e);
    }
  }

  @Override
  public Identity self() {
    return credential.identity();
  }

  @Override
  public List<X509Certificate> anchors() {
    return credential.trust().anchors();
  }

  @Override
  public Sealed seal(Letter.Builder letter) {
    byte[] bytes =
        letter
            .setFrom(self().name())
            .setFromRole(self().role().peerRole())
            .setSentMillis(clock.millis())
            .build()
            .toByteArray();
    return Sealed.newBuilder()
        .setLetter(ByteString.copyFrom(bytes))
        .setSignature(ByteString.copyFrom(credential.signingKey().sign(bytes)))
        .setCertificate(certificate)
        .build();
  }

  @Override
  public Opened open(Sealed sealed) throws NotTrustedException {
    Opened opened = openHandedOn(sealed);
    Letters.checkAddressedTo(opened, Seal.addressOf(self()));
    return opened;
  }

  @Override
  public Opened openHandedOn(Sealed sealed) throws NotTrustedException {
    if (sealed.getCertificate().isEmpty()) {
      throw new NotTrustedException("an unsigned letter (is its sender running with --insecure?)");
    }
    TrustAnchors.Peer peer = credential.trust().peer(sealed.getCertificate().toByteArray());
    byte[] bytes = sealed.getLetter().toByteArray();
    if (!peer.key().verifies(bytes, sealed.getSignature().toByteArray())) {
      throw new NotTrustedException("a letter whose signature is not " + peer.identity() + "'s");
    }
    Letter letter;
    try {
      letter = Letter.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new NotTrustedException("an unreadable letter from " + peer.identity());
    }
    Identity claimed = Letters.sender(letter);
    if (!claimed.equals(peer.identity())) {
      throw new NotTrustedException(
          "a letter that claims to come from " + claimed + " but is signed by " + peer.identity());
    }
    return new Opened(peer.identity(), letter);
  }
}
