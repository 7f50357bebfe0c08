package dev.berth.tools.tm;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.berth.proto.TmAck;
import dev.berth.proto.TmError;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmInput;
import dev.berth.proto.TmNode;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmOutput;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSpawn;
import dev.berth.proto.TmSpawned;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A task manager in the test's hands, on a Unix socket: it answers the TM protocol from scripts
 * (what each spawned task prints and how it ends) and logs what it was asked, in order: {@code
 * spawn NODE VNODE}, {@code wait TASK}, {@code input TASK BYTES|eof}, {@code signal TASK SIG}.
 * Tasks run nowhere; this checks the commands' side of the protocol only. It can also refuse every
 * connection, as the mom refuses a process that is not the job's, and add fields of every wire type
 * that tm.proto does not have to what it sends, as a newer task manager might.
 */
public final class FakeTm implements AutoCloseable {
  /**
   * How a spawned task behaves.
   *
   * @param stdout printed at start (stream 1)
   * @param stderr printed at start (stream 2)
   * @param status its exit status (TmExited's form: 256 + signal, -1 not started)
   * @param spawnError when set, the spawn is refused with this message
   * @param startError when set, the task "could not start": it ends at once with -1 and this
   * @param untilSignalled runs until signalled, then ends with 256 + signal
   * @param echo copies its stdin to its stdout and ends at end of input
   */
  public record Script(
      String stdout,
      String stderr,
      int status,
      String spawnError,
      String startError,
      boolean untilSignalled,
      boolean echo) {
    public static Script exits(int status) {
      return new Script("", "", status, null, null, false, false);
    }

    public static Script prints(String stdout, String stderr, int status) {
      return new Script(stdout, stderr, status, null, null, false, false);
    }

    public static Script refused(String message) {
      return new Script("", "", 0, message, null, false, false);
    }

    public static Script cannotStart(String error) {
      return new Script("", "", -1, null, error, false, false);
    }

    public static Script runsUntilSignalled() {
      return new Script("", "", 0, null, null, true, false);
    }

    public static Script echoes() {
      return new Script("", "", 0, null, null, false, true);
    }
  }

  private final ServerSocketChannel server;
  private final Path socket;
  private final TmNodeList nodes;
  private final Function<TmSpawn, Script> scripts;
  private final List<String> log = Collections.synchronizedList(new ArrayList<>());
  private final List<TmSpawn> spawns = Collections.synchronizedList(new ArrayList<>());
  private volatile String refusal;
  private volatile boolean unknownFields;

