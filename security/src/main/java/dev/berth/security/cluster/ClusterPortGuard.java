package dev.berth.security.cluster;

import dev.berth.core.QuietLog;
import dev.berth.security.net.SourceSlots;
import dev.berth.security.net.Sources;
import java.io.IOException;
import java.net.Socket;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import jdk.net.ExtendedSocketOptions;
import org.apache.pekko.io.Inet;

/**
 * Which connections the cluster port keeps: at most so many in all and so many per source ({@link
 * Sources}: every address of this host is one), counted from the moment Pekko accepts one until it
 * has closed it. Beyond either bound a connection is cut at once, before TLS begins, and the
 * refusal logged at most once a while per source and kind. A kept connection gets TCP keepalive, so
 * that one whose host vanished (no FIN, no RST) gives back its slot within minutes.
 *
 * <p>Pekko hands each accepted socket to {@link #option()} ({@link ClusterPortMailbox}).
 */
final class ClusterPortGuard {
  /** Keepalive probes after this long without traffic, this often, this many before giving up. */
  static final int KEEPALIVE_IDLE_SECONDS = 60;

  static final int KEEPALIVE_INTERVAL_SECONDS = 10;
  static final int KEEPALIVE_PROBES = 6;

  /** How often at most the slots of closed connections are looked for, when none is free. */
  private static final long SWEEP_NANOS = 100_000_000L;

  private final SourceSlots slots;
  private final QuietLog refusals;
  private final Map<Socket, String> kept = new ConcurrentHashMap<>();
  private final AtomicLong sweptAt = new AtomicLong(System.nanoTime() - SWEEP_NANOS);

  ClusterPortGuard(ClusterPort.Limits limits, QuietLog refusals) {
    this.slots = new SourceSlots(limits.connections(), limits.connectionsPerSource());
    this.refusals = refusals;
  }

  /** What Pekko applies to each socket it accepts. */
  Inet.SocketOption option() {
    return new Inet.AbstractSocketOptionV2() {
      @Override
      public void afterConnect(Socket socket) {
        accepted(socket);
      }
    };
  }

  /** A socket Pekko has just accepted: kept, or cut. */
  void accepted(Socket socket) {
    String source = Sources.of(socket.getInetAddress());
    SourceSlots.Refusal full = slots.take(source);
    if (full != null && sweep()) {
      full = slots.take(source);
    }
    if (full != null) {
      refusals.say(
          source,
          full == SourceSlots.Refusal.ALL ? "connections" : "connections of one source",
          "refused a cluster connection from "
              + socket.getRemoteSocketAddress()
              + ": "
              + (full == SourceSlots.Refusal.ALL
                  ? slots.total() + " are open"
                  : slots.perSource() + " of " + source + " are open"));
      cut(socket);
      return;
    }
    kept.put(socket, source);
    keepAlive(socket);
  }

  /** Connections counted now (open, or closed since the last look). */
  int counted() {
    return slots.taken();
  }

  /**
   * Gives back the slots of connections Pekko has closed since the last look; false when it looked
   * a moment ago.
   */
  boolean sweep() {
    long now = System.nanoTime();
    long last = sweptAt.get();
    if (now - last < SWEEP_NANOS || !sweptAt.compareAndSet(last, now)) {
      return false;
    }
    for (Iterator<Map.Entry<Socket, String>> it = kept.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Socket, String> e = it.next();
      if (e.getKey().isClosed()) {
        it.remove();
        slots.release(e.getValue());
      }
    }
    return true;
  }

  /**
   * Ends the connection without closing its socket, which is Pekko's to close: Pekko reads its end
   * at once and tears the connection down. A reset, not a FIN, when it closes.
   */
  private static void cut(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
      socket.shutdownInput();
      socket.shutdownOutput();
    } catch (IOException e) {
      // gone already
    }
  }

  private static void keepAlive(Socket socket) {
    try {
      socket.setKeepAlive(true);
      socket.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
      socket.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
      socket.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_PROBES);
    } catch (IOException | UnsupportedOperationException e) {
      // the system's keepalive times, or none: the connection works all the same
    }
  }
}
