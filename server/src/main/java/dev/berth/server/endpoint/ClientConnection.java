package dev.berth.server.endpoint;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.core.QuietLog;
import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.server.command.Caller;
import dev.berth.server.endpoint.ClientLimits.Limit;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection, on the selector thread. It reads a request, answers it, and reads on only
 * once the answer is written, so a client that sends requests without reading the replies is no
 * longer read from: it is throttled, and dropped if it stays so. Every byte it buffers is taken
 * from its user's budget first; when the budget says no, the connection waits, throttled, until
 * some is given back.
 */
final class ClientConnection {
  private static final Logger log = LoggerFactory.getLogger(ClientConnection.class);

  /** What a connection needs from the endpoint that owns it. */
  interface Owner {
    /** Runs {@code step} for {@code c} on the selector thread; callable from any thread. */
    void execute(ClientConnection c, Step step);

    /** {@code c} waits for its user's budget: take it up again once some is given back. */
    void throttled(ClientConnection c);

    ClientEndpoint.Handler handler();

    ClientLimits limits();

    QuietLog complaints();

    /** Milliseconds on a clock that only moves forward. */
    long now();
  }

  /** A piece of a connection's work; an I/O failure ends the connection. */
  interface Step {
    void run() throws IOException;
  }

  private final SelectionKey key;
  private final Caller caller;
  private final ClientBudgets.Account account;
  private final Owner owner;
  private final ClientLimits limits;
  private final FrameReader reader;
  private final FrameWriter writer = new FrameWriter();

  /** A request read and not yet started (its user has too many in progress). */
  private Request request;

  /** The size of the request read and not yet answered, counted in the user's budget. */
  private int requestBytes;

  private boolean busy;
  private boolean closeAfterWrite;
  private boolean closed;
  private boolean toldUnread;
  private Limit throttledBy;
  private long throttledSince;
  private long lastRead;
  private long lastWritten;

  ClientConnection(SelectionKey key, Caller caller, ClientBudgets.Account account, Owner owner) {
    this.key = key;
    this.caller = caller;
    this.account = account;
    this.owner = owner;
    this.limits = owner.limits();
    this.reader = new FrameReader(limits.frameBytes());
    this.lastRead = owner.now();
  }

  String user() {
    return caller.user();
  }

  void readable() throws IOException {
    int n = reader.readFrom(channel());
    if (n < 0) {
      close(); // the client went away, possibly in the middle of a frame
      return;
    }
    lastRead = owner.now();
    advance();
  }

  void writable() throws IOException {
    flush();
    advance();
  }

  /** Takes every step this connection can take now, then waits for what it needs next. */
  void advance() throws IOException {
    while (!closed) {
      if (!writer.isEmpty()) {
        waitForTheClientToRead();
        return;
      }
      if (closeAfterWrite) {
        close();
        return;
      }
      if (busy) {
        interest(0);
        return;
      }
      if (request == null) {
        if (!takeFrame()) {
          readMore();
          return;
        }
      } else if (!start()) {
        return;
      }
    }
  }

  /**
   * Drops the connection if it has been throttled for longer than the stall limit, or closes it if
   * it has sent nothing for longer than the idle limit.
   */
  void sweep(long now) {
    long stall = limits.stall().toMillis();
    if (closed) {
      return; // its key goes at the next select
    } else if (!writer.isEmpty() && now - lastWritten > stall) {
      drop("it read none of its replies for longer than " + limits.describe(Limit.STALL));
    } else if (throttledBy != null && now - throttledSince > stall) {
      drop(
          "it stayed throttled at "
              + limits.describe(throttledBy)
              + " for longer than "
              + limits.describe(Limit.STALL));
    } else if (!busy
        && request == null
        && writer.isEmpty()
        && throttledBy == null
        && now - Math.max(lastRead, lastWritten) > limits.idle().toMillis()) {
      close();
    }
  }

