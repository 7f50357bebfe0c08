package dev.berth.it;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * A hostile program against a daemon's TCP port, run by the tests as a real process of another user
 * (or on another host). It uses nothing but the JDK.
 *
 * <ul>
 *   <li>{@code idle HOST PORT N}: keeps N connections that send nothing, opening another at once
 *       for each the port cuts.
 *   <li>{@code slow HOST PORT N SECONDS}: N connections that each begin a TLS handshake and send
 *       one more byte of it every SECONDS, never finishing it; another at once for each cut (a
 *       moment later if the port refused it as it opened).
 *   <li>{@code mute HOST PORT N}: N connections that complete a TLS handshake (trusting any
 *       certificate) and then send nothing, as a permit never shown; another at once for each cut
 *       (a moment later if the port refused it as it opened).
 * </ul>
 *
 * Prints {@code in place} once it has opened the first N (or tried for 10 s), and every second how
 * many are open now, how many it opened in all, how many the port cut, and how long the
 * longest-lived one lasted from its TCP handshake to its cut: {@code open=64 opened=19400 cut=19336
 * longest=10.2}. Runs until it is killed or its standard input closes (so that it does not outlive
 * a test that died).
 */
public final class PortAbuser {
  /** Connections whose TCP handshake is under way at once: the port's backlog is small. */
  private static final int CONNECTING = 1024;

  /**
   * When the attack is in place even if fewer than N were opened: a port that cuts them as it
   * accepts them, and accepts them no faster than it can, leaves the rest waiting in the kernel.
   */
  private static final long IN_PLACE_NANOS = 10_000_000_000L;

  private final InetSocketAddress port;
  private final int n;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger cut = new AtomicInteger();
  private final AtomicLong longestMillis = new AtomicLong();

  private PortAbuser(InetSocketAddress port, int n) {
    this.port = port;
    this.n = n;
  }

  public static void main(String[] args) throws Exception {
    SocketAbuser.exitWhenInputCloses();
    PortAbuser a =
        new PortAbuser(
            new InetSocketAddress(args[1], Integer.parseInt(args[2])), Integer.parseInt(args[3]));
    Thread report = new Thread(a::report, "report");
    report.setDaemon(true);
    report.start();
    switch (args[0]) {
      case "idle" -> a.plain(0);
      case "slow" -> a.plain(Integer.parseInt(args[4]) * 1000L);
      case "mute" -> a.mute();
      default -> throw new IllegalArgumentException("idle, slow or mute, not " + args[0]);
    }
  }

  private void report() {
    boolean inPlace = false;
    long start = System.nanoTime();
    while (true) {
      try {
        Thread.sleep(inPlace ? 1000 : 50);
      } catch (InterruptedException e) {
        return;
      }
      if (!inPlace) {
        inPlace = opened.get() >= n || System.nanoTime() - start > IN_PLACE_NANOS;
        if (inPlace) {
          System.out.println("in place");
        }
        continue;
      }
      System.out.printf(
          Locale.ROOT,
          "open=%d opened=%d cut=%d longest=%.1f%n",
          open.get(),
          opened.get(),
          cut.get(),
          longestMillis.get() / 1000.0);
    }
  }

  private void lived(long since) {
    long millis = (System.nanoTime() - since) / 1_000_000;
    longestMillis.accumulateAndGet(millis, Math::max);
    cut.incrementAndGet();
  }

  /**
   * A connection of {@link #plain}: since when it is connected (its lifetime counts from there, not
   * from a wait in the port's backlog), and when it last sent a byte.
   */
  private static final class Plain {
    long since = System.nanoTime();
    long sentAt = since;
    boolean connected;

    void connected() {
      connected = true;
      since = System.nanoTime();
    }
  }

  /**
   * N connections on one selector; with {@code everyMillis} above 0 each starts a TLS handshake
   * record and sends one byte of it that often.
   */
  private void plain(long everyMillis) throws IOException {
    Selector selector = Selector.open();
    int connecting = 0;
    ByteBuffer sink = ByteBuffer.allocate(4096);
    while (true) {
      while (open.get() < n && connecting < CONNECTING) {
        SocketChannel c = SocketChannel.open();
        c.configureBlocking(false);
        Plain p = new Plain();
        if (c.connect(port)) {
          p.connected();
          begin(c, p, everyMillis);
          c.register(selector, SelectionKey.OP_READ, p);
        } else {
          c.register(selector, SelectionKey.OP_CONNECT, p);
          connecting++;
        }
        open.incrementAndGet();
        opened.incrementAndGet();
      }
      selector.select(200);
      for (SelectionKey k : selector.selectedKeys()) {
        Plain p = (Plain) k.attachment();
        SocketChannel c = (SocketChannel) k.channel();
        try {
          if (k.isConnectable()) {
            connecting--;
            c.finishConnect();
            p.connected();
            begin(c, p, everyMillis);
            k.interestOps(SelectionKey.OP_READ);
          } else if (k.isReadable() && c.read(sink.clear()) < 0) {
            throw new IOException("closed by the port");
          }
        } catch (IOException gone) {
          if (!p.connected) {
            connecting--;
          }
          k.cancel();
          c.close();
          open.decrementAndGet();
          lived(p.since);
          if (everyMillis > 0) {
            pauseIfRefused(p.since); // slow, not a flood of connections
          }
        }
      }
      selector.selectedKeys().clear();
      if (everyMillis > 0) {
        trickle(selector, everyMillis);
      }
    }
  }

  /** The first bytes of a connection: none, or the header of a 16 KiB TLS handshake record. */
  private static void begin(SocketChannel c, Plain p, long everyMillis) throws IOException {
    if (everyMillis > 0) {
      c.write(ByteBuffer.wrap(new byte[] {0x16, 0x03, 0x01, 0x40, 0x00}));
      p.sentAt = System.nanoTime();
    }
  }

  /** One more byte on each connection whose time has come. */
  private void trickle(Selector selector, long everyMillis) {
    long now = System.nanoTime();
    for (SelectionKey k : selector.keys()) {
      Plain p = (Plain) k.attachment();
      if (p.connected && k.isValid() && (now - p.sentAt) / 1_000_000 >= everyMillis) {
        try {
          ((SocketChannel) k.channel()).write(ByteBuffer.wrap(new byte[] {1}));
          p.sentAt = now;
        } catch (IOException gone) {
          // the next select sees it closed
        }
      }
    }
  }

  /**
   * A moment's pause after a connection refused as it opened, so that the threads that get none do
   * not take the machine's CPUs from the daemon (and the test) in a loop.
   */
  private static void pauseIfRefused(long since) {
    if (System.nanoTime() - since < 1_000_000_000L) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** N threads, each holding a TLS connection that shows nothing, again as soon as it is cut. */
  private void mute() throws Exception {
    SSLContext tls = SSLContext.getInstance("TLSv1.3");
    tls.init(null, new TrustManager[] {new TrustingEveryone()}, null);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Thread t =
          new Thread(
              () -> {
                while (true) {
                  long since = System.nanoTime();
                  opened.incrementAndGet();
                  open.incrementAndGet();
                  try (Socket s = tls.getSocketFactory().createSocket()) {
                    s.connect(port, 10_000);
                    ((SSLSocket) s).startHandshake();
                    InputStream in = s.getInputStream();
                    while (in.read() >= 0) {
                      // what the port says before it cuts
                    }
                  } catch (IOException gone) {
                    // cut
                  }
                  open.decrementAndGet();
                  lived(since);
                  pauseIfRefused(since);
                }
              });
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  private static final class TrustingEveryone implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String type) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String type) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
