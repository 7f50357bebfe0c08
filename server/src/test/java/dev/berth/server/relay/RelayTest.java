package dev.berth.server.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedOutputStream;
import dev.berth.core.Frames;
import dev.berth.proto.Ack;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.proto.RelayFrame;
import dev.berth.proto.RelayedRequest;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerFrame;
import dev.berth.proto.StatJobs;
import dev.berth.proto.SubmitJob;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.tls.TlsContexts;
import dev.berth.server.command.Caller;
import dev.berth.server.endpoint.ClientEndpoint;
import dev.berth.server.endpoint.ClientLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay and the server's relay port on real sockets with real credentials of a test CA: who the
 * server takes the caller for, what it refuses, and how the relay follows a takeover.
 */
@Timeout(60)
class RelayTest {
  private static final ClientLimits LIMITS =
      ClientLimits.defaults(Runtime.getRuntime().maxMemory()).with("frame=1mb");

  @TempDir static Path pki;

  private static SSLContext serverTls;
  private static SSLContext loginTls;
  private static SSLContext otherLoginTls;
  private static SSLContext momTls;

  @TempDir Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final BlockingQueue<Caller> callers = new LinkedBlockingQueue<>();

  @BeforeAll
  static void credentials() throws Exception {
    Clock clock = Clock.systemUTC();
    CertificateAuthority ca =
        CertificateAuthority.create(pki.resolve("ca"), "relay-test", Duration.ofDays(1), clock);
    serverTls = tls(ca, new Identity(Role.SERVER, "head1"));
    loginTls = tls(ca, new Identity(Role.SUBMIT, "login1"));
    otherLoginTls = tls(ca, new Identity(Role.SUBMIT, "login2"));
    momTls = tls(ca, new Identity(Role.MOM, "n01"));
  }

  private static SSLContext tls(CertificateAuthority ca, Identity who) throws Exception {
    Path d = pki.resolve(who.role().word() + "-" + who.name());
    ca.issue(who, List.of(), Duration.ofDays(1), d);
    return TlsContexts.of(Credential.load(d, Clock.systemUTC()));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void theServerTakesTheCallerTheRelaysKernelSawOnTheHostItsCredentialNames() throws Exception {
    RelayPort port = port(acking(), host -> null);
    Path socket = relay(List.of(port.address()), Duration.ofSeconds(30));

    Response r = call(socket, stat());

    assertEquals(Response.BodyCase.ACK, r.getBodyCase());
    Caller caller = callers.take();
    assertEquals(System.getProperty("user.name"), caller.user());
    assertEquals("login1", caller.host());
    assertTrue(caller.relayed());
  }

  @Test
  void aHostTheServerDoesNotAdmitIsRefusedWithItsReason() throws Exception {
    RelayPort port = port(acking(), host -> "access from host " + host + " not allowed: no");
    Path socket = relay(List.of(port.address()), Duration.ofSeconds(30));

    Response r = call(socket, stat());

    assertEquals(Error.Code.BAD_HOST, r.getError().getCode());
    assertEquals("access from host login1 not allowed: no", r.getError().getMessage());
    assertTrue(callers.isEmpty());
  }

  @Test
  void aMomCredentialIsNotASubmitHost() throws Exception {
    RelayPort port = port(acking(), host -> null);
    try (SSLSocket s = connect(momTls, port.address())) {
      try {
        write(s.getOutputStream(), relayed("alice", stat()));
      } catch (IOException refused) {
        // the port may have cut it already: TLS 1.3 ends the handshake on this side first
      }
      assertHungUp(s);
    }
    assertTrue(callers.isEmpty());
  }

  @Test
  void aPeerWithoutACredentialOfTheClusterCannotShakeHands() throws Exception {
    RelayPort port = port(acking(), host -> null);
    SSLContext stranger = SSLContext.getInstance("TLSv1.3");
    stranger.init(null, new javax.net.ssl.TrustManager[] {new TrustingEveryone()}, null);
    try (SSLSocket s = (SSLSocket) stranger.getSocketFactory().createSocket()) {
      s.connect(port.address(), 5000);
      s.setSoTimeout(20_000);
      try {
        s.startHandshake();
        write(s.getOutputStream(), relayed("alice", stat()));
      } catch (IOException refused) {
        // the server may refuse during the handshake or after it
      }
      assertHungUp(s);
    }
    assertTrue(callers.isEmpty());
  }

  @Test
  void aRelayedCallerMustBeAValidUserName() throws Exception {
    RelayPort port = port(acking(), host -> null);
    try (SSLSocket s = connect(loginTls, port.address())) {
      write(s.getOutputStream(), relayed("alice@head1", stat()));
      Response r = Frames.read(s.getInputStream(), ServerFrame.parser(), 1 << 20).getResponse();
      assertEquals(Error.Code.PROTOCOL, r.getError().getCode());
    }
    assertTrue(callers.isEmpty());
  }

  @Test
  void aFrameOverTheLimitEndsTheConnection() throws Exception {
    RelayPort port = port(acking(), host -> null);
    try (SSLSocket s = connect(loginTls, port.address())) {
      OutputStream out = s.getOutputStream();
      CodedOutputStream coded = CodedOutputStream.newInstance(out);
      coded.writeUInt32NoTag(64 << 20); // says 64 MiB are coming; the limit is 1 MiB
      coded.flush();
      out.flush();
      assertHungUp(s);
    }
    assertTrue(callers.isEmpty());
  }

  @Test
  void queriesAndSubmissionsInFlightGoToTheNextServerWhenTheirsIsLost() throws Exception {
    CompletableFuture<Response> never = new CompletableFuture<>();
    RelayPort first = port((request, caller) -> never, host -> null);
    RelayPort second = port(acking(), host -> null);
    Path socket = relay(List.of(first.address(), second.address()), Duration.ofSeconds(30));
    try (SocketChannel query = open(socket);
        SocketChannel submit = open(socket);
        SocketChannel delete = open(socket)) {
      send(query, stat());
      send(submit, Request.newBuilder().setSubmit(SubmitJob.newBuilder().setSubmissionId("s-1")));
      send(delete, Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId("1.head1")));
      awaitCalls(3);

      first.close(); // the active server is lost with all three unanswered

      assertEquals(Response.BodyCase.ACK, receive(query).getBodyCase());
      assertEquals(Response.BodyCase.ACK, receive(submit).getBodyCase());
      Response deleted = receive(delete);
      assertEquals(Error.Code.SYSTEM, deleted.getError().getCode());
      assertTrue(
          deleted.getError().getMessage().contains("the request may have taken effect"),
          deleted.getError().getMessage());
    }
  }

