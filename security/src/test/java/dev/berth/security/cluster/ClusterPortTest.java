package dev.berth.security.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.tls.TlsContexts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Artery over mutual TLS with the cluster port's bounds, in real actor systems on the loopback
 * address (every connection here comes from this host, one source): connections beyond the source's
 * share or the total are cut as they are accepted, one that does not finish its TLS handshake is
 * cut at the deadline however slowly it sends, and members still talk once the attackers are gone.
 */
class ClusterPortTest {
  private static final Duration YEAR = Duration.ofDays(365);

  /**
   * Short, since four tests each wait it out; long enough that what is refused at once (in
   * milliseconds) is told apart from what waits for it on a busy machine.
   */
  private static final Duration HANDSHAKE = Duration.ofSeconds(2);

  @TempDir static Path dir;
  static Credential server;
  static Credential mom;

  private final List<ActorSystem> systems = new ArrayList<>();
  private final List<Socket> attackers = new ArrayList<>();
  private final ExecutorService readers = Executors.newCachedThreadPool();

  @BeforeAll
  static void credentials() throws IOException {
    CertificateAuthority ca =
        CertificateAuthority.create(dir.resolve("ca"), "c", YEAR, Clock.systemUTC());
    server = ca.issue(new Identity(Role.SERVER, "head"), List.of(), YEAR, dir.resolve("s"));
    mom = ca.issue(new Identity(Role.MOM, "n1"), List.of(), YEAR, dir.resolve("m"));
  }

  @AfterEach
  void stop() throws IOException {
    readers.shutdownNow();
    for (Socket s : attackers) {
      s.close();
    }
    for (ActorSystem s : systems) {
      s.terminate();
    }
  }

  /** Answers every message with itself. */
  static final class Echo extends AbstractActor {
    @Override
    public Receive createReceive() {
      return receiveBuilder().matchAny(m -> getSender().tell(m, getSelf())).build();
    }
  }

  private ActorSystem member(Credential credential, int connections, int perSource)
      throws Exception {
    Config config =
        ConfigFactory.parseString(
                String.join(
                    "\n",
                    "pekko.actor.provider = remote",
                    "pekko.loglevel = WARNING",
                    "pekko.remote.artery.canonical.hostname = 127.0.0.1",
                    "pekko.remote.artery.canonical.port = 0",
                    "berth.cluster-port.connections = " + connections,
                    "berth.cluster-port.connections-per-source = " + perSource,
                    "berth.cluster-port.handshake = " + HANDSHAKE.toMillis() + "ms"))
            .withFallback(ConfigFactory.load());
    ActorSystem system =
        ActorSystem.create(
            "berth",
            ClusterPort.setup(config, TlsContexts.of(credential), Set.of(Role.SERVER, Role.MOM)));
    systems.add(system);
    return system;
  }

  private static int port(ActorSystem system) {
    return (Integer) ((ExtendedActorSystem) system).provider().getDefaultAddress().port().get();
  }

  private Socket attack(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    attackers.add(s);
    return s;
  }

  /**
   * Waits, reading, until the port ends {@code s}; how long that took since {@code since}. What an
   * attacker reads before is the port's TLS alert, if any.
   */
  private static Duration awaitCut(Socket s, long since) {
    try {
      s.setSoTimeout(60_000);
      InputStream in = s.getInputStream();
      while (in.read() >= 0) {
        // an alert
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("not cut within 60 s");
    } catch (IOException reset) {
      // cut with a reset
    }
    return Duration.ofNanos(System.nanoTime() - since);
  }

  /**
   * Opens {@code n} connections at once and waits until the port has cut each; how long each
   * lasted, shortest first.
   */
  private List<Duration> lifetimes(int port, int n) throws Exception {
    long start = System.nanoTime();
    List<CompletableFuture<Duration>> cuts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Socket s = attack(port);
      cuts.add(CompletableFuture.supplyAsync(() -> awaitCut(s, start), readers));
    }
    List<Duration> lifetimes = new ArrayList<>();
    for (CompletableFuture<Duration> c : cuts) {
      lifetimes.add(c.get());
    }
    Collections.sort(lifetimes);
    return lifetimes;
  }

