package dev.berth.tools.qsub.session;

import com.google.protobuf.ByteString;
import dev.berth.core.Frames;
import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A stand-in for a mom's terminal port: takes one TLS connection, reads the attach frame and then
 * plays {@code script} against the client. Unless given another credential it shows node n01's
 * mom's, of a CA made for the tests ({@link #caCertificates}).
 */
final class StandInPort implements AutoCloseable {
  /** What the stand-in mom does once the client attached. */
  @FunctionalInterface
  interface Script {
    void play(Peer peer) throws Exception;
  }

  /** The client as the stand-in sees it. */
  static final class Peer {
    final TerminalIn attach;
    private final InputStream in;
    private final OutputStream out;

    Peer(TerminalIn attach, InputStream in, OutputStream out) {
      this.attach = attach;
      this.in = in;
      this.out = out;
    }

    /** The client's next frame, or null when it closed the connection. */
    TerminalIn read() throws IOException {
      return Frames.read(in, TerminalIn.parser(), 1 << 20);
    }

    void send(TerminalOut.Builder frame) throws IOException {
      Frames.write(out, frame.build());
    }

    void ready() throws IOException {
      send(TerminalOut.newBuilder().setReady(true));
    }

    void output(String text) throws IOException {
      send(TerminalOut.newBuilder().setOutput(com.google.protobuf.ByteString.copyFromUtf8(text)));
    }

    void exit(int status) throws IOException {
      send(TerminalOut.newBuilder().setExitStatus(status));
    }
  }

  private final ServerSocket listener;
  private final CompletableFuture<TerminalIn> attached = new CompletableFuture<>();
  private final CompletableFuture<Void> played = new CompletableFuture<>();

  private static TestPki.Ca ca;
  private static SSLContext n01;

  /**
   * The CA whose certificate for n01's mom the stand-in shows by default, as the server sends it.
   */
  static synchronized ByteString caCertificates() {
    if (ca == null) {
      try {
        ca = TestPki.ca("stand-in CA");
        n01 = ca.issue("urn:berth:mom:" + InteractiveSessions.NODE).serverContext();
      } catch (Exception e) {
        throw new IllegalStateException("cannot make the tests' CA", e);
      }
    }
    return ca.pem();
  }

  StandInPort(Script script) throws IOException {
    this(defaultCredential(), script);
  }

  private static synchronized SSLContext defaultCredential() {
    caCertificates();
    return n01;
  }

  StandInPort(SSLContext tls, Script script) throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    SSLServerSocket secure =
        (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(0, 1, loopback);
    secure.setEnabledProtocols(new String[] {"TLSv1.3"});
    listener = secure;
    Thread thread = new Thread(() -> serve(script), "stand-in-terminal-port");
    thread.setDaemon(true);
    thread.start();
  }

  String address() {
    InetSocketAddress at = (InetSocketAddress) listener.getLocalSocketAddress();
    return at.getAddress().getHostAddress() + ":" + at.getPort();
  }

  /** The attach frame the client sent. */
  TerminalIn attach() throws Exception {
    return attached.get(10, TimeUnit.SECONDS);
  }

  /** Waits for the script to end; rethrows what it failed with. */
  void played() throws Exception {
    played.get(10, TimeUnit.SECONDS);
  }

  private void serve(Script script) {
    try (Socket socket = listener.accept()) {
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      TerminalIn attach = Frames.read(in, TerminalIn.parser(), 1 << 20);
      attached.complete(attach);
      script.play(new Peer(attach, in, out));
      played.complete(null);
    } catch (Throwable e) {
      attached.completeExceptionally(e);
      played.completeExceptionally(e);
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
  }
}
