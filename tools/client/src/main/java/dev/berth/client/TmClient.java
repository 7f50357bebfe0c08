package dev.berth.client;

import com.google.protobuf.ByteString;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmInput;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmNodes;
import dev.berth.proto.TmOutput;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSignal;
import dev.berth.proto.TmSpawn;
import dev.berth.proto.TmSpawned;
import dev.berth.proto.TmWait;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A connection to the task manager of the job the caller runs in (see {@code tm.proto}): requests
 * may overlap, each answer completes the future of the request it names, and relayed task output
 * goes to the listener given at connect time, on the reader thread, in the order it arrives. A
 * request the task manager refuses fails with {@link TmException}; when the connection ends, every
 * request still waiting fails with an {@link IOException}, whose message carries the reason of an
 * error that answered no request (the task manager refusing the connection). Thread-safe.
 */
public final class TmClient implements AutoCloseable {
  private final SocketChannel channel;
  private final Consumer<TmOutput> output;
  private final Object writeLock = new Object();
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, Pending<?>> pending = new ConcurrentHashMap<>();
  private volatile IOException ended;
  private volatile String refusal;

  private TmClient(SocketChannel channel, Consumer<TmOutput> output) {
    this.channel = channel;
    this.output = output;
  }

  /** Connects to the task manager's socket and starts the (daemon) reader thread. */
  public static TmClient connect(Path socket, Consumer<TmOutput> output) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      channel.connect(UnixDomainSocketAddress.of(socket));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    TmClient client = new TmClient(channel, output);
    Thread reader = new Thread(client::read, "tm-reader");
    reader.setDaemon(true);
    reader.start();
    return client;
  }

  /** The job's nodes, in exec_host order. */
  public CompletableFuture<TmNodeList> nodes() {
    return call(
        TmRequest.newBuilder().setNodes(TmNodes.getDefaultInstance()),
        TmResponse.BodyCase.NODES,
        TmResponse::getNodes);
  }

  /** Starts a task; completes once it runs. */
  public CompletableFuture<TmSpawned> spawn(TmSpawn spawn) {
    return call(
        TmRequest.newBuilder().setSpawn(spawn),
        TmResponse.BodyCase.SPAWNED,
        TmResponse::getSpawned);
  }

  /** Completes when the task has ended, after all of its relayed output has been delivered. */
  public CompletableFuture<TmExited> waitFor(int taskId) {
    return call(
        TmRequest.newBuilder().setWait(TmWait.newBuilder().setTaskId(taskId)),
        TmResponse.BodyCase.EXITED,
        TmResponse::getExited);
  }

  /** Sends a signal (by its number) to a task. */
  public CompletableFuture<Void> signal(int taskId, int signal) {
    return call(
        TmRequest.newBuilder().setSignal(TmSignal.newBuilder().setTaskId(taskId).setSignal(signal)),
        TmResponse.BodyCase.ACK,
        response -> null);
  }

  /** Feeds a relayed task's stdin; {@code eof} closes it. Never answered. */
  public void input(int taskId, byte[] data, boolean eof) throws IOException {
    TmInput.Builder input =
        TmInput.newBuilder().setTaskId(taskId).setData(ByteString.copyFrom(data)).setEof(eof);
    write(TmRequest.newBuilder().setId(nextId.getAndIncrement()).setInput(input).build());
  }

  /** Closes the connection; requests still waiting fail. */
  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing is all that was asked; the reader ends either way
    }
  }

  private <T> CompletableFuture<T> call(
      TmRequest.Builder request, TmResponse.BodyCase expected, Function<TmResponse, T> answer) {
    long id = nextId.getAndIncrement();
    Pending<T> waiting = new Pending<>(expected, answer);
    pending.put(id, waiting);
    // The reader sets `ended` before failing what is pending: either it sees this entry or we see
    // `ended`.
    IOException gone = ended;
    if (gone != null) {
      pending.remove(id);
      waiting.future.completeExceptionally(gone);
      return waiting.future;
    }
    try {
      write(request.setId(id).build());
    } catch (IOException e) {
      pending.remove(id);
      waiting.future.completeExceptionally(e);
    }
    return waiting.future;
  }

  private void write(TmRequest request) throws IOException {
    ByteArrayOutputStream frame = new ByteArrayOutputStream(64 + request.getSerializedSize());
    request.writeDelimitedTo(frame);
    ByteBuffer bytes = ByteBuffer.wrap(frame.toByteArray());
    synchronized (writeLock) {
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    }
  }

  private void read() {
    IOException end;
    try {
      InputStream in = new BufferedInputStream(new ChannelInput(channel), 1 << 16);
      TmResponse response;
      while ((response = TmResponse.parseDelimitedFrom(in)) != null) {
        dispatch(response);
      }
      end = new EOFException("the task manager closed the connection");
    } catch (IOException e) {
      end = channel.isOpen() ? e : new IOException("the connection was closed", e);
    } catch (RuntimeException e) {
      end = new IOException("the connection failed: " + e, e);
    }
    // A refusing task manager closes at once, so the reset may follow its reason: keep the reason.
    String why = refusal;
    ended = why == null ? end : new IOException("refused: " + why, end);
    close();
    for (Long id : pending.keySet()) {
      Pending<?> waiting = pending.remove(id);
      if (waiting != null) {
        waiting.future.completeExceptionally(ended);
      }
    }
  }

  private void dispatch(TmResponse response) {
    if (response.hasOutput()) {
      output.accept(response.getOutput());
      return;
    }
    Pending<?> waiting = pending.remove(response.getId());
    if (waiting != null) {
      waiting.complete(response);
    } else if (response.hasError()) {
      // not an answer: the task manager says why it is about to close the connection
      refusal = response.getError().getMessage();
    }
  }

  private static final class Pending<T> {
    final TmResponse.BodyCase expected;
    final Function<TmResponse, T> answer;
    final CompletableFuture<T> future = new CompletableFuture<>();

    Pending(TmResponse.BodyCase expected, Function<TmResponse, T> answer) {
      this.expected = expected;
      this.answer = answer;
    }

    void complete(TmResponse response) {
      if (response.hasError()) {
        future.completeExceptionally(new TmException(response.getError().getMessage()));
      } else if (response.getBodyCase() == expected) {
        future.complete(answer.apply(response));
      } else {
        future.completeExceptionally(
            new IOException(
                "the task manager answered request "
                    + response.getId()
                    + " with "
                    + response.getBodyCase()
                    + " instead of "
                    + expected));
      }
    }
  }

  /**
   * Reads the channel directly: in Java 17 the streams of {@code Channels.newInputStream} and
   * {@code newOutputStream} share the channel's blocking lock, so a blocked read would stall every
   * write.
   */
  private static final class ChannelInput extends InputStream {
    private final SocketChannel channel;

    ChannelInput(SocketChannel channel) {
      this.channel = channel;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return length == 0 ? 0 : channel.read(ByteBuffer.wrap(buffer, offset, length));
    }
  }
}