  @Test
  void aRequestWaitsForAServerForThePatienceAndThenSaysNoneAnswers() throws Exception {
    InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", freePort());
    Path socket = relay(List.of(nobody), Duration.ofMillis(600));

    Response r = call(socket, stat());

    assertEquals(Error.Code.SYSTEM, r.getError().getCode());
    assertTrue(r.getError().getMessage().startsWith("no Berth server answers at 127.0.0.1:"));
  }

  @Test
  void theRelayAsksTheServerWhetherAMomMayDeliverOutputToItsHost() throws Exception {
    RelayPort port = port(acking(), host -> null);
    relay(List.of(port.address()), Duration.ofSeconds(30));

    OutputGrant granted = upstream.check("5.head1", "n01", "o").toCompletableFuture().get();
    OutputGrant refused = upstream.check("5.head1", "n02", "o").toCompletableFuture().get();

    assertEquals("5.head1", granted.getJob().getId());
    assertEquals("login1", granted.getJob().getEuser(), "the server knew the relay's host");
    assertEquals("not n02", refused.getRefusal());
  }

  /**
   * Something that holds a mom's credential and answers at a server's address (a taken-over node, a
   * wrong DNS answer) hears nothing: the relay talks only to a server's credential.
   */
  @Test
  void theRelayTalksOnlyToACredentialOfAServer() throws Exception {
    RelayPort impostor =
        new RelayPort(
            new InetSocketAddress("127.0.0.1", 0),
            momTls, // a relay port, but with a mom's credential
            (request, caller) -> {
              callers.add(caller);
              return acking().handle(request, caller);
            },
            gate(host -> null),
            LIMITS);
    open.add(impostor);
    Path socket = relay(List.of(impostor.address()), Duration.ofMillis(1500));

    Response r = call(socket, stat());

    assertTrue(
        r.getError().getMessage().startsWith("no Berth server answers at 127.0.0.1:"),
        r.toString());
    assertTrue(r.getError().getMessage().contains("not of a server"), r.getError().getMessage());
    assertTrue(callers.isEmpty(), "the impostor heard nothing");
  }

