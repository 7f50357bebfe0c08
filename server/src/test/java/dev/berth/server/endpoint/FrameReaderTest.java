package dev.berth.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Length-delimited frames from a non-blocking channel that hands out bytes in arbitrary pieces. */
class FrameReaderTest {
  private static final int LIMIT = 64 * 1024;

  /** A channel that returns the scripted pieces one read at a time, then end of stream. */
  static final class Pieces implements ReadableByteChannel {
    private final Deque<ByteBuffer> pieces = new ArrayDeque<>();
    int reads;

    Pieces(byte[]... parts) {
      for (byte[] p : parts) {
        pieces.add(ByteBuffer.wrap(p));
      }
    }

    @Override
    public int read(ByteBuffer dst) {
      reads++;
      ByteBuffer head = pieces.peek();
      if (head == null) {
        return -1;
      }
      int n = Math.min(head.remaining(), dst.remaining());
      ByteBuffer slice = head.slice();
      slice.limit(n);
      dst.put(slice);
      head.position(head.position() + n);
      if (!head.hasRemaining()) {
        pieces.poll();
      }
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }

  static byte[] frame(byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    c.writeUInt32NoTag(body.length);
    c.writeRawBytes(body);
    c.flush();
    return out.toByteArray();
  }

  static byte[] body(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (seed * 31 + i);
    }
    return b;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Reads until end of stream, taking every complete frame after each read. */
  static List<byte[]> readAll(FrameReader reader, ReadableByteChannel channel) throws Exception {
    List<byte[]> frames = new ArrayList<>();
    while (true) {
      if (reader.growth() > 0) {
        reader.grow();
      }
      int n = reader.readFrom(channel);
      FrameReader.Frame f;
      while ((f = reader.poll()) != null) {
        byte[] b = new byte[f.bytes().remaining()];
        f.bytes().get(b);
        frames.add(b);
      }
      if (n < 0) {
        return frames;
      }
    }
  }

  private static void assertFrames(List<byte[]> expected, List<byte[]> actual, String context) {
    assertEquals(expected.size(), actual.size(), context + ": number of frames");
    for (int i = 0; i < expected.size(); i++) {
      assertArrayEquals(expected.get(i), actual.get(i), context + ": frame " + i);
    }
  }

  @Test
  void framesSplitAtEveryByteBoundaryAreReassembled() throws Exception {
    List<byte[]> bodies = List.of(body(3, 1), body(0, 2), body(200, 3), body(5000, 4));
    byte[] stream = concat(bodies.stream().map(FrameReaderTest::frameOf).toArray(byte[][]::new));
    for (int cut = 0; cut <= stream.length; cut++) {
      byte[] first = Arrays.copyOfRange(stream, 0, cut);
      byte[] second = Arrays.copyOfRange(stream, cut, stream.length);
      assertFrames(
          bodies, readAll(new FrameReader(LIMIT), new Pieces(first, second)), "cut " + cut);
    }
  }

  @Test
  void framesArrivingOneByteAtATimeAreReassembled() throws Exception {
    List<byte[]> bodies = List.of(body(130, 1), body(1, 2), body(4097, 3));
    byte[] stream = concat(bodies.stream().map(FrameReaderTest::frameOf).toArray(byte[][]::new));
    byte[][] bytes = new byte[stream.length][];
    for (int i = 0; i < stream.length; i++) {
      bytes[i] = new byte[] {stream[i]};
    }
    assertFrames(bodies, readAll(new FrameReader(LIMIT), new Pieces(bytes)), "byte by byte");
  }

  @Test
  void severalFramesInOneReadComeOutInOrder() throws Exception {
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      bodies.add(body(i * 7, i));
    }
    byte[] stream = concat(bodies.stream().map(FrameReaderTest::frameOf).toArray(byte[][]::new));
    Pieces channel = new Pieces(stream);
    assertFrames(bodies, readAll(new FrameReader(LIMIT), channel), "one read");
  }

  @Test
  void aFrameLargerThanTheBufferGrowsIt() throws Exception {
    byte[] big = body(LIMIT, 9);
    assertFrames(
        List.of(big, body(2, 1)),
        readAll(new FrameReader(LIMIT), new Pieces(frameOf(big), frameOf(body(2, 1)))),
        "at the limit");
  }