  private FakeTm(Path socket, TmNodeList nodes, Function<TmSpawn, Script> scripts)
      throws IOException {
    this.socket = socket;
    this.nodes = nodes;
    this.scripts = scripts;
    this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    Thread acceptor = new Thread(this::accept, "fake-tm");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public static FakeTm start(Path dir, TmNodeList nodes, Function<TmSpawn, Script> scripts)
      throws IOException {
    return new FakeTm(dir.resolve("tm.sock"), nodes, scripts);
  }

  /** A job {@code 12.head} with these nodes; {@code "n1:2"} is node n1 with two slots. */
  public static TmNodeList job(String... nodes) {
    TmNodeList.Builder list = TmNodeList.newBuilder().setJobId("12.head");
    int vnode = 0;
    for (int i = 0; i < nodes.length; i++) {
      String[] parts = nodes[i].split(":");
      int slots = Integer.parseInt(parts[1]);
      list.addNodes(
          TmNode.newBuilder().setIndex(i).setName(parts[0]).setSlots(slots).setFirstVnode(vnode));
      vnode += slots;
    }
    return list.build();
  }

  public Path socket() {
    return socket;
  }

  /** What was asked, in order. */
  public List<String> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  public List<TmSpawn> spawns() {
    synchronized (spawns) {
      return List.copyOf(spawns);
    }
  }

  /** Waits until the log has an entry starting with {@code prefix}. */
  public void awaitLogged(String prefix) throws InterruptedException {
    for (int i = 0; i < 1000; i++) {
      if (log().stream().anyMatch(entry -> entry.startsWith(prefix))) {
        return;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("never logged " + prefix + ": " + log());
  }

  /** From now on, answers every connection with an error of id 0 and closes it. */
  public void refuse(String why) {
    refusal = why;
  }

  /** From now on, adds unknown fields (varint, fixed64, bytes, group, fixed32) to what it sends. */
  public void addUnknownFields() {
    unknownFields = true;
  }

  /** Stops listening and removes the socket, so a new one can take its place. */
  @Override
  public void close() throws IOException {
    server.close();
    Files.deleteIfExists(socket);
  }

  private void accept() {
    try {
      while (true) {
        SocketChannel connection = server.accept();
        Thread serving = new Thread(() -> serve(connection), "fake-tm-connection");
        serving.setDaemon(true);
        serving.start();
      }
    } catch (IOException e) {
      // closed
    }
  }

  private void serve(SocketChannel connection) {
    try (connection) {
      Connection served = new Connection(Channels.newOutputStream(connection));
      String why = refusal;
      if (why != null) {
        served.send(TmResponse.newBuilder().setError(TmError.newBuilder().setMessage(why)));
        return;
      }
      served.serve(Channels.newInputStream(connection));
    } catch (IOException e) {
      // the client went away
    }
  }

  /** One client's tasks; requests are handled one at a time, on the connection's thread. */
  private final class Connection {
    private final OutputStream out;
    private final Map<Integer, Task> tasks = new HashMap<>();

    Connection(OutputStream out) {
      this.out = out;
    }

    void serve(InputStream in) throws IOException {
      TmRequest request;
      while ((request = TmRequest.parseDelimitedFrom(in)) != null) {
        handle(request);
      }
    }

    private void handle(TmRequest request) throws IOException {
      long id = request.getId();
      switch (request.getBodyCase()) {
        case NODES -> send(TmResponse.newBuilder().setId(id).setNodes(nodes));
        case SPAWN -> spawn(id, request.getSpawn());
        case WAIT -> waitFor(id, request.getWait().getTaskId());
        case SIGNAL -> signal(id, request.getSignal().getTaskId(), request.getSignal().getSignal());
        case INPUT -> input(request.getInput());
        default -> send(error(id, "unknown request"));
      }
    }

    private void spawn(long id, TmSpawn spawn) throws IOException {
      log.add("spawn " + spawn.getNode() + " " + spawn.getVnode());
      spawns.add(spawn);
      Script script = scripts.apply(spawn);
      if (script.spawnError() != null) {
        send(error(id, script.spawnError()));
        return;
      }
      Task task = new Task(tasks.size() + 1, id, spawn, script);
      tasks.put(task.id, task);
      send(
          TmResponse.newBuilder()
              .setId(id)
              .setSpawned(TmSpawned.newBuilder().setTaskId(task.id).setNode(spawn.getNode())));
      output(task, 1, script.stdout().getBytes(StandardCharsets.UTF_8));
      output(task, 2, script.stderr().getBytes(StandardCharsets.UTF_8));
      if (!script.untilSignalled() && !script.echo()) {
        end(task, script.status());
      }
    }

    private void waitFor(long id, int taskId) throws IOException {
      log.add("wait " + taskId);
      Task task = tasks.get(taskId);
      if (task == null) {
        send(error(id, "no task " + taskId));
      } else if (task.ended) {
        send(exited(id, task));
      } else {
        task.waits.add(id);
      }
    }

    private void signal(long id, int taskId, int signal) throws IOException {
      log.add("signal " + taskId + " " + signal);
      Task task = tasks.get(taskId);
      if (task == null) {
        send(error(id, "no task " + taskId));
        return;
      }
      send(TmResponse.newBuilder().setId(id).setAck(TmAck.getDefaultInstance()));
      if (task.script.untilSignalled() && !task.ended) {
        end(task, 256 + signal);
      }
    }

    private void input(TmInput input) throws IOException {
      Task task = tasks.get(input.getTaskId());
      if (!input.getData().isEmpty()) {
        log.add("input " + input.getTaskId() + " " + input.getData().size());
        if (task != null && task.script.echo()) {
          output(task, 1, input.getData().toByteArray());
        }
      }
      if (input.getEof()) {
        log.add("input " + input.getTaskId() + " eof");
        if (task != null && task.script.echo() && !task.ended) {
          end(task, task.script.status());
        }
      }
    }

    private void output(Task task, int stream, byte[] data) throws IOException {
      if (data.length > 0 && task.relayed) {
        send(
            TmResponse.newBuilder()
                .setId(task.spawnId)
                .setOutput(
                    TmOutput.newBuilder()
                        .setTaskId(task.id)
                        .setStream(stream)
                        .setData(ByteString.copyFrom(data))));
      }
    }

    private void end(Task task, int status) throws IOException {
      task.ended = true;
      task.status = status;
      for (long wait : task.waits) {
        send(exited(wait, task));
      }
      task.waits.clear();
    }

    private TmResponse.Builder exited(long id, Task task) {
      TmExited.Builder exited =
          TmExited.newBuilder()
              .setTaskId(task.id)
              .setNode(task.node)
              .setExitStatus(task.script.startError() != null ? -1 : task.status);
      if (task.script.startError() != null) {
        exited.setError(task.script.startError());
      }
      return TmResponse.newBuilder().setId(id).setExited(exited);
    }

    private TmResponse.Builder error(long id, String message) {
      return TmResponse.newBuilder().setId(id).setError(TmError.newBuilder().setMessage(message));
    }

    private void send(TmResponse.Builder response) throws IOException {
      if (unknownFields) {
        withUnknownFields(response);
      }
      response.build().writeDelimitedTo(out);
      out.flush();
    }
  }

  private static final UnknownFieldSet UNKNOWN =
      UnknownFieldSet.newBuilder()
          .addField(
              99,
              UnknownFieldSet.Field.newBuilder()
                  .addVarint(-5)
                  .addFixed64(7)
                  .addLengthDelimited(ByteString.copyFromUtf8("from a newer task manager"))
                  .addGroup(
                      UnknownFieldSet.newBuilder()
                          .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
                          .build())
                  .addFixed32(3)
                  .build())
          .build();

  /** Unknown fields in the response, its body and, for a node list, every node. */
  private static void withUnknownFields(TmResponse.Builder response) {
    response.setUnknownFields(UNKNOWN);
    for (FieldDescriptor field : response.getAllFields().keySet()) {
      if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        Message.Builder body = response.getFieldBuilder(field);
        body.setUnknownFields(UNKNOWN);
      }
    }
    if (response.hasNodes()) {
      TmNodeList.Builder nodes = response.getNodesBuilder();
      for (int i = 0; i < nodes.getNodesCount(); i++) {
        nodes.getNodesBuilder(i).setUnknownFields(UNKNOWN);
      }
    }
  }

  private static final class Task {
    final int id;
    final long spawnId;
    final String node;
    final Script script;
    final boolean relayed;
    final List<Long> waits = new ArrayList<>();
    boolean ended;
    int status;

    Task(int id, long spawnId, TmSpawn spawn, Script script) {
      this.id = id;
      this.spawnId = spawnId;
      this.node = spawn.getNode();
      this.relayed = spawn.getRelayOutput();
      this.script = script;
    }
  }
}