  /** Closes the connection and gives back what it held (a request in progress gives back later). */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    key.cancel();
    try {
      key.channel().close();
    } catch (IOException ignored) {
      // already gone
    }
    account.releaseRequestBytes(reader.capacity());
    account.releaseReply(writer.held());
    if (!busy) {
      releaseRequest();
    }
    account.disconnect();
  }

  /**
   * Takes the next whole frame from the buffer: a request to start, or an error to answer. False if
   * no frame is complete yet.
   */
  private boolean takeFrame() throws IOException {
    FrameReader.Frame frame;
    try {
      frame = reader.poll();
    } catch (FrameReader.FrameException e) {
      refuse(e.code(), e.getMessage());
      return true;
    }
    if (frame == null) {
      return false;
    }
    account.releaseRequestBytes(reader.shrink());
    Request r;
    try {
      r = Request.parseFrom(frame.bytes());
    } catch (InvalidProtocolBufferException e) {
      refuse(
          Error.Code.PROTOCOL, "the request is not a valid Berth request frame: " + e.getMessage());
      return true;
    }
    if (r.getBodyCase() == Request.BodyCase.BODY_NOT_SET) {
      answer(
          ErrorResponses.error(
              r.getId(),
              Error.Code.UNKNOWN_REQUEST,
              "unknown request type (from a newer client?); this server does not know it"));
      return true;
    }
    request = r;
    requestBytes = frame.size();
    account.holdRequestBytes(requestBytes);
    return true;
  }

  /** Hands the waiting request to the handler, unless its user's budget keeps it waiting. */
  private boolean start() {
    Limit limit = account.startRequest();
    if (limit != null) {
      throttle(limit);
      return false;
    }
    throttledBy = null;
    Request r = request;
    request = null;
    busy = true;
    CompletionStage<Response> answer;
    try {
      answer = owner.handler().handle(r, caller);
    } catch (RuntimeException e) {
      log.error("request {} of user {} failed", r.getBodyCase(), user(), e);
      answer = CompletableFuture.completedFuture(internalError(r, e));
    }
    answer.whenComplete(
        (response, failure) -> owner.execute(this, () -> answered(r, response, failure)));
    return true;
  }

  private void answered(Request r, Response response, Throwable failure) throws IOException {
    busy = false; // the budget first, whatever building the reply does
    account.finishRequest();
    releaseRequest();
    if (!closed) {
      answer(
          failure == null
              ? response.toBuilder().setId(r.getId()).build()
              : internalError(r, failure));
      advance();
    }
  }

  private void releaseRequest() {
    account.releaseRequestBytes(requestBytes);
    requestBytes = 0;
  }

  /** Reads on, once the buffer has room for more of the frame; the room is charged first. */
  private void readMore() {
    int growth = reader.growth();
    if (growth > 0) {
      Limit limit = account.takeRequestBytes(growth);
      if (limit != null) {
        throttle(limit);
        return;
      }
      reader.grow();
    }
    throttledBy = null;
    interest(SelectionKey.OP_READ);
  }

  private void throttle(Limit limit) {
    interest(0);
    if (throttledBy == null) {
      throttledSince = owner.now();
      complain(
          limit.setting,
          "throttling a connection of user "
              + user()
              + ": "
              + holding(limit)
              + " (limit "
              + limits.describe(limit)
              + ")");
    }
    throttledBy = limit;
    owner.throttled(this);
  }

  /** What the user's clients hold that reached {@code limit}. */
  private String holding(Limit limit) {
    return switch (limit) {
      case USER_REQUESTS -> account.requests() + " of its requests are in progress";
      case USER_REPLIES -> Sizes.readable(account.replyBytes()) + " of its replies are unread";
      case USER_BUFFER -> "its requests hold " + Sizes.readable(account.requestBytes());
      default -> "the clients of all users hold more than the server gives them";
    };
  }

  /**
   * Nothing more is read until the client has taken the answer. A client that has sent further
   * requests meanwhile is not reading its replies: say so once.
   */
  private void waitForTheClientToRead() {
    interest(SelectionKey.OP_WRITE);
    if (reader.hasBytes() && !toldUnread) {
      toldUnread = true;
      complain(
          "unread",
          "throttling a connection of user "
              + user()
              + ": it sends requests without reading the replies; it is dropped if it reads none"
              + " for longer than "
              + limits.describe(Limit.STALL));
    }
  }

  private void refuse(Error.Code code, String message) throws IOException {
    complain("protocol", "refused a request of user " + user() + ": " + message);
    closeAfterWrite = true;
    answer(ErrorResponses.error(0, code, message));
  }

  private void answer(Response response) throws IOException {
    if (writer.isEmpty()) {
      lastWritten = owner.now(); // the client's time to read starts now
    }
    account.holdReply(writer.add(response));
    flush();
  }

  private void flush() throws IOException {
    long held = writer.held();
    if (writer.writeTo(channel()) > 0) {
      lastWritten = owner.now();
    }
    account.releaseReply(held - writer.held());
  }

  private void drop(String why) {
    complain("dropped", "dropped a connection of user " + user() + ": " + why);
    close();
  }

  private void complain(String kind, String line) {
    owner.complaints().say("user " + user(), kind, line);
  }

  private void interest(int ops) {
    if (key.isValid()) {
      key.interestOps(ops);
    }
  }

  private SocketChannel channel() {
    return (SocketChannel) key.channel();
  }

  private static Response internalError(Request r, Throwable failure) {
    return ErrorResponses.error(
        r.getId(), Error.Code.INTERNAL, "internal error: " + failure.getMessage());
  }
}
