package dev.berth.mom.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.os.PeerCredentials;
import dev.berth.proto.TmNodes;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The node's one task-manager socket on a real Unix socket, with the kernel's word on each peer: a
 * connection reaches the job that admits its process and no other, and a process no job admits (an
 * unprivileged user's) is refused with the reason, whatever it sends.
 */
class TmSocketTest {
  private static final long ME = ProcessHandle.current().pid();

  @TempDir Path dir;
  private TmSocket socket;

  /** What one job's task manager heard. */
  private static final class Heard implements TmEndpoint.Handler {
    final LinkedBlockingQueue<TmRequest> requests = new LinkedBlockingQueue<>();
    final List<Long> closed = new CopyOnWriteArrayList<>();

    @Override
    public void request(long connection, TmRequest request, Runnable done) {
      requests.add(request);
      done.run();
    }

    @Override
    public void closed(long connection) {
      closed.add(connection);
    }
  }

  @BeforeAll
  static void loadNative() {
    NativeLibrary.load(Path.of("target/native", NativeLibrary.FILE).toAbsolutePath());
  }

  @BeforeEach
  void open() throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    socket = TmSocket.open(dir.resolve("n1"), LoggerFactory.getLogger(TmSocketTest.class));
  }

  @AfterEach
  void close() {
    socket.close();
  }

  private static Predicate<PeerCredentials.Peer> pid(long pid) {
    return peer -> peer.pid() == pid;
  }

  private SocketChannel connect() throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channel.connect(UnixDomainSocketAddress.of(socket.path()));
    return channel;
  }

  private static TmRequest nodes(long id) {
    return TmRequest.newBuilder().setId(id).setNodes(TmNodes.getDefaultInstance()).build();
  }

  @Test
  void aConnectionReachesTheOneJobThatAdmitsItsProcess() throws Exception {
    Heard other = new Heard();
    Heard mine = new Heard();
    socket.serve("1.srv", pid(ME + 1_000_000), other);
    socket.serve("2.srv", pid(ME), mine);
    try (SocketChannel channel = connect()) {
      nodes(7).writeDelimitedTo(Channels.newOutputStream(channel));
      assertEquals(nodes(7), mine.requests.poll(10, TimeUnit.SECONDS));
    }
    assertTrue(other.requests.isEmpty(), "the connection was 2.srv's alone");
  }

  @Test
  void aProcessOfNoJobHereIsRefusedWithTheReason() throws Exception {
    socket.serve("1.srv", pid(ME + 1_000_000), new Heard());
    try (SocketChannel channel = connect()) { // refused at once, before it could send anything
      TmResponse answer = TmResponse.parseDelimitedFrom(Channels.newInputStream(channel));
      assertEquals(
          "refused process " + ME + " (uid 0): it is not a process of a job this node runs",
          answer.getError().getMessage());
    }
  }

  @Test
  void aProcessTwoJobsAdmitIsRefusedAndNamesBoth() throws Exception {
    socket.serve("1.srv", pid(ME), new Heard());
    socket.serve("2.srv", pid(ME), new Heard());
    try (SocketChannel channel = connect()) {
      TmResponse answer = TmResponse.parseDelimitedFrom(Channels.newInputStream(channel));
      assertTrue(
          answer.getError().getMessage().endsWith("a process of more than one job (1.srv, 2.srv)"),
          answer.toString());
    }
  }

  @Test
  void aJobThatEndedTakesNoConnectionAndItsOpenOnesClose() throws Exception {
    Heard heard = new Heard();
    TmEndpoint job = socket.serve("1.srv", pid(ME), heard);
    SocketChannel open = connect();
    nodes(1).writeDelimitedTo(Channels.newOutputStream(open));
    assertEquals(nodes(1), heard.requests.poll(10, TimeUnit.SECONDS));
    job.close();
    try (InputStream in = Channels.newInputStream(open)) {
      assertEquals(-1, in.read(), "the job's connection is closed with it");
    }
    try (SocketChannel late = connect()) {
      TmResponse answer = TmResponse.parseDelimitedFrom(Channels.newInputStream(late));
      assertTrue(
          answer.getError().getMessage().contains("not a process of a job"), answer.toString());
    }
  }

  /**
   * An unprivileged user's process (nobody) connects and claims to be whatever it likes: the socket
   * goes by the kernel's word on it, so the root-owned job's task manager never hears it.
   */
  @Test
  void anUnprivilegedProcessCannotReachAnotherUsersJob() throws Exception {
    Heard heard = new Heard();
    socket.serve("1.srv", peer -> peer.uid() == 0, heard);
    String client =
        "import socket,sys\n"
            + "s=socket.socket(socket.AF_UNIX)\n"
            + "s.connect(sys.argv[1])\n"
            + "try: s.sendall(bytes([4,8,1,0x52,0]))\n" // TmRequest{id: 1, nodes {}}, delimited
            + "except OSError: pass\n" // refused before it was read: the answer is there anyway
            + "sys.stdout.write(s.recv(4096)[2:].decode('utf-8','replace'))\n";
    Process nobody =
        new ProcessBuilder(
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                client,
                socket.path().toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(nobody.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(nobody.waitFor(10, TimeUnit.SECONDS));
    assertTrue(said.contains("(uid 65534): it is not a process of a job this node runs"), said);
    assertTrue(heard.requests.isEmpty());
    assertFalse(said.contains("1.srv"), "the refusal does not tell which jobs run here");
  }
}
