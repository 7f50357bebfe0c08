package dev.berth.tools.momctl;

import dev.berth.client.ErrorText;
import dev.berth.client.ExitCodes;
import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.LocalFiles;
import dev.berth.client.ServerConnection;
import dev.berth.client.ServerUnavailableException;
import dev.berth.core.BadValueException;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.MomControl;
import dev.berth.proto.NodeStatus;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatNodes;
import dev.berth.tools.cli.CliContext;
import dev.berth.tools.cli.Replies;
import dev.berth.tools.cli.ServerNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code momctl [-c JOB|all | -C | -d LEVEL | -q NAME... | -s] [-h HOST[,HOST...] | -f FILE] [-v]}:
 * Torque's mom control command, answered by the server, which Berth's moms report to and take
 * orders from; momctl talks to no mom. {@code -d} and {@code -q} show what each node's mom last
 * reported (anyone may ask, as with pbsnodes); {@code -C} (report now) and {@code -c} (end a job
 * the server no longer runs there) need an operator, {@code -s} (stop the mom; its jobs run on) a
 * manager, and the server passes them on. Nodes are named by {@code -h} or {@code -f} ({@code
 * :property} for every node with it that is not down), this host by default. Torque's exit status:
 * 1 when the last node failed, else 0.
 */
public final class Momctl {
  /** Torque's EXIT_FAILURE. */
  static final int FAILED = 1;

  private final Invocation invocation;
  private final CliContext context;
  private final MomctlOptions options;
  private final ServerConnection server;
  private final ServerNames names;
  private int succeeded;
  private int failed;
  private boolean lastFailed;

  private Momctl(
      Invocation invocation, CliContext context, MomctlOptions options, ServerConnection server) {
    this.invocation = invocation;
    this.context = context;
    this.options = options;
    this.server = server;
    this.names = new ServerNames(server);
  }

  public static int run(Invocation invocation) {
    return run(invocation, CliContext.DEFAULT);
  }

  public static int run(Invocation invocation, CliContext context) {
    MomctlOptions options;
    try {
      options = MomctlOptions.parse(invocation.args());
    } catch (MomctlOptions.Refused e) {
      invocation.error(e.getMessage());
      return FAILED;
    } catch (Getopt.UsageException e) {
      invocation.err().println("  " + e.getMessage());
      invocation.err().print(MomctlOptions.USAGE);
      return ExitCodes.USAGE;
    }
    List<String> hosts;
    try {
      hosts = hosts(invocation, options);
    } catch (IOException e) {
      invocation.error("cannot open file '" + options.hostFile() + "' (" + reason(e) + ")");
      return FAILED;
    }
    try (ServerConnection server = context.connector().connect(invocation)) {
      return new Momctl(invocation, context, options, server).run(hosts);
    } catch (ServerUnavailableException e) {
      invocation.error(e.getMessage());
      return ExitCodes.UNAVAILABLE;
    }
  }

