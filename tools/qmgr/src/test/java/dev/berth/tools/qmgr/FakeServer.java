package dev.berth.tools.qmgr;

import dev.berth.client.Connector;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Ack;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** An in-process stand-in for the server: records requests, answers with a function. */
final class FakeServer implements Connector {
  final List<Request> requests = new ArrayList<>();
  int opened;
  int closed;
  private Function<Request, Response> answer = request -> ack();
  private boolean down;

  FakeServer answering(Function<Request, Response> answer) {
    this.answer = answer;
    return this;
  }

  FakeServer down() {
    this.down = true;
    return this;
  }

  static Response ack() {
    return Response.newBuilder().setAck(Ack.getDefaultInstance()).build();
  }

  @Override
  public ServerConnection connect(Invocation invocation) throws ServerUnavailableException {
    if (down) {
      throw new ServerUnavailableException(
          Path.of("/run/berth/server.sock"), new IOException("Connection refused"));
    }
    opened++;
    return new ServerConnection() {
      @Override
      public Response call(Request.Builder request) {
        Request sent = request.setId(requests.size() + 1).build();
        requests.add(sent);
        return answer.apply(sent).toBuilder().setId(sent.getId()).build();
      }

      @Override
      public void close() {
        closed++;
      }
    };
  }
}