  @Test
  void aZeroLengthFrameIsAFrame() throws Exception {
    FrameReader reader = withRoom(LIMIT);
    reader.readFrom(new Pieces(new byte[] {0, 0, 1, 42}));
    assertEquals(0, reader.poll().bytes().remaining());
    assertEquals(0, reader.poll().bytes().remaining());
    assertEquals(ByteBuffer.wrap(new byte[] {42}), reader.poll().bytes());
    assertNull(reader.poll());
  }

  @Test
  void aLengthOverTheLimitIsRefusedBeforeAnyOfTheBodyArrives() throws Exception {
    FrameReader reader = withRoom(100);
    byte[] header = frameOf(new byte[101]);
    reader.readFrom(new Pieces(Arrays.copyOf(header, 1))); // varint 101 is one byte
    FrameReader.FrameException e = assertThrows(FrameReader.FrameException.class, reader::poll);
    assertEquals(Error.Code.PROTOCOL, e.code());
    assertEquals("request frame of 101 bytes exceeds the limit of 100 bytes", e.getMessage());
  }

  @Test
  void aHugeLengthIsRefusedWithItsTrueSize() throws Exception {
    FrameReader reader = withRoom(LIMIT);
    // 0xFFFFFFFF: five bytes, the last carrying the top four bits
    reader.readFrom(
        new Pieces(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F}));
    FrameReader.FrameException e = assertThrows(FrameReader.FrameException.class, reader::poll);
    assertEquals(Error.Code.PROTOCOL, e.code());
    assertTrue(e.getMessage().contains("4294967295 bytes exceeds the limit"), e.getMessage());
  }

  @Test
  void aLengthThatDoesNotFitIn32BitsIsNotReadAsASmallOne() throws Exception {
    FrameReader reader = withRoom(LIMIT);
    // 2^32 in five varint bytes: it must not wrap around to a zero-length frame
    reader.readFrom(
        new Pieces(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10, 7, 7}));
    FrameReader.FrameException e = assertThrows(FrameReader.FrameException.class, reader::poll);
    assertEquals(Error.Code.PROTOCOL, e.code());
  }

  @Test
  void aLengthOfMoreThanFiveBytesIsMalformed() throws Exception {
    FrameReader reader = withRoom(LIMIT);
    reader.readFrom(new Pieces(new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80}));
    assertNull(reader.poll(), "four bytes of a length: wait for more");
    reader.readFrom(new Pieces(new byte[] {(byte) 0x80}));
    FrameReader.FrameException e = assertThrows(FrameReader.FrameException.class, reader::poll);
    assertEquals(Error.Code.PROTOCOL, e.code());
    assertEquals("malformed frame length", e.getMessage());
  }

  @Test
  void endOfStreamIsReported() throws Exception {
    FrameReader reader = withRoom(LIMIT);
    assertEquals(-1, reader.readFrom(new Pieces()));
    assertNull(reader.poll());
  }

  @Test
  void writtenResponsesReadBackAsFrames() throws Exception {
    FrameWriter writer = new FrameWriter();
    List<Response> responses = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Response r =
          Response.newBuilder()
              .setId(i)
              .setAck(Ack.newBuilder().setMessage("x".repeat(i * 100)))
              .build();
      responses.add(r);
      int size = r.getSerializedSize();
      assertEquals(CodedOutputStream.computeUInt32SizeNoTag(size) + size, writer.add(r));
    }
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    int[] budget = {0};
    WritableByteChannel slow =
        new WritableByteChannel() {
          @Override
          public int write(ByteBuffer src) {
            int n = Math.min(src.remaining(), budget[0]);
            for (int i = 0; i < n; i++) {
              sink.write(src.get());
            }
            budget[0] -= n;
            return n;
          }

          @Override
          public boolean isOpen() {
            return true;
          }

          @Override
          public void close() {}
        };
    long held = writer.held();
    int rounds = 0;
    long written = 0;
    while (!writer.isEmpty()) {
      budget[0] = 37; // the socket takes a little at a time
      written += writer.writeTo(slow);
      assertTrue(writer.held() <= held, "what is written is given back");
      rounds++;
    }
    assertTrue(rounds > 1, "the writer resumed where it stopped");
    assertEquals(held, written, "it held exactly the bytes it wrote");
    assertEquals(0, writer.held());
    List<byte[]> frames = readAll(new FrameReader(LIMIT), new Pieces(sink.toByteArray()));
    List<Response> back = new ArrayList<>();
    for (byte[] f : frames) {
      back.add(Response.parseFrom(f));
    }
    assertEquals(responses, back);
  }

  @Test
  void aNewReaderHoldsNothingAndAsksForItsFirstBuffer() {
    FrameReader reader = new FrameReader(LIMIT);
    assertEquals(0, reader.capacity());
    assertEquals(FrameReader.FIRST_CAPACITY, reader.growth());
    reader.grow();
    assertEquals(FrameReader.FIRST_CAPACITY, reader.capacity());
    assertEquals(0, reader.growth(), "room left: no growth");
  }

  @Test
  void aDeclaredLengthAloneAllocatesNothing() throws Exception {
    FrameReader reader = withRoom(16 << 20);
    reader.readFrom(new Pieces(concat(varintOf(16 << 20), new byte[10])));
    assertNull(reader.poll(), "16 MiB announced, 10 bytes of it sent");
    assertEquals(FrameReader.FIRST_CAPACITY, reader.capacity());
    assertEquals(0, reader.growth(), "room for more of it: no growth yet");
  }

  @Test
  void theBufferGrowsInStepsWithTheBytesThatArrive() throws Exception {
    int size = 1 << 20;
    byte[] stream = frameOf(body(size, 5));
    FrameReader reader = withRoom(16 << 20);
    int arrived = 0;
    int steps = 0;
    while (arrived < stream.length) {
      if (reader.growth() > 0) {
        int before = reader.capacity();
        reader.grow();
        steps++;
        assertTrue(reader.capacity() <= 2 * before, "at most doubles: " + reader.capacity());
      }
      int piece = Math.min(1000, stream.length - arrived);
      arrived += reader.readFrom(new Pieces(Arrays.copyOfRange(stream, arrived, arrived + piece)));
      assertTrue(
          reader.capacity() <= Math.max(FrameReader.FIRST_CAPACITY, 2 * arrived),
          reader.capacity() + " bytes held after " + arrived + " arrived");
      if (arrived < stream.length) {
        assertNull(reader.poll());
      }
    }
    assertEquals(stream.length, reader.capacity(), "the last step stops at the frame's end");
    assertEquals(9, steps, "4 KiB doubled eight times, then the rest of the frame");
    assertEquals(size, reader.poll().size());
  }

  @Test
  void theBufferShrinksBackOnceTheLargeFrameIsTaken() throws Exception {
    byte[] big = frameOf(body(50_000, 1));
    FrameReader reader = new FrameReader(LIMIT);
    readAll(reader, new Pieces(big));
    assertTrue(reader.capacity() >= 50_000);
    assertEquals(50_003 - FrameReader.FIRST_CAPACITY, reader.shrink());
    assertEquals(FrameReader.FIRST_CAPACITY, reader.capacity());
    assertEquals(0, reader.shrink(), "nothing more to give back");
  }

  @Test
  void aBufferHoldingFurtherFramesIsNotShrunk() throws Exception {
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      bodies.add(body(10, i));
    }
    Pieces channel =
        new Pieces(concat(bodies.stream().map(FrameReaderTest::frameOf).toArray(byte[][]::new)));
    FrameReader reader = withRoom(LIMIT);
    reader.readFrom(channel);
    reader.grow(); // full of whole frames: room to read on
    reader.readFrom(channel);
    assertEquals(2 * FrameReader.FIRST_CAPACITY, reader.capacity());
    List<byte[]> frames = new ArrayList<>();
    ByteBuffer first = reader.poll().bytes();
    frames.add(Arrays.copyOfRange(first.array(), 0, first.remaining()));
    assertEquals(0, reader.shrink(), "the frames after it are kept");
    frames.addAll(readAll(reader, channel));
    assertFrames(bodies, frames, "no frame lost");
  }

  private static FrameReader withRoom(int limit) {
    FrameReader reader = new FrameReader(limit);
    reader.grow();
    return reader;
  }

  private static byte[] varintOf(int n) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      c.writeUInt32NoTag(n);
      c.flush();
      return out.toByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] frameOf(byte[] body) {
    try {
      return frame(body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
