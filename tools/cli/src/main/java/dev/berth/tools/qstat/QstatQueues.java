package dev.berth.tools.qstat;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Error;
import dev.berth.proto.QueueList;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatQueues;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.format.AttrDocuments;
import dev.berth.tools.format.AttrText;
import dev.berth.tools.format.JsonWriter;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * qstat -Q and -q: one request per destination operand ({@code queue}, {@code queue@srv},
 * {@code @srv}).
 */
final class QstatQueues {
  private final Invocation invocation;
  private final CliContext context;
  private final QstatOptions options;
  private final ServerConnection transport;
  private final List<QueueStatus> queues = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();
  private String server = "";
  private int status = ExitCodes.OK;

  QstatQueues(
      Invocation invocation, CliContext context, QstatOptions options, ServerConnection transport) {
    this.invocation = invocation;
    this.context = context;
    this.options = options;
    this.transport = transport;
  }

  int run() throws ServerUnavailableException {
    if (options.operands().isEmpty()) {
      stat("");
    }
    for (String operand : options.operands()) {
      int at = operand.indexOf('@');
      stat(at < 0 ? operand : operand.substring(0, at));
    }
    print();
    for (String error : errors) {
      invocation.err().println(error);
    }
    return status;
  }

  private void stat(String queue) throws ServerUnavailableException {
    StatQueues.Builder request = StatQueues.newBuilder();
    if (!queue.isEmpty()) {
      request.addNames(queue);
    }
    Response response = transport.call(Request.newBuilder().setStatQueues(request));
    var failure = Replies.failure(response, Response.BodyCase.QUEUES);
    if (failure.isPresent()) {
      Error error = failure.get();
      errors.add(ErrorText.general("qstat", error) + (queue.isEmpty() ? "" : " " + queue));
      if (status == ExitCodes.OK) {
        status = ExitCodes.of(error);
      }
      return;
    }
    QueueList list = response.getQueues();
    if (server.isEmpty()) {
      server = list.getServer();
    }
    queues.addAll(list.getQueuesList());
  }

  private void print() {
    PrintStream out = invocation.out();
    ZoneId zone = invocation.zone();
    if (options.output() == QstatOptions.Output.JSON) {
      JsonWriter json =
          JobDocuments.header(server, context.version().get(), context.nowSeconds())
              .beginObject("Queue");
      for (QueueStatus queue : queues) {
        json.beginObject(queue.getQueue().getName());
        AttrDocuments.json(json, QueueFormats.attributes(queue), zone);
        json.endObject();
      }
      out.print(json.endObject().endObject());
      return;
    }
    if (queues.isEmpty()) {
      return;
    }
    if (options.altQueues()) {
      out.print(QueueFormats.alternate(server, queues, options.style().sizes()));
    } else if (options.full()) {
      int linesize = options.style().oneLine() ? AttrText.NO_FOLD : AttrText.LINESIZE;
      for (QueueStatus queue : queues) {
        out.print(
            AttrText.block(
                "Queue: " + queue.getQueue().getName(),
                QueueFormats.attributes(queue),
                zone,
                linesize));
      }
    } else {
      out.print(QueueFormats.header());
      for (QueueStatus queue : queues) {
        out.print(QueueFormats.row(queue));
      }
    }
  }
}
