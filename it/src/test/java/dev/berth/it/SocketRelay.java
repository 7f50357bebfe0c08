package dev.berth.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;

/**
 * A client that is nothing but bytes, for the integration tests' attacks: run as another user
 * ({@code java -cp TEST_CLASSES dev.berth.it.SocketRelay SOCKET N}), it connects to the server's
 * socket, sends its standard input as it is, and copies the first N length-delimited replies to
 * standard output, reading them while it still sends (as a client must: the server stops reading
 * one that leaves its replies unread). The kernel reports that user as the caller, and the requests
 * are whatever the test wrote, with no qsub in between. It uses nothing but the JDK, so the user
 * needs to read only this class (the test classes' directory is readable to all, as PortAbuser's
 * runs show).
 */
final class SocketRelay {
  private SocketRelay() {}

  public static void main(String[] args) throws IOException {
    int replies = Integer.parseInt(args[1]);
    try (SocketChannel server = SocketChannel.open(UnixDomainSocketAddress.of(args[0]))) {
      ByteBuffer requests = ByteBuffer.wrap(System.in.readAllBytes());
      Thread writer =
          new Thread(
              () -> {
                try {
                  while (requests.hasRemaining()) {
                    server.write(requests);
                  }
                } catch (IOException e) {
                  // the server closed the connection: the replies read so far say what it did
                }
              });
      writer.setDaemon(true);
      writer.start();
      InputStream in = Channels.newInputStream(server);
      OutputStream out = System.out;
      for (int i = 0; i < replies; i++) {
        int length = 0;
        int shift = 0;
        int b;
        do {
          b = in.read();
          if (b < 0) {
            return;
          }
          out.write(b);
          length |= (b & 0x7f) << shift;
          shift += 7;
        } while ((b & 0x80) != 0);
        out.write(in.readNBytes(length));
      }
      out.flush();
    }
  }
}