  /**
   * A relay that sends requests and reads none of the replies is no longer read from once its
   * unread replies fill its host's share of the port's budget (four frames), and dropped after the
   * stall time: it cannot make the server hold more than that. (Without the drop it would hold the
   * connection, and the replies, for good: its writes would block instead of failing.)
   */
  @Test
  void aRelayThatReadsNoRepliesIsDropped() throws Exception {
    String big = "x".repeat(1 << 20);
    RelayPort port =
        new RelayPort(
            new InetSocketAddress("127.0.0.1", 0),
            serverTls,
            (request, caller) ->
                CompletableFuture.completedFuture(
                    Response.newBuilder().setAck(Ack.newBuilder().setMessage(big)).build()),
            gate(host -> null),
            LIMITS.with("frame=256kb,stall=500ms"));
    open.add(port);
    try (java.net.Socket plain = new java.net.Socket()) {
      plain.connect(port.address(), 5000);
      SSLSocket s =
          (SSLSocket)
              loginTls.getSocketFactory().createSocket(plain, "127.0.0.1", plain.getPort(), true);
      s.startHandshake();
      OutputStream out = s.getOutputStream();
      CompletableFuture<Void> writing =
          CompletableFuture.runAsync(
              () -> {
                try {
                  while (true) { // until the port drops the connection
                    relayed("alice", stat()).writeDelimitedTo(out);
                    out.flush();
                  }
                } catch (IOException dropped) {
                  throw new java.io.UncheckedIOException(dropped);
                }
              });
      try {
        writing.get(20, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        assertTrue(e.getCause() instanceof java.io.UncheckedIOException, e.toString());
      } catch (java.util.concurrent.TimeoutException e) {
        plain.close(); // frees the blocked writer
        throw new AssertionError(
            "the port still holds the connection of a relay that reads nothing");
      }
    }
  }

  /**
   * A taken-over login host that sends large requests the server is slow to answer has at most its
   * host's share of them read (four frames) and is dropped once it has found no room for the stall
   * time, while another host's relay is still answered.
   */
  @Test
  void aHostsRequestsInProgressAreHeldToItsShare() throws Exception {
    RelayPort port =
        new RelayPort(
            new InetSocketAddress("127.0.0.1", 0),
            serverTls,
            (request, caller) -> {
              callers.add(caller);
              return caller.host().equals("login1")
                  ? new CompletableFuture<>() // never answered
                  : acking().handle(request, caller);
            },
            gate(host -> null),
            LIMITS.with("frame=64kb,stall=1s"));
    open.add(port);
    RelayFrame large =
        relayed(
            "alice",
            Request.newBuilder()
                .setStatJobs(StatJobs.newBuilder().addJobIds("x".repeat(60 << 10))));
    try (SSLSocket flooding = connect(loginTls, port.address())) {
      for (int i = 0; i < 10; i++) {
        write(flooding.getOutputStream(), large);
      }
      awaitCalls(4);
      try (SSLSocket other = connect(otherLoginTls, port.address())) {
        write(other.getOutputStream(), relayed("bob", stat()));
        Response r =
            Frames.read(other.getInputStream(), ServerFrame.parser(), 1 << 20).getResponse();
        assertEquals(Response.BodyCase.ACK, r.getBodyCase(), "login2 is answered meanwhile");
      }
      assertHungUp(flooding); // after the stall: by then a fifth request would have been read
    }
    assertEquals("login2", callers.take().host());
    assertTrue(callers.isEmpty(), "login1 had no more than four requests read: " + callers);
  }

  @Test
  void onlyQueriesAndSubmissionsWithAnIdAreSentTwice() {
    assertTrue(Upstream.resendable(stat().build()));
    assertTrue(
        Upstream.resendable(
            Request.newBuilder().setSubmit(SubmitJob.newBuilder().setSubmissionId("x")).build()));
    assertFalse(
        Upstream.resendable(Request.newBuilder().setSubmit(SubmitJob.newBuilder()).build()));
    assertFalse(
        Upstream.resendable(
            Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId("1.s")).build()));
  }

