package dev.berth.tools.qmgr;

import dev.berth.client.Connector;
import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.ControlCharacters;
import dev.berth.core.NodeAttributeNames;
import dev.berth.core.QueueAttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.proto.ManageReply;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.qmgr.Directive.Target;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Runs parsed directives against the server over one connection, opened when the first directive
 * needs it, and keeps the active objects of {@code active}. Each create, delete, set, unset, list
 * or print is one Manage request.
 */
final class Session implements AutoCloseable {
  /** Exit status of a directive that did nothing because it named no object. */
  static final int NOTHING_DONE = 1;

  private final PrintStream out;
  private final PrintStream err;
  private final Connector connector;
  private final Invocation invocation;
  private final String server;
  private final boolean syntaxOnly;
  private final ZoneId zone;
  private final Map<ObjectType, Target> active = new EnumMap<>(ObjectType.class);
  private ServerConnection connection;

  /**
   * @param err where errors go, or null to print none ({@code -z})
   * @param server the server's name in messages: the qmgr operand, else {@code default}
   * @param syntaxOnly {@code -n}: send nothing
   * @param zone for the dates {@code list} shows
   */
  Session(
      PrintStream out,
      PrintStream err,
      Connector connector,
      Invocation invocation,
      String server,
      boolean syntaxOnly,
      ZoneId zone) {
    this.out = out;
    this.err = err;
    this.connector = connector;
    this.invocation = invocation;
    this.server = server;
    this.syntaxOnly = syntaxOnly;
    this.zone = zone;
  }

  /** Runs one directive (not quit); returns 0 or the exit status of its failure. */
  int execute(Directive directive) throws ServerUnavailableException {
    if (directive instanceof Directive.Help help) {
      out.print(HelpText.of(help.topic()));
      return 0;
    }
    if (directive instanceof Directive.Active activate) {
      return activate(activate);
    }
    if (directive instanceof Directive.Operation operation) {
      return syntaxOnly ? 0 : operation(operation);
    }
    throw new IllegalArgumentException("cannot execute " + directive);
  }

  private int operation(Directive.Operation operation) throws ServerUnavailableException {
    ObjectType type = operation.type();
    List<String> names;
    String label;
    if (type == ObjectType.SERVER) {
      // Berth has one server: server names are accepted, shown in errors, and not sent.
      names = List.of();
      label =
          operation.target() instanceof Target.Named named ? String.join(",", named.names()) : "";
    } else {
      Target target = operation.target();
      if (target instanceof Target.Unnamed) {
        target = active.get(type);
      }
      if (target == null) {
        Manage.Command command = operation.command();
        if (command != Manage.Command.LIST && command != Manage.Command.PRINT) {
          error(
              type == ObjectType.QUEUE
                  ? "No Active Queues, nothing done."
                  : "No Active Nodes, nothing done.");
          return NOTHING_DONE;
        }
        target = new Target.All();
      }
      names = target instanceof Target.Named named ? named.names() : List.of();
      label = String.join(",", names);
    }
    Manage.Builder manage =
        Manage.newBuilder()
            .setCommand(operation.command())
            .setObjectType(type)
            .addAllNames(names)
            .addAllAttributes(operation.attributes());
    Response response = connection().call(Request.newBuilder().setManage(manage));
    switch (response.getBodyCase()) {
      case ERROR:
        return serverError(label, response.getError());
      case ACK:
        if (!response.getAck().getMessage().isEmpty()) {
          out.print(ControlCharacters.escape(response.getAck().getMessage()) + "\n");
        }
        return 0;
      case MANAGE:
        show(operation, response.getManage());
        return 0;
      default:
        return serverError(
            label,
            Error.newBuilder()
                .setCode(Error.Code.PROTOCOL)
                .setMessage("unexpected reply from the server: " + response.getBodyCase())
                .build());
    }
  }