  /** The host list of {@code -h} or the {@code -f} file, split as Torque does; else this host. */
  private static List<String> hosts(Invocation invocation, MomctlOptions options)
      throws IOException {
    String list = options.hosts();
    if (options.hostFile() != null) {
      byte[] file = invocation.origin().files().read(invocation.cwd().resolve(options.hostFile()));
      list = new String(file, StandardCharsets.UTF_8);
    }
    List<String> hosts =
        list == null
            ? List.of()
            : Arrays.stream(list.split("[,\\s]+")).filter(h -> !h.isEmpty()).toList();
    return hosts.isEmpty() ? List.of(invocation.origin().host().get()) : hosts;
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "No such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "Permission denied";
    }
    if (e instanceof LocalFiles.DirectoryException) {
      return "Is a directory";
    }
    return String.valueOf(e.getMessage());
  }

  private int run(List<String> hosts) throws ServerUnavailableException {
    String job = null;
    if (options.action() == MomctlOptions.Action.CLEAR) {
      job = clearedJob();
      if (job == null) {
        return FAILED;
      }
    }
    Response response =
        server.call(Request.newBuilder().setStatNodes(StatNodes.getDefaultInstance()));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.NODES);
    if (failure.isPresent()) {
      invocation.err().println(ErrorText.general("momctl", failure.get()));
      return FAILED;
    }
    List<NodeStatus> nodes = response.getNodes().getNodesList();
    for (String host : hosts) {
      if (host.startsWith(":") && host.length() > 1) {
        for (NodeStatus node : withProperty(host, nodes)) {
          outcome(act(node, job));
        }
        continue;
      }
      Optional<NodeStatus> node = NodeNames.find(host, nodes, invocation.origin().host());
      if (node.isPresent()) {
        outcome(act(node.get(), job));
      } else {
        invocation.error("unknown node '" + ControlCharacters.escape(host) + "'");
        outcome(false);
      }
    }
    if (options.verbose()) {
      invocation.out().printf("Node Summary:  %d Successful  %d Failed\n", succeeded, failed);
    }
    return lastFailed ? FAILED : ExitCodes.OK;
  }

  /** {@code -c}'s job as a canonical id, or {@code all}; null after reporting a malformed one. */
  private String clearedJob() throws ServerUnavailableException {
    String job = options.clearJob();
    if (job.equalsIgnoreCase("all")) {
      return "all";
    }
    try {
      return names.canonical(job);
    } catch (BadValueException e) {
      invocation.error("illegally formed job identifier: " + ControlCharacters.escape(job));
      return null;
    }
  }

  /**
   * {@code :property[@server]}: the nodes with that property, the down ones passed over as Torque
   * does ({@code n3: skipping down node}). Berth's momctl asks its one server, so a {@code @server}
   * is not looked at.
   */
  private List<NodeStatus> withProperty(String host, List<NodeStatus> nodes) {
    int at = host.indexOf('@');
    String property = host.substring(1, at < 0 ? host.length() : at);
    List<NodeStatus> having =
        nodes.stream().filter(n -> n.getNode().getPropertiesList().contains(property)).toList();
    if (having.isEmpty()) {
      invocation.error("no nodes found in " + ControlCharacters.escape(host));
    }
    for (NodeStatus node : having) {
      if (MomReport.isDown(node)) {
        invocation
            .err()
            .printf(
                "%12s:   skipping down node\n", ControlCharacters.escape(node.getNode().getName()));
      }
    }
    return having.stream().filter(n -> !MomReport.isDown(n)).toList();
  }

  private void outcome(boolean ok) {
    if (ok) {
      succeeded++;
    } else {
      failed++;
    }
    lastFailed = !ok;
  }

  /** Carries out the command on one node; returns whether it went through. */
  private boolean act(NodeStatus node, String job) throws ServerUnavailableException {
    return switch (options.action()) {
      case QUERY -> query(node);
      case CYCLE -> control(node, MomControl.newBuilder().setAction(MomControl.Action.CYCLE));
      case CLEAR ->
          control(
              node, MomControl.newBuilder().setAction(MomControl.Action.CLEAR_JOB).setJobId(job));
      case SHUTDOWN -> control(node, MomControl.newBuilder().setAction(MomControl.Action.SHUTDOWN));
    };
  }

  /**
   * {@code -d} and {@code -q}, in the order given. A down node still shows its diagnostics (which
   * say it is down) but answers no query: what its mom reported last is no longer current.
   */
  private boolean query(NodeStatus node) throws ServerUnavailableException {
    String name = node.getNode().getName();
    boolean down = MomReport.isDown(node);
    boolean refused = false;
    for (String query : options.queries()) {
      if (query.startsWith("diag")) {
        String report =
            MomReport.diagnostics(node, level(query), names.name(), context.nowSeconds());
        invocation.out().println(report);
      } else if (!down) {
        invocation.out().print(MomReport.query(name, query, node.getNode().getStatusMap()));
      } else if (!refused) {
        invocation.error(
            "node '"
                + ControlCharacters.escape(name)
                + "' is down: its mom is not reporting to the server");
        refused = true;
      }
    }
    return !refused;
  }

  /** {@code diag2} is level 2; as Torque's mom reads it, a query {@code diag} alone is 0. */
  private static int level(String query) {
    String rest = query.substring("diag".length());
    char first = rest.isEmpty() ? ' ' : rest.charAt(0);
    return first >= '0' && first <= '9' ? first - '0' : 0;
  }

  /** {@code -C}, {@code -c}, {@code -s}: one request, which the server passes to the node's mom. */
  private boolean control(NodeStatus node, MomControl.Builder control)
      throws ServerUnavailableException {
    String name = node.getNode().getName();
    Response response = server.call(Request.newBuilder().setMomControl(control.setNode(name)));
    Optional<Error> failure = Replies.failure(response, Response.BodyCase.ACK);
    String shown = ControlCharacters.escape(name);
    if (failure.isPresent()) {
      invocation.error(ErrorText.text(failure.get()) + " (node " + shown + ")");
      return false;
    }
    invocation
        .out()
        .println(
            switch (options.action()) {
              case CYCLE -> "mom " + shown + " successfully cycled cycle forced";
              case CLEAR -> "job clear request successful on " + shown;
              default -> "shutdown request successful on " + shown;
            });
    return true;
  }
}
