package dev.berth.tools.qsub.session;

import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** A server connection in memory: answers each request with {@code reply} and records it. */
class ScriptedServer implements ServerConnection {
  final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Function<Request, Response> reply;
  boolean closed;

  ScriptedServer(Function<Request, Response> reply) {
    this.reply = reply;
  }

  @Override
  public Response call(Request.Builder request) throws ServerUnavailableException {
    Request built = request.build();
    requests.add(built);
    return reply.apply(built);
  }

  @Override
  public void close() {
    closed = true;
  }

  List<Request> attaches() {
    return requests.stream().filter(Request::hasAttach).toList();
  }

  List<Request> deletes() {
    return requests.stream().filter(Request::hasDelete).toList();
  }

  static Response state(String state) {
    return Response.newBuilder().setAttach(AttachReply.newBuilder().setState(state)).build();
  }

  static Response error(Error.Code code, String message) {
    return Response.newBuilder()
        .setError(Error.newBuilder().setCode(code).setMessage(message))
        .build();
  }

  static Response ack() {
    return Response.newBuilder().setAck(dev.berth.proto.Ack.getDefaultInstance()).build();
  }
}