  private void show(Directive.Operation operation, ManageReply reply) {
    List<Attribute> wanted = operation.attributes();
    if (operation.command() == Manage.Command.LIST) {
      for (ObjectView view : views(operation.type(), reply)) {
        out.print(ListFormat.format(view.select(wanted), zone));
      }
    } else if (operation.command() == Manage.Command.PRINT) {
      if (operation.type() == ObjectType.SERVER && wanted.isEmpty()) {
        printSection(ObjectType.QUEUE, views(ObjectType.QUEUE, reply), wanted);
        printSection(ObjectType.NODE, views(ObjectType.NODE, reply), wanted);
      }
      printSection(operation.type(), views(operation.type(), reply), wanted);
    }
  }

  private void printSection(ObjectType type, List<ObjectView> views, List<Attribute> wanted) {
    if (views.isEmpty()) {
      return;
    }
    List<ObjectView> selected = new ArrayList<>();
    for (ObjectView view : views) {
      selected.add(view.select(wanted));
    }
    out.print(PrintFormat.script(type, selected));
  }

  private static List<ObjectView> views(ObjectType type, ManageReply reply) {
    List<ObjectView> views = new ArrayList<>();
    switch (type) {
      case SERVER -> {
        if (reply.hasServer()) {
          views.add(ObjectView.server(reply.getServer()));
        }
      }
      case QUEUE -> reply.getQueuesList().forEach(q -> views.add(ObjectView.queue(q)));
      case NODE -> reply.getNodesList().forEach(n -> views.add(ObjectView.node(n)));
      default -> throw new IllegalArgumentException("no view of " + type);
    }
    return views;
  }

  /**
   * {@code active}: without names, shows the active objects; with names, checks that they exist
   * (unless {@code -n}) and makes them the default for directives that name no object.
   */
  private int activate(Directive.Active activate) throws ServerUnavailableException {
    ObjectType type = activate.type();
    Target target = activate.target();
    if (target instanceof Target.Unnamed) {
      showActive(type);
      return 0;
    }
    if (type == ObjectType.SERVER) {
      return 0;
    }
    if (!syntaxOnly && target instanceof Target.Named named) {
      Manage.Builder check =
          Manage.newBuilder()
              .setCommand(Manage.Command.LIST)
              .setObjectType(type)
              .addAllNames(named.names())
              .addAttributes(
                  Attribute.newBuilder()
                      .setName(
                          type == ObjectType.QUEUE
                              ? QueueAttributeNames.QUEUE_TYPE
                              : NodeAttributeNames.STATE));
      Response response = connection().call(Request.newBuilder().setManage(check));
      if (response.hasError()) {
        return serverError(String.join(",", named.names()), response.getError());
      }
    }
    active.put(type, target);
    return 0;
  }

  private void showActive(ObjectType type) {
    if (type == ObjectType.SERVER) {
      out.print("Active servers:\n" + server + "\n");
      return;
    }
    StringBuilder text =
        new StringBuilder(type == ObjectType.QUEUE ? "Active queues:\n" : "Active nodes:\n");
    Target target = active.get(type);
    if (target instanceof Target.All) {
      text.append('@').append(server).append('\n');
    } else if (target instanceof Target.Named named) {
      for (String name : named.names()) {
        text.append(name).append('@').append(server).append('\n');
      }
    }
    out.print(text);
  }

  /** Torque's report of a rejected request: {@code qmgr obj=batch svr=default: Unknown queue}. */
  private int serverError(String object, Error error) {
    error("qmgr obj=" + object + " svr=" + server + ": " + ErrorText.message(error));
    return ExitCodes.of(error);
  }

  private void error(String line) {
    if (err != null) {
      err.print(line + "\n");
    }
  }

  private ServerConnection connection() throws ServerUnavailableException {
    if (connection == null) {
      connection = connector.connect(invocation);
    }
    return connection;
  }

  @Override
  public void close() {
    if (connection != null) {
      connection.close();
    }
  }
}
