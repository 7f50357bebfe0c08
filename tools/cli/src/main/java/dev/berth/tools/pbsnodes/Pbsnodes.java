package dev.berth.tools.pbsnodes;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.NodeAttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatNodes;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.ServerNames;
import dev.berth.tools.cli.VersionRequested;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code pbsnodes}: lists nodes ({@code -a}, the default; {@code -l [state]} for the down, offline
 * or unknown ones; {@code -x} XML; {@code -F json}), marks them offline ({@code -o}) or clears that
 * ({@code -c}), and sets their note ({@code -N note}, {@code -N n} to clear). Marking sends a qmgr
 * request per node, as Torque does: {@code set node NAME state += offline} (or {@code -=}), and
 * {@code set node NAME note = TEXT}.
 */
public final class Pbsnodes {
  /** Torque's pbsnodes exits 2 when the server has no nodes to list. */
  static final int NO_NODES = 2;

  private Pbsnodes() {}

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    PbsnodesOptions options;
    try {
      options = PbsnodesOptions.parse(invocation.args());
    } catch (VersionRequested e) {
      return VersionRequested.answer(invocation, context);
    } catch (Getopt.UsageException e) {
      if (e.getMessage() != null) {
        invocation.error(e.getMessage());
      }
      invocation.err().print(PbsnodesOptions.USAGE);
      return ExitCodes.USAGE;
    }
    try (ServerConnection transport = context.connector().connect(invocation)) {
      int status = ExitCodes.OK;
      if (options.note() != null) {
        for (String node : options.nodes()) {
          status =
              mark(invocation, options, transport, node, noteAttribute(options.note()), status);
        }
      }
      switch (options.action()) {
        case OFFLINE:
        case CLEAR:
          for (String node : options.nodes()) {
            status = mark(invocation, options, transport, node, stateAttribute(options), status);
          }
          return status;
        case NOTE:
          return status;
        default:
          int listed = list(invocation, context, options, transport);
          return listed != ExitCodes.OK ? listed : status;
      }
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  private static Attribute noteAttribute(String note) {
    return Attribute.newBuilder()
        .setName(NodeAttributeNames.NOTE)
        .setValue(note)
        .setOp(Attribute.Op.SET)
        .build();
  }

  private static Attribute stateAttribute(PbsnodesOptions options) {
    Attribute.Op op =
        options.action() == PbsnodesOptions.Action.OFFLINE ? Attribute.Op.INCR : Attribute.Op.DECR;
    return Attribute.newBuilder()
        .setName(NodeAttributeNames.STATE)
        .setValue("offline")
        .setOp(op)
        .build();
  }

  /** One {@code Manage SET NODE} request; returns the new exit status. */
  private static int mark(
      Invocation invocation,
      PbsnodesOptions options,
      ServerConnection transport,
      String node,
      Attribute attribute,
      int status)
      throws ServerUnavailableException {
    Manage.Builder manage =
        Manage.newBuilder()
            .setCommand(Manage.Command.SET)
            .setObjectType(Manage.ObjectType.NODE)
            .addNames(node)
            .addAttributes(attribute);
    Response response = transport.call(Request.newBuilder().setManage(manage));
    if (!response.hasError() && response.getBodyCase() == Response.BodyCase.MANAGE) {
      return status;
    }
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.ACK);
    if (failure.isEmpty()) {
      return status;
    }
    if (!options.quiet()) {
      String what =
          attribute.getName().equals(NodeAttributeNames.NOTE)
              ? "Error setting note attribute for " + node
              : "Error marking node " + node;
      invocation.err().println(what + " - " + ErrorText.text(failure.get()));
    }
    return ExitCodes.of(failure.get());
  }

  /** -a, -l, -x, -F json: one status request per node named (or one for all nodes). */
  private static int list(
      Invocation invocation,
      CliContext context,
      PbsnodesOptions options,
      ServerConnection transport)
      throws ServerUnavailableException {
    List<String> names = options.nodes().isEmpty() ? List.of("") : options.nodes();
    List<NodeStatus> nodes = new ArrayList<>();
    for (String name : names) {
      StatNodes.Builder request = StatNodes.newBuilder();
      if (!name.isEmpty()) {
        request.addNames(name);
      }
      Response response = transport.call(Request.newBuilder().setStatNodes(request));
      Optional<Error> failure = Replies.failure(response, Response.BodyCase.NODES);
      if (failure.isPresent()) {
        print(invocation, context, options, transport, nodes);
        if (!options.quiet()) {
          invocation.err().println(ErrorText.general("pbsnodes", failure.get()));
        }
        return ExitCodes.of(failure.get());
      }
      nodes.addAll(response.getNodes().getNodesList());
    }
    if (nodes.isEmpty()) {
      if (!options.quiet()) {
        invocation.err().println("pbsnodes: No nodes found");
      }
      return NO_NODES;
    }
    print(invocation, context, options, transport, nodes);
    return ExitCodes.OK;
  }

  private static void print(
      Invocation invocation,
      CliContext context,
      PbsnodesOptions options,
      ServerConnection transport,
      List<NodeStatus> nodes)
      throws ServerUnavailableException {
    PrintStream out = invocation.out();
    switch (options.action()) {
      case XML:
        out.print(NodeFormats.xml(nodes));
        break;
      case JSON:
        String server = new ServerNames(transport).name();
        out.print(
            NodeFormats.json(
                nodes, server, context.version().get(), context.nowSeconds(), invocation.zone()));
        break;
      case LIST:
        for (NodeStatus node : nodes) {
          if (PbsnodesOptions.listed(options.listState(), node.getState())) {
            out.print(NodeFormats.listLine(node, options.listNotes()));
          }
        }
        break;
      default:
        for (NodeStatus node : nodes) {
          out.print(NodeFormats.block(node));
        }
    }
  }
}