  /**
   * Of {@code lifetimes}, the first {@code refused} were cut as they were accepted: before every
   * other was, which lasted until the handshake deadline.
   */
  private static void assertCutAtOnce(int refused, List<Duration> lifetimes) {
    Duration lastRefused = lifetimes.get(refused - 1);
    Duration firstKept = lifetimes.get(refused);
    assertTrue(lastRefused.compareTo(firstKept) < 0, "cut together: " + lifetimes);
    assertTrue(firstKept.compareTo(HANDSHAKE) >= 0, "kept ones cut early: " + lifetimes);
    assertTrue(lastRefused.compareTo(HANDSHAKE) < 0, "refused ones cut late: " + lifetimes);
  }

  @Test
  void beyondItsShareASourcesConnectionsAreCutAsTheyAreAcceptedAndTheRestAtTheDeadline()
      throws Exception {
    assertCutAtOnce(2, lifetimes(port(member(server, 100, 6)), 8));
  }

  @Test
  void beyondTheTotalConnectionsAreCutAsTheyAreAccepted() throws Exception {
    assertCutAtOnce(1, lifetimes(port(member(server, 4, 100)), 5));
  }

  @Test
  void aHandshakeNotDoneInTimeIsCutHoweverSlowlyItsBytesCome() throws Exception {
    int port = port(member(server, 100, 50));
    Socket slow = attack(port);
    long start = System.nanoTime();
    OutputStream out = slow.getOutputStream();
    out.write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00}); // a handshake record of 512 bytes
    slow.setSoTimeout(200);
    Duration took = null;
    for (int i = 0; i < 512 && took == null; i++) {
      try {
        out.write(0x01); // a byte now and then, as a peer that never finishes
        out.flush();
        if (slow.getInputStream().read() < 0) {
          took = Duration.ofNanos(System.nanoTime() - start);
        }
      } catch (SocketTimeoutException quiet) {
        // nothing said yet: send the next byte
      } catch (IOException cut) {
        took = Duration.ofNanos(System.nanoTime() - start);
      }
    }
    assertTrue(took != null, "never cut");
    assertTrue(took.compareTo(HANDSHAKE) >= 0, "cut early: " + took);
    assertTrue(took.compareTo(HANDSHAKE.plusSeconds(20)) < 0, "cut late: " + took);
  }

  @Test
  void membersTalkOnceTheAttackersConnectionsAreGone() throws Exception {
    ActorSystem head = member(server, 100, 4);
    head.actorOf(Props.create(Echo.class), "echo");
    int port = port(head);
    lifetimes(port, 4); // this host's share, taken until the deadline
    ActorSystem node = member(mom, 100, 4);
    Object answer =
        Patterns.ask(
                node.actorSelection("pekko://berth@127.0.0.1:" + port + "/user/echo"),
                "ping",
                Duration.ofSeconds(60))
            .toCompletableFuture()
            .get();
    assertEquals("ping", answer);
    ClusterPortGuard guard =
        ((ExtendedActorSystem) head)
            .settings()
            .setup()
            .get(ClusterPort.Guarded.class)
            .get()
            .guard();
    assertTrue(guard.counted() <= 4, "slots counted: " + guard.counted());
  }

  @Test
  void theLimitsAreAnEighthOfTheHeapUnlessTheSettingsSayOtherwise() {
    ClusterPort.Limits d = ClusterPort.Limits.forHeap(2L << 30);
    assertEquals(new ClusterPort.Limits(2048, 64, Duration.ofSeconds(10)), d);
    assertEquals(256L << 20, d.bytes());
    ClusterPort.Limits set =
        ClusterPort.Limits.of(
            ConfigFactory.parseString(
                "berth.cluster-port { connections = 9000, connections-per-source = 8,"
                    + " handshake = 3s }"));
    assertEquals(new ClusterPort.Limits(9000, 8, Duration.ofSeconds(3)), set);
    IllegalArgumentException bad =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                ClusterPort.Limits.of(
                    ConfigFactory.parseString("berth.cluster-port.connections = 0")));
    assertTrue(bad.getMessage().contains("berth.cluster-port"), bad.getMessage());
  }

  @Test
  void anEngineKnowsWhenItsFirstHandshakeIsDone() throws Exception {
    javax.net.ssl.SSLEngine engine = TlsContexts.of(server).createSSLEngine();
    engine.setUseClientMode(false);
    engine.beginHandshake();
    assertTrue(!ArteryHandshakes.finished(engine));
  }
}
