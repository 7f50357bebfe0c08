package dev.berth.server.journal.kafka;

import dev.berth.server.journal.JournalException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Looks at the brokers before any Kafka client is made, so that the common mistakes end in one
 * clear line at once: no broker listening (a client would only time out), and a plaintext client
 * pointed at a TLS listener. The second matters most: a Kafka client reads a TLS alert as the size
 * of a response of some 350 MB and tries to allocate it, which fails its network thread with an
 * OutOfMemoryError, inside the server's JVM.
 */
public final class BrokerProbe {
  private static final int TIMEOUT_MS = 5000;
  private static final short API_VERSIONS = 18;
  private static final int CORRELATION_ID = 0x6265_7274; // "bert"
  private static final byte[] CLIENT_ID = "berth-probe".getBytes(StandardCharsets.US_ASCII);

  private BrokerProbe() {}

  /**
   * Fails unless a broker of {@code brokers} accepts a connection and, for a plaintext client,
   * every broker that does answers a plaintext Kafka request.
   */
  public static void check(Brokers brokers) {
    List<String> unreachable = new ArrayList<>();
    for (String address : brokers.bootstrap().split(",")) {
      int colon = address.lastIndexOf(':');
      InetSocketAddress at =
          new InetSocketAddress(
              address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
      try (Socket socket = new Socket()) {
        try {
          socket.connect(at, TIMEOUT_MS);
        } catch (IOException e) {
          unreachable.add(address + ": " + e.getMessage());
          continue;
        }
        if (brokers.plaintext() && !answersPlaintextKafka(socket)) {
          throw new JournalException(
              "the Kafka broker at "
                  + address
                  + " does not answer a plaintext request (it may want TLS), and this server"
                  + " would connect in plaintext because the cluster runs without credentials:"
                  + " give the cluster credentials, or the journal a client config"
                  + " (kafka://...?config=FILE) with the broker's security settings");
        }
      } catch (IOException e) {
        // closing the probe's socket failed: nothing to do
      }
    }
    if (unreachable.size() == brokers.bootstrap().split(",").length) {
      throw new JournalException(
          "no Kafka broker answers at "
              + brokers.bootstrap()
              + " ("
              + String.join("; ", unreachable)
              + "): is it running, and is the address right?");
    }
  }

  /** Sends ApiVersions v0 in plaintext; true if a Kafka response to it comes back. */
  private static boolean answersPlaintextKafka(Socket socket) {
    try {
      socket.setSoTimeout(TIMEOUT_MS);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      out.writeInt(2 + 2 + 4 + 2 + CLIENT_ID.length);
      out.writeShort(API_VERSIONS);
      out.writeShort(0);
      out.writeInt(CORRELATION_ID);
      out.writeShort(CLIENT_ID.length);
      out.write(CLIENT_ID);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      int size = in.readInt(); // a TLS listener sends an alert record (0x15 0x03 ...) or closes
      return size >= 4 && size < (1 << 20) && in.readInt() == CORRELATION_ID;
    } catch (IOException e) {
      return false;
    }
  }
}
