package dev.berth.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A hostile local user's program, run by the tests as a real process of another user, so that the
 * server knows it by the kernel's word. It uses nothing but the JDK: that user cannot read the
 * build's libraries.
 *
 * <ul>
 *   <li>{@code announce SOCKET N BYTES}: opens N connections, each announcing a frame of BYTES and
 *       sending 1 KiB of it, then another 1 KiB on each, and holds them.
 *   <li>{@code flood SOCKET N FRAME_HEX}: sends the frame N times on one connection and reads
 *       nothing; when the server drops it (or refuses it), does it again.
 *   <li>{@code trickle SOCKET N BYTES}: keeps N connections, each announcing a frame of BYTES and
 *       sending 1 KiB more of it every 100 ms, reading nothing; one the server closes is opened
 *       again at once.
 *   <li>{@code connect SOCKET N}: connects, reads until the server closes, and connects again, as
 *       fast as it can; says so after N.
 * </ul>
 *
 * Prints one line when the attack is in place, then runs until it is killed or its standard input
 * closes (so that it does not outlive a test that died).
 */
public final class SocketAbuser {
  private SocketAbuser() {}

  /**
   * Ends this process when its standard input closes, as it does when the test that started it ends
   * or dies, so that no attacker outlives its test.
   */
  static void exitWhenInputCloses() {
    Thread untilInputCloses =
        new Thread(
            () -> {
              try {
                System.in.transferTo(OutputStream.nullOutputStream());
              } catch (IOException ignored) {
                // closed either way
              }
              System.exit(0);
            });
    untilInputCloses.setDaemon(true);
    untilInputCloses.start();
  }

  public static void main(String[] args) throws Exception {
    exitWhenInputCloses();
    UnixDomainSocketAddress socket = UnixDomainSocketAddress.of(args[1]);
    int n = Integer.parseInt(args[2]);
    switch (args[0]) {
      case "announce" -> announce(socket, n, Integer.parseInt(args[3]));
      case "flood" -> flood(socket, n, HexFormat.of().parseHex(args[3]));
      case "trickle" -> trickle(socket, n, Integer.parseInt(args[3]));
      case "connect" -> connect(socket, n);
      default ->
          throw new IllegalArgumentException("announce, flood, trickle or connect, not " + args[0]);
    }
  }

  /** The varint length of a frame of {@code bytes}. */
  private static byte[] length(int bytes) {
    ByteArrayOutputStream header = new ByteArrayOutputStream();
    for (long v = bytes; ; v >>>= 7) {
      if (v < 0x80) {
        header.write((int) v);
        return header.toByteArray();
      }
      header.write((int) (v & 0x7f) | 0x80);
    }
  }

  private static void announce(UnixDomainSocketAddress socket, int n, int bytes)
      throws IOException, InterruptedException {
    List<SocketChannel> held = new ArrayList<>();
    ByteArrayOutputStream header = new ByteArrayOutputStream();
    header.write(length(bytes));
    header.write(new byte[1024]);
    for (int i = 0; i < n; i++) {
      SocketChannel c = SocketChannel.open(socket);
      send(c, header.toByteArray());
      held.add(c);
    }
    for (SocketChannel c : held) {
      send(c, new byte[1024]); // more of the body, read after the length: room for all of it?
    }
    System.out.println("announced " + bytes + " bytes on " + n + " connections");
    Thread.currentThread().join(); // hold them until killed
  }

  private static void trickle(UnixDomainSocketAddress socket, int n, int bytes)
      throws InterruptedException {
    SocketChannel[] held = new SocketChannel[n];
    long reopened = 0;
    for (int round = 0; ; round++) {
      for (int i = 0; i < n; i++) {
        try {
          if (held[i] == null) {
            held[i] = SocketChannel.open(socket);
            held[i].configureBlocking(false);
            held[i].write(ByteBuffer.wrap(length(bytes)));
            reopened += round > 0 ? 1 : 0;
          } else {
            held[i].write(ByteBuffer.wrap(new byte[1024]));
          }
        } catch (IOException closed) {
          close(held[i]);
          held[i] = null; // opened again next round
        }
      }
      if (round == 0) {
        System.out.println("trickling " + bytes + "-byte requests on " + n + " connections");
      } else if (round % 100 == 0) {
        System.out.println("round " + round + ": " + reopened + " connections opened again");
      }
      Thread.sleep(100);
    }
  }

  private static void close(SocketChannel c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (IOException ignored) {
      // gone either way
    }
  }

  private static void connect(UnixDomainSocketAddress socket, int n) {
    ByteBuffer sink = ByteBuffer.allocate(4096);
    for (long i = 1; ; i++) {
      try (SocketChannel c = SocketChannel.open(socket)) {
        while (c.read(sink.clear()) >= 0) {
          // the refusal, until the server closes
        }
      } catch (IOException refused) {
        // closed on us: the same
      }
      if (i == n) {
        System.out.println("connected and was refused " + n + " times");
      }
    }
  }

  private static void send(SocketChannel c, byte[] bytes) {
    try {
      c.write(ByteBuffer.wrap(bytes));
    } catch (IOException refused) {
      // the server hung up on this one: that is its answer
    }
  }

  private static void flood(UnixDomainSocketAddress socket, int n, byte[] frame)
      throws IOException, InterruptedException {
    byte[] requests = new byte[n * frame.length];
    for (int i = 0; i < n; i++) {
      System.arraycopy(frame, 0, requests, i * frame.length, frame.length);
    }
    for (int round = 1; ; round++) {
      try (SocketChannel c = SocketChannel.open(socket)) {
        c.configureBlocking(false);
        ByteBuffer b = ByteBuffer.wrap(requests);
        while (b.hasRemaining() && c.write(b) > 0) {
          // as much as the socket takes; the replies are never read
        }
        System.out.println(
            "flood " + round + ": sent " + b.position() + " bytes of " + n + " requests");
        awaitHangUp(c);
      } catch (IOException hungUpAtOnce) {
        // refused (too many connections of this user): try again
      }
      Thread.sleep(100);
    }
  }

  /** Waits until the server closes the connection, without reading it. */
  private static void awaitHangUp(SocketChannel c) throws InterruptedException {
    ByteBuffer empty = ByteBuffer.wrap(new byte[] {0}); // an empty frame, should it get through
    while (true) {
      try {
        c.write(empty.rewind());
      } catch (IOException hungUp) {
        return;
      }
      Thread.sleep(100);
    }
  }
}
