package dev.berth.security.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.proto.KillJob;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.PeerRole;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SealTest {
  private static final Duration YEAR = Duration.ofDays(365);
  private static final Clock CLOCK = Clock.systemUTC();

  @TempDir static Path dir;
  static Seal server;
  static Seal node1;
  static Seal node2;
  static Seal stranger;

  @BeforeAll
  static void credentials() throws IOException {
    CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "c", YEAR, CLOCK);
    server = seal(ca, new Identity(Role.SERVER, "head"));
    node1 = seal(ca, new Identity(Role.MOM, "n1"));
    node2 = seal(ca, new Identity(Role.MOM, "n2"));
    CertificateAuthority other = CertificateAuthority.create(dir.resolve("x"), "x", YEAR, CLOCK);
    stranger = seal(other, new Identity(Role.SERVER, "head"));
  }

  private static Seal seal(CertificateAuthority ca, Identity id) throws IOException {
    Path d = dir.resolve(ca.certificate().getSerialNumber() + "-" + id.name());
    return new SignedSeal(ca.issue(id, List.of(), YEAR, d), CLOCK);
  }

  private static Letter.Builder kill(String to) {
    return Letter.newBuilder()
        .setTo(to)
        .setToMom(MomInbound.newBuilder().setKill(KillJob.newBuilder().setJobId("1.h")));
  }

  @Test
  void theReceiverLearnsTheSenderFromTheSignature() throws NotTrustedException {
    Seal.Opened opened = node1.open(server.seal(kill("n1")));
    assertEquals(new Identity(Role.SERVER, "head"), opened.from());
    assertEquals("1.h", opened.letter().getToMom().getKill().getJobId());
  }

  @Test
  void aLetterForAnotherNodeIsRefused() {
    Sealed forN1 = server.seal(kill("n1"));
    NotTrustedException e = assertThrows(NotTrustedException.class, () -> node2.open(forN1));
    assertTrue(e.getMessage().contains("addressed to 'n1'"), e.getMessage());
  }

  @Test
  void aMomCannotSignAsTheServer() {
    // n1 writes a letter claiming to come from the server, and signs it with its own key.
    Sealed own = node1.seal(kill("n2"));
    Letter forged =
        Letter.newBuilder()
            .mergeFrom(parse(own))
            .setFrom("head")
            .setFromRole(PeerRole.PEER_SERVER)
            .build();
    Sealed claim = own.toBuilder().setLetter(forged.toByteString()).build();
    NotTrustedException e = assertThrows(NotTrustedException.class, () -> node2.open(claim));
    assertTrue(e.getMessage().contains("signature"), e.getMessage());
  }

  @Test
  void aMomCannotPassItsLetterOffAsAnotherNodes() throws NotTrustedException {
    Sealed own = node1.seal(kill("n2"));
    // Re-sign a letter claiming n2 with n1's key: the signature is good, the claim is not.
    Letter claim = Letter.newBuilder().mergeFrom(parse(own)).setFrom("n2").build();
    Sealed resigned = node1.seal(claim.toBuilder());
    assertEquals("n1", node2.open(resigned).from().name(), "the seal fills in the real sender");
    Sealed spliced =
        own.toBuilder().setLetter(claim.toByteString()).setSignature(own.getSignature()).build();
    assertThrows(NotTrustedException.class, () -> node2.open(spliced));
  }

  @Test
  void anotherAuthoritysCredentialIsRefused() {
    NotTrustedException e =
        assertThrows(NotTrustedException.class, () -> node1.open(stranger.seal(kill("n1"))));
    assertTrue(e.getMessage().contains("not issued by this cluster"), e.getMessage());
  }

  @Test
  void anUnsignedLetterIsRefused() {
    Sealed insecure = new InsecureSeal(new Identity(Role.SERVER, "head"), CLOCK).seal(kill("n1"));
    NotTrustedException e = assertThrows(NotTrustedException.class, () -> node1.open(insecure));
    assertTrue(e.getMessage().contains("--insecure"), e.getMessage());
  }

  @Test
  void aFlippedBitBreaksTheSeal() {
    Sealed good = server.seal(kill("n1"));
    byte[] bytes = good.getLetter().toByteArray();
    bytes[bytes.length - 1] ^= 1;
    Sealed bad = good.toBuilder().setLetter(ByteString.copyFrom(bytes)).build();
    assertThrows(NotTrustedException.class, () -> node1.open(bad));
  }

  @Test
  void aGrantHandedOnOpensForItsChecker() throws NotTrustedException {
    Sealed grant = server.seal(kill("n1"));
    Seal.Opened opened = node2.openHandedOn(grant);
    assertEquals("n1", opened.letter().getTo());
    assertEquals(Role.SERVER, opened.from().role());
  }

  private static Letter parse(Sealed s) {
    try {
      return Letter.parseFrom(s.getLetter());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
