package dev.berth.mom.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JoinJob;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.seal.Seal;
import dev.berth.security.seal.SignedSeal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sister n2 checks the grants mother superiors show it. */
class GrantsTest {
  static final Duration YEAR = Duration.ofDays(365);
  @TempDir static Path dir;
  static CertificateAuthority ca;
  static Seal server;
  static Seal n1;
  static Seal n2;

  @BeforeAll
  static void credentials() throws IOException {
    Clock clock = Clock.systemUTC();
    ca = CertificateAuthority.create(dir.resolve("ca"), "t", YEAR, clock);
    server = seal(new Identity(Role.SERVER, "head"), clock);
    n1 = seal(new Identity(Role.MOM, "n1"), clock);
    n2 = seal(new Identity(Role.MOM, "n2"), clock);
  }

  static Seal seal(Identity id, Clock clock) throws IOException {
    return new SignedSeal(ca.issue(id, List.of(), YEAR, dir.resolve(id.name())), clock);
  }

  static Job job(String id, String owner) {
    return Job.newBuilder()
        .setId(id)
        .setEuser(owner)
        .addExecNodes(NodeAllocation.newBuilder().setNode("n1"))
        .addExecNodes(NodeAllocation.newBuilder().setNode("n2"))
        .build();
  }

  static Sealed grant(Seal by, String to, Job job) {
    return by.seal(
        Letter.newBuilder()
            .setTo(to)
            .setToMom(MomInbound.newBuilder().setRun(RunJob.newBuilder().setJob(job))));
  }

  static JoinJob join(Job claimed, Sealed grant) {
    return JoinJob.newBuilder().setJob(claimed).setMotherSuperior("n1").setGrant(grant).build();
  }

  @Test
  void theSisterTakesTheJobFromTheGrantNotFromTheRequest() throws NotTrustedException {
    Grants grants = new Grants(n2, "n2", Clock.systemUTC());
    Job real = job("1.h", "alice");
    JoinJob checked = grants.check(join(job("1.h", "root"), grant(server, "n1", real)));
    assertEquals("alice", checked.getJob().getEuser());
  }

  @Test
  void aGrantSealedByAMomIsRefused() {
    Grants grants = new Grants(n2, "n2", Clock.systemUTC());
    Job job = job("2.h", "alice");
    var e =
        assertThrows(
            NotTrustedException.class, () -> grants.check(join(job, grant(n1, "n1", job))));
    assertTrue(e.getMessage().contains("not the server's"), e.getMessage());
  }

  @Test
  void aGrantForAnotherMotherSuperiorOrJobOrNodeIsRefused() {
    Grants grants = new Grants(n2, "n2", Clock.systemUTC());
    Job job = job("3.h", "alice");
    assertThrows(
        NotTrustedException.class, () -> grants.check(join(job, grant(server, "n3", job))));
    assertThrows(
        NotTrustedException.class,
        () -> grants.check(join(job("4.h", "alice"), grant(server, "n1", job))));
    Job elsewhere =
        job.toBuilder()
            .clearExecNodes()
            .addExecNodes(NodeAllocation.newBuilder().setNode("n1"))
            .build();
    var e =
        assertThrows(
            NotTrustedException.class,
            () -> grants.check(join(elsewhere, grant(server, "n1", elsewhere))));
    assertTrue(e.getMessage().contains("did not place it on n2"), e.getMessage());
  }

  @Test
  void aGrantIsNotTakenAgainAfterItsJobEndedHereNorWhenOld() throws NotTrustedException {
    Job job = job("5.h", "alice");
    Sealed grant = grant(server, "n1", job);
    Instant now = Instant.now(); // the job ends here after the server sealed its grant
    Grants grants = new Grants(n2, "n2", Clock.fixed(now, ZoneOffset.UTC));
    grants.check(join(job, grant));
    grants.ended("5.h");
    var e = assertThrows(NotTrustedException.class, () -> grants.check(join(job, grant)));
    assertTrue(e.getMessage().contains("already ended here"), e.getMessage());

    Grants later =
        new Grants(
            n2, "n2", Clock.fixed(now.plus(Grants.VALIDITY).plusSeconds(60), ZoneOffset.UTC));
    e = assertThrows(NotTrustedException.class, () -> later.check(join(job, grant)));
    assertTrue(e.getMessage().contains("s ago"), e.getMessage());
  }
}
