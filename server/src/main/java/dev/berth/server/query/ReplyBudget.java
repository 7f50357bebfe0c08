package dev.berth.server.query;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import dev.berth.core.Sizes;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import dev.berth.server.command.CommandException;

/**
 * The most one reply may take, encoded (the client limit {@code reply}). A large reply is sized as
 * it is put together, from parts the state already holds, and refused with a message that says so
 * as soon as it would be larger: its bytes are never made, nor is the rest of it looked at.
 */
public record ReplyBudget(long bytes) {
  /** A reply being put together: the parts counted so far. */
  public final class Reply {
    private final String what;
    private final String hint;
    private long size;

    private Reply(String what, String hint) {
      this.what = what;
      this.hint = hint;
    }

    /** Counts {@code part}, field {@code field} of the reply; refuses the reply once too large. */
    public void add(int field, MessageLite part) {
      size += CodedOutputStream.computeMessageSize(field, part);
      if (size > bytes) {
        throw refusal(what, hint);
      }
    }
  }

  /**
   * @param what the reply, as its refusal names it ("the reply about 12[].srv")
   * @param hint what to ask for instead, or empty
   */
  public Reply reply(String what, String hint) {
    return new Reply(what, hint);
  }

  /** {@code response}, or the refusal in its place if it is larger than the budget. */
  public Response bound(Response response, String what, String hint) {
    if (response.getSerializedSize() <= bytes) {
      return response;
    }
    return Response.newBuilder()
        .setId(response.getId())
        .setError(refusal(what, hint).toError())
        .build();
  }

  private CommandException refusal(String what, String hint) {
    return new CommandException(
        Error.Code.SYSTEM,
        what
            + " would be larger than "
            + Sizes.readable(bytes)
            + ", the most the server sends at once"
            + (hint.isEmpty() ? "" : "; " + hint));
  }
}
