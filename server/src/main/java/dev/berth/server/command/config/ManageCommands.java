package dev.berth.server.command.config;

import dev.berth.core.QueueAttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.Sizes;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.SetBy;
import dev.berth.proto.Ack;
import dev.berth.proto.Attribute;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.NodeDeleted;
import dev.berth.proto.NodeUpdated;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueAttributesChanged;
import dev.berth.proto.QueueCreated;
import dev.berth.proto.QueueDeleted;
import dev.berth.proto.Reservation;
import dev.berth.proto.Response;
import dev.berth.proto.ServerAttributesChanged;
import dev.berth.server.command.AttributeSpec;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.node.NodeAttributes;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.state.ClusterState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * qmgr's changing commands (set, unset, create, delete on server, queues and nodes). Listing and
 * printing are read-only and answered by the queries, not here.
 */
public final class ManageCommands {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]{0,62}");

  private ManageCommands() {}

  public static Outcome manage(ClusterState s, Caller caller, Manage m) {
    return switch (m.getObjectType()) {
      case SERVER -> server(s, caller, m);
      case QUEUE -> queues(s, caller, m);
      case NODE -> nodes(s, caller, m);
      default -> throw new CommandException(Error.Code.INVALID_REQUEST, "unknown qmgr object");
    };
  }

  private static Outcome server(ClusterState s, Caller caller, Manage m) {
    if (m.getCommand() != Manage.Command.SET && m.getCommand() != Manage.Command.UNSET) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          m.getCommand().name().toLowerCase() + " server is not allowed");
    }
    Permissions.requireManager(s, caller, "change server attributes");
    Map<String, String> values = new TreeMap<>(ServerAttributes.DEFAULTS); // += starts from them
    values.putAll(s.serverAttributes());
    values.put(ServerAttributeNames.NEXT_JOB_NUMBER, Long.toString(s.nextJobNumber()));
    ServerAttributesChanged.Builder changes = ServerAttributesChanged.newBuilder();
    for (Attribute a : attributes(m)) {
      AttributeSpec spec = ServerAttributes.spec(a.getName());
      String key = key(a);
      String value = spec.combine(a, values.get(key));
      requireSetter(caller, a.getName());
      checkServerValue(s, caller, key, value);
      changes.addChanges(change(key, value));
      if (value == null) {
        values.remove(key);
      } else {
        values.put(key, value);
      }
    }
    return done(new Outcome().event(Event.newBuilder().setServerAttributesChanged(changes)));
  }

  /**
   * An attribute the server acts on as its own user (core's table marks it ROOT_ON_SERVER) is
   * root's on a server host: being on the managers list, or root of a submit host (whose request a
   * relay carries), is not enough.
   */
  private static void requireSetter(Caller caller, String name) {
    boolean rootOnly =
        AttributeTable.SERVER.find(name).map(d -> d.setBy() == SetBy.ROOT_ON_SERVER).orElse(false);
    if (rootOnly && (!caller.isRoot() || caller.relayed())) {
      throw new CommandException(
          Error.Code.PERMISSION,
          caller.principal()
              + " may not set "
              + name
              + ": the server runs it as its own user, so only root on a server host may");
    }
  }

  private static void checkServerValue(ClusterState s, Caller caller, String key, String value) {
    MailServerValues.check(key, value);
    if (key.equals(ServerAttributeNames.JOBSCRIPT_MAX_SIZE)
        && value != null
        && Sizes.parseBytes(value) > ServerAttributes.LARGEST_SCRIPT) {
      throw new CommandException(
          Error.Code.BAD_VALUE,
          "jobscript_max_size may be at most 1mb: a larger script would not fit a message to a"
              + " node or a Kafka journal record");
    }
    if (key.equals(ServerAttributeNames.DEFAULT_QUEUE)
        && value != null
        && s.queue(value).isEmpty()) {
      throw new CommandException(
          Error.Code.UNKNOWN_QUEUE, "default_queue: there is no queue '" + value + "'");
    }
    if (key.equals(ServerAttributeNames.NEXT_JOB_NUMBER)) {
      if (value == null || Long.parseLong(value) < s.nextJobNumber()) {
        throw new CommandException(
            Error.Code.BAD_VALUE,
            "next_job_number may only grow (it is " + s.nextJobNumber() + ")");
      }
    }
  }

  private static Outcome queues(ClusterState s, Caller caller, Manage m) {
    Permissions.requireManager(s, caller, m.getCommand().name().toLowerCase() + " queues");
    Outcome out = new Outcome();
    for (String name : names(m, "queue", s.queues().keySet())) {
      switch (m.getCommand()) {
        case CREATE -> out.event(Event.newBuilder().setQueueCreated(createQueue(s, name, m)));
        case DELETE -> deleteQueue(s, name, out);
        case SET, UNSET ->
            out.event(Event.newBuilder().setQueueAttributesChanged(changeQueue(s, name, m)));
        default -> throw new CommandException(Error.Code.INVALID_REQUEST, "bad qmgr command");
      }
    }
    return done(out);
  }

  private static QueueCreated.Builder createQueue(ClusterState s, String name, Manage m) {
    if (!NAME.matcher(name).matches()) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal queue name '" + AttributeValues.shown(name) + "'");
    }
    if (s.queue(name).isPresent()) {
      throw new CommandException(Error.Code.QUEUE_EXISTS, "queue " + name + " already exists");
    }
    Map<String, String> values = new TreeMap<>(Map.of(QueueAttributeNames.QUEUE_TYPE, "Execution"));
    apply(values, attributes(m));
    return QueueCreated.newBuilder()
        .setQueue(Queue.newBuilder().setName(name).putAllAttributes(values));
  }

  private static void deleteQueue(ClusterState s, String name, Outcome out) {
    requireQueue(s, name);
    s.reservationOfQueue(name)
        .ifPresent(
            r -> {
              throw new CommandException(
                  Error.Code.QUEUE_BUSY,
                  "queue "
                      + name
                      + " is reservation "
                      + r.getId()
                      + "'s: it goes with the reservation (pbs_rdel "
                      + r.getId()
                      + ")");
            });
    boolean busy = s.jobs().stream().anyMatch(j -> j.getQueue().equals(name));
    if (busy) {
      throw new CommandException(
          Error.Code.QUEUE_BUSY, "queue " + name + " still holds jobs; delete or let them finish");
    }
    removeQueue(s, name, out);
  }

  /** The queue goes, and with it the server's default_queue if it named it. */
  public static void removeQueue(ClusterState s, String name, Outcome out) {
    out.event(Event.newBuilder().setQueueDeleted(QueueDeleted.newBuilder().setQueue(name)));
    if (name.equals(ServerAttributes.get(s, ServerAttributeNames.DEFAULT_QUEUE))) {
      out.event(
          Event.newBuilder()
              .setServerAttributesChanged(
                  ServerAttributesChanged.newBuilder()
                      .addChanges(change(ServerAttributeNames.DEFAULT_QUEUE, null))));
    }
  }

  private static QueueAttributesChanged.Builder changeQueue(ClusterState s, String name, Manage m) {
    Queue q = requireQueue(s, name);
    Map<String, String> values = new TreeMap<>(q.getAttributesMap());
    List<AttributeValue> changes = apply(values, attributes(m));
    return QueueAttributesChanged.newBuilder().setQueue(name).addAllChanges(changes);
  }

  private static List<AttributeValue> apply(
      Map<String, String> values, List<Attribute> attributes) {
    List<AttributeValue> changes = new ArrayList<>();
    for (Attribute a : attributes) {
      AttributeSpec spec = QueueAttributes.spec(a.getName());
      String key = key(a);
      String value = QueueAttributes.check(a, spec.combine(a, values.get(key)));
      changes.add(change(key, value));
      if (value == null) {
        values.remove(key);
      } else {
        values.put(key, value);
      }
    }
    return changes;
  }

  private static Queue requireQueue(ClusterState s, String name) {
    return s.queue(name)
        .orElseThrow(
            () -> new CommandException(Error.Code.UNKNOWN_QUEUE, "unknown queue '" + name + "'"));
  }

  private static Outcome nodes(ClusterState s, Caller caller, Manage m) {
    boolean onlyState =
        (m.getCommand() == Manage.Command.SET || m.getCommand() == Manage.Command.UNSET)
            && attributes(m).stream()
                .allMatch(
                    a ->
                        AttributeTable.NODE
                            .find(a.getName())
                            .map(d -> d.setBy() == SetBy.OPERATOR)
                            .orElse(false));
    if (onlyState) {
      Permissions.requireOperator(s, caller, "change node state");
    } else {
      Permissions.requireManager(s, caller, m.getCommand().name().toLowerCase() + " nodes");
    }
    Outcome out = new Outcome();
    for (String name : names(m, "node", s.nodes().keySet())) {
      switch (m.getCommand()) {
        case CREATE -> out.event(Event.newBuilder().setNodeCreated(createNode(s, name, m)));
        case DELETE -> out.event(Event.newBuilder().setNodeDeleted(deleteNode(s, name)));
        case SET, UNSET -> out.event(Event.newBuilder().setNodeUpdated(changeNode(s, name, m)));
        default -> throw new CommandException(Error.Code.INVALID_REQUEST, "bad qmgr command");
      }
    }
    return done(out);
  }

  private static NodeCreated.Builder createNode(ClusterState s, String name, Manage m) {
    if (!NAME.matcher(name).matches()) {
      throw new CommandException(
          Error.Code.BAD_VALUE, "illegal node name '" + AttributeValues.shown(name) + "'");
    }
    if (s.node(name).isPresent()) {
      throw new CommandException(Error.Code.NODE_EXISTS, "node " + name + " already exists");
    }
    Node node = NodeAttributes.created(name);
    for (Attribute a : attributes(m)) {
      node = NodeAttributes.apply(node, a);
    }
    return NodeCreated.newBuilder().setNode(node);
  }

  private static NodeDeleted.Builder deleteNode(ClusterState s, String name) {
    requireNode(s, name);
    if (!s.usage(name).idle()) {
      throw new CommandException(
          Error.Code.BAD_STATE, "node " + name + " runs jobs; offline it and wait for them to end");
    }
    for (Reservation r : s.reservations().values()) {
      if (ReservationCommands.live(r) && r.getNodesList().contains(name)) {
        throw new CommandException(
            Error.Code.BAD_STATE,
            "node " + name + " is in reservation " + r.getId() + "; delete that first (pbs_rdel)");
      }
    }
    return NodeDeleted.newBuilder().setNode(name);
  }

  private static NodeUpdated.Builder changeNode(ClusterState s, String name, Manage m) {
    Node node = requireNode(s, name);
    List<String> changed = new ArrayList<>();
    for (Attribute a : attributes(m)) {
      node = NodeAttributes.apply(node, a);
      changed.add(a.getName());
    }
    return NodeUpdated.newBuilder().setNode(node).addAllChanged(changed);
  }

  private static Node requireNode(ClusterState s, String name) {
    return s.node(name)
        .orElseThrow(() -> new CommandException(Error.Code.UNKNOWN_NODE, "Unknown node " + name));
  }

  /** The objects a command names; set and unset without names mean all of them. */
  private static List<String> names(Manage m, String what, java.util.Set<String> all) {
    boolean change = m.getCommand() == Manage.Command.SET || m.getCommand() == Manage.Command.UNSET;
    if (m.getNamesCount() == 0 && change) {
      return List.copyOf(all);
    }
    if (m.getNamesCount() == 0) {
      throw new CommandException(
          Error.Code.INVALID_REQUEST,
          m.getCommand().name().toLowerCase() + " " + what + " needs a name");
    }
    return m.getNamesList();
  }

  /** For unset, every attribute is an unset whatever operator the client sent. */
  private static List<Attribute> attributes(Manage m) {
    if (m.getCommand() != Manage.Command.UNSET) {
      return m.getAttributesList();
    }
    return m.getAttributesList().stream()
        .map(a -> a.toBuilder().setOp(Attribute.Op.UNSET).build())
        .toList();
  }

  private static String key(Attribute a) {
    return a.getResource().isEmpty() ? a.getName() : a.getName() + "." + a.getResource();
  }

  private static AttributeValue change(String name, String value) {
    return value == null
        ? AttributeValue.newBuilder().setName(name).setUnset(true).build()
        : AttributeValue.newBuilder().setName(name).setValue(value).build();
  }

  private static Outcome done(Outcome out) {
    return out.reply(Response.newBuilder().setAck(Ack.getDefaultInstance()));
  }
}