  // -- the parts

  /** The handler that answers every request with an ack and notes who asked. */
  private ClientEndpoint.Handler acking() {
    return (request, caller) ->
        CompletableFuture.completedFuture(
            Response.newBuilder().setAck(Ack.newBuilder().setMessage("ok")).build());
  }

  private RelayPort port(ClientEndpoint.Handler handler, Function<String, String> refusal)
      throws IOException {
    RelayPort port =
        new RelayPort(
            new InetSocketAddress("127.0.0.1", 0),
            serverTls,
            (request, caller) -> {
              callers.add(caller);
              return handler.handle(request, caller);
            },
            gate(refusal),
            LIMITS);
    open.add(port);
    return port;
  }

  /** Waits until the servers' handlers have been handed {@code n} requests. */
  private void awaitCalls(int n) throws InterruptedException {
    for (int i = 0; i < n; i++) {
      callers.take();
    }
  }

  /** Admits what {@code refusal} admits; grants output to node n01 only. */
  private static RelayPort.Gate gate(Function<String, String> refusal) {
    return new RelayPort.Gate() {
      @Override
      public String refusal(String host) {
        return refusal.apply(host);
      }

      @Override
      public OutputGrant outputGrant(String host, OutputCheck check) {
        return check.getNode().equals("n01")
            ? OutputGrant.newBuilder()
                .setJob(Job.newBuilder().setId(check.getJobId()).setEuser(host))
                .build()
            : OutputGrant.newBuilder().setRefusal("not " + check.getNode()).build();
      }
    };
  }

  private Upstream upstream;

  private Path relay(List<InetSocketAddress> servers, Duration patience) throws IOException {
    Path socket = dir.resolve("relay.sock");
    upstream = new Upstream(servers, loginTls, patience, Duration.ofSeconds(30));
    Relay relay =
        new Relay(
            socket, upstream, ClientLimits.defaults(Runtime.getRuntime().maxMemory()), "login1");
    open.add(relay);
    return socket;
  }

  private static Request.Builder stat() {
    return Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance());
  }

  private static RelayFrame relayed(String user, Request.Builder request) {
    return RelayFrame.newBuilder()
        .setRequest(
            RelayedRequest.newBuilder()
                .setUser(user)
                .setGroup("users")
                .setRequest(request.setId(7)))
        .build();
  }

  private static SSLSocket connect(SSLContext tls, InetSocketAddress address) throws IOException {
    SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket();
    s.connect(address, 5000);
    s.setSoTimeout(20_000);
    s.startHandshake();
    return s;
  }

  /** The port ended the connection without answering: the end of the stream, or a TLS alert. */
  private static void assertHungUp(SSLSocket s) {
    try {
      assertEquals(-1, s.getInputStream().read(), "the port answered");
    } catch (IOException ended) {
      // refused with an alert, or reset
    }
  }

  private static void write(OutputStream out, RelayFrame r) throws IOException {
    r.writeDelimitedTo(out);
    out.flush();
  }

  private Response call(Path socket, Request.Builder request) throws IOException {
    try (SocketChannel c = open(socket)) {
      send(c, request);
      return receive(c);
    }
  }

  private static SocketChannel open(Path socket) throws IOException {
    SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
    c.connect(UnixDomainSocketAddress.of(socket));
    return c;
  }

  private static void send(SocketChannel c, Request.Builder request) throws IOException {
    OutputStream out = Channels.newOutputStream(c);
    request.setId(1).build().writeDelimitedTo(out);
    out.flush();
  }

  private static Response receive(SocketChannel c) throws IOException {
    InputStream in = Channels.newInputStream(c);
    Response r = Frames.read(in, Response.parser(), 1 << 20);
    if (r == null) {
      throw new IOException("the relay hung up without an answer");
    }
    return r;
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A client that trusts any server and has no certificate of its own. */
  private static final class TrustingEveryone implements javax.net.ssl.X509TrustManager {
    @Override
    public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String type) {}

    @Override
    public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String type) {}

    @Override
    public java.security.cert.X509Certificate[] getAcceptedIssuers() {
      return new java.security.cert.X509Certificate[0];
    }
  }
}
