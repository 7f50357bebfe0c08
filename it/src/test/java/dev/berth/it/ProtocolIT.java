package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The client socket under bad input: oversized frames, garbage, unknown request types and clients
 * that vanish mid-frame get an error or a closed connection, and the server keeps serving everyone
 * else.
 */
@Tag("integration")
class ProtocolIT {
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(false);
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
  }

  @Test
  void anOversizedFrameIsRefusedBeforeItsBodyIsRead() throws IOException {
    try (SocketChannel c = connect()) {
      write(c, varint(64 << 20)); // claims 64 MiB; nothing follows
      Response r = read(c);
      assertEquals(Error.Code.PROTOCOL, r.getError().getCode());
      assertTrue(r.getError().getMessage().contains("exceeds the limit"), r.toString());
      assertEquals(-1, c.read(ByteBuffer.allocate(1)), "the connection is closed");
    }
    assertServerAnswers();
  }

  @Test
  void garbageBytesGetAnErrorAndAClosedConnection() throws IOException {
    try (SocketChannel c = connect()) {
      byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x0f, 0x01};
      write(c, concat(varint(garbage.length), garbage));
      Response r = read(c);
      assertEquals(Error.Code.PROTOCOL, r.getError().getCode(), r.toString());
      assertEquals(-1, c.read(ByteBuffer.allocate(1)));
    }
    assertServerAnswers();
  }

  @Test
  void aMalformedLengthIsRefused() throws IOException {
    try (SocketChannel c = connect()) {
      write(c, new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1});
      assertEquals(Error.Code.PROTOCOL, read(c).getError().getCode());
    }
    assertServerAnswers();
  }

  @Test
  void anUnknownRequestTypeIsAnsweredAndTheConnectionStaysUsable() throws IOException {
    try (SocketChannel c = connect()) {
      // id = 7, then field 99 (a request type from some future client) = 1
      byte[] body = {0x08, 0x07, (byte) 0x98, 0x06, 0x01};
      write(c, concat(varint(body.length), body));
      Response r = read(c);
      assertEquals(7, r.getId());
      assertEquals(Error.Code.UNKNOWN_REQUEST, r.getError().getCode());
      Request stat =
          Request.newBuilder().setId(8).setStatServer(StatServer.getDefaultInstance()).build();
      write(c, frame(stat));
      Response ok = read(c);
      assertEquals(8, ok.getId());
      assertEquals(TestCluster.SERVER, ok.getServer().getName());
    }
  }

  @Test
  void clientsThatVanishMidFrameOrSitIdleDoNotStopOthers() throws IOException {
    for (int i = 0; i < 20; i++) {
      try (SocketChannel c = connect()) {
        write(c, concat(varint(1000), new byte[10])); // promised 1000 bytes, sends 10, leaves
      }
    }
    List<SocketChannel> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) {
        SocketChannel c = connect();
        write(c, varint(50)); // a frame that never completes
        idle.add(c);
      }
      assertServerAnswers();
    } finally {
      for (SocketChannel c : idle) {
        c.close();
      }
    }
  }

  private static void assertServerAnswers() throws IOException {
    try (SocketChannel c = connect()) {
      write(
          c,
          frame(
              Request.newBuilder()
                  .setId(1)
                  .setStatServer(StatServer.getDefaultInstance())
                  .build()));
      assertEquals(TestCluster.SERVER, read(c).getServer().getName());
    }
  }

  private static SocketChannel connect() throws IOException {
    SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
    c.connect(UnixDomainSocketAddress.of(cluster.socket));
    return c;
  }

  private static void write(SocketChannel c, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      c.write(b);
    }
  }

  private static Response read(SocketChannel c) throws IOException {
    InputStream in = Channels.newInputStream(c);
    int first = in.read();
    int size = CodedInputStream.readRawVarint32(first, in);
    return Response.parseFrom(in.readNBytes(size));
  }

  private static byte[] frame(Request r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.writeDelimitedTo(out);
    return out.toByteArray();
  }

  private static byte[] varint(int n) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    c.writeUInt32NoTag(n);
    c.flush();
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] r = new byte[a.length + b.length];
    System.arraycopy(a, 0, r, 0, a.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
