package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.proto.CommandNeeds;
import dev.berth.proto.CommandReply;
import dev.berth.proto.Error;
import dev.berth.proto.LocalFile;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * berth-cmd against a scripted server on a Unix socket: what it sends (RunCommand, read here with
 * the generated classes), how it answers the server's needs, and how it prints what the server
 * answers. The server side of the same protocol is proven in the integration tests.
 */
class BerthCmdTest {
  private static final Path BINARY = TmProcess.BINARY.resolveSibling("berth-cmd");

  @TempDir Path dir;
  private Path socket;
  private ServerSocketChannel server;
  private final List<Request> received = new CopyOnWriteArrayList<>();

  @BeforeEach
  void listen() throws IOException {
    socket = dir.resolve("server.sock");
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
  }

  @AfterEach
  void close() throws IOException {
    server.close();
  }

  /** Answers each request of one connection with {@code answer}; null closes the connection. */
  private CompletableFuture<Void> serve(Function<Request, Response.Builder> answer) {
    return CompletableFuture.runAsync(
        () -> {
          try (SocketChannel c = server.accept()) {
            InputStream in = Channels.newInputStream(c);
            OutputStream out = Channels.newOutputStream(c);
            Request request;
            while ((request = Request.parseDelimitedFrom(in)) != null) {
              received.add(request);
              Response.Builder reply = answer.apply(request);
              if (reply == null) {
                return;
              }
              reply.setId(request.getId()).build().writeDelimitedTo(out);
              out.flush();
            }
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("BERTH_SERVER", socket.toString());
    env.put("HOME", "/home/alice");
    env.put("TZ", "Asia/Tokyo");
    env.put("FOO", "bar");
    return env;
  }

  private TmProcess.Result run(String stdin, String command, String... args) throws Exception {
    Files.writeString(dir.resolve("stdin"), stdin);
    List<String> argv = new ArrayList<>(List.of(BINARY.toString(), command));
    argv.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .directory(dir.toFile())
            .redirectInput(dir.resolve("stdin").toFile())
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(dir.resolve("stderr").toFile());
    builder.environment().clear();
    builder.environment().putAll(env());
    Process p = builder.start();
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "berth-cmd did not finish");
    return new TmProcess.Result(
        p.exitValue(),
        Files.readString(dir.resolve("stdout")),
        Files.readString(dir.resolve("stderr")));
  }

  private static Response.Builder output(int status, Object... streamAndText) {
    CommandReply.Builder reply = CommandReply.newBuilder().setExitStatus(status);
    for (int i = 0; i < streamAndText.length; i += 2) {
      reply.addOutput(
          CommandReply.Output.newBuilder()
              .setStderr((Boolean) streamAndText[i])
              .setData(ByteString.copyFromUtf8((String) streamAndText[i + 1])));
    }
    return Response.newBuilder().setCommand(reply);
  }

  /** The server's answer that the command needs {@code needs} before it can run. */
  private static Response.Builder needs(CommandNeeds.Builder needs) {
    return Response.newBuilder().setCommand(CommandReply.newBuilder().setNeeds(needs));
  }

  @Test
  void sendsTheCommandAndPrintsWhatTheServerAnswers() throws Exception {
    CompletableFuture<Void> served =
        serve(r -> output(153, false, "out 1\n", true, "err\n", false, "out 2\n"));
    TmProcess.Result result = run("", "qstat", "-f", "", "1.vm");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(new TmProcess.Result(153, "out 1\nout 2\n", "err\n"), result);

    RunCommand sent = received.get(0).getRunCommand();
    assertEquals("qstat", sent.getName());
    assertEquals(List.of("-f", "", "1.vm"), sent.getArgsList(), "an empty argument is kept");
    assertEquals(dir.toRealPath().toString(), sent.getCwd());
    assertTrue(sent.getEnvironmentList().containsAll(List.of("HOME=/home/alice", "TZ=Asia/Tokyo")));
    assertTrue(sent.getUnsetList().containsAll(List.of("PATH", "LOGNAME", "PBS_DPREFIX")));
    assertFalse(
        sent.getEnvironmentList().contains("FOO=bar"), "only the variables commands read go");
    assertFalse(sent.getWholeEnvironment());
    assertFalse(sent.getStdinGiven());
    assertTrue(
        sent.getSubmissionId()
            .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-.{12}"),
        sent.getSubmissionId());
  }

  /** squeue -i: the server says when to ask again; the client asks, the same request each time. */
  @Test
  void asksAgainWhenTheServerSaysSo() throws Exception {
    CompletableFuture<Void> served =
        serve(
            r -> {
              Response.Builder reply = output(0, false, "list " + received.size() + "\n");
              if (received.size() < 3) {
                reply.getCommandBuilder().setRepeatAfterSeconds(1);
              }
              return reply;
            });
    TmProcess.Result result = run("", "squeue", "-i", "1");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(new TmProcess.Result(0, "list 1\nlist 2\nlist 3\n", ""), result);
    assertEquals(3, received.size());
    assertEquals(
        received.get(0).getRunCommand().getArgsList(),
        received.get(2).getRunCommand().getArgsList());
  }

  @Test
  void sendsWhatTheServerNeedsReadWithItsOwnPermissions() throws Exception {
    Files.writeString(dir.resolve("job.sh"), "#PBS -N x\ntrue\n");
    Files.createDirectory(dir.resolve("adir"));
    String job = dir.toRealPath().resolve("job.sh").toString();
    String missing = dir.toRealPath().resolve("missing.sh").toString();
    String adir = dir.toRealPath().resolve("adir").toString();
    CompletableFuture<Void> served =
        serve(
            r ->
                r.getId() == 1
                    ? needs(
                        CommandNeeds.newBuilder()
                            .setStdin(true)
                            .setEnvironment(true)
                            .addFiles(job)
                            .addFiles(missing)
                            .addFiles(adir)
                            .addFiles("/etc/hostname"))
                    : output(0, false, "1.vm\n"));
    TmProcess.Result result = run("from stdin\n", "qsub", "job.sh", "missing.sh", "adir/");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(new TmProcess.Result(0, "1.vm\n", ""), result);

    assertEquals(2, received.size());
    RunCommand again = received.get(1).getRunCommand();
    assertEquals(received.get(0).getRunCommand().getSubmissionId(), again.getSubmissionId());
    assertTrue(again.getStdinGiven());
    assertEquals("from stdin\n", again.getStdin().toStringUtf8());
    assertTrue(again.getWholeEnvironment());
    assertTrue(again.getEnvironmentList().contains("FOO=bar"));
    Map<String, LocalFile> files = new HashMap<>();
    again.getFilesList().forEach(f -> files.put(f.getPath(), f));
    assertEquals("#PBS -N x\ntrue\n", files.get(job).getContent().toStringUtf8());
    assertEquals(LocalFile.Problem.MISSING, files.get(missing).getProblem());
    assertEquals(LocalFile.Problem.DIRECTORY, files.get(adir).getProblem());
    LocalFile unnamed = files.get("/etc/hostname");
    assertEquals(LocalFile.Problem.OTHER, unnamed.getProblem(), "only files the caller named go");
    assertTrue(unnamed.getContent().isEmpty());
  }

  @Test
  void qsubSendsItsScriptWithTheFirstRequest() throws Exception {
    Files.writeString(dir.resolve("job.sh"), "#PBS -N x\ntrue\n");
    CompletableFuture<Void> served = serve(r -> output(0, false, "1.vm\n"));
    TmProcess.Result result = run("", "qsub", "-l", "nodes=1", "job.sh");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(new TmProcess.Result(0, "1.vm\n", ""), result);
    assertEquals(1, received.size(), "one round trip");
    List<LocalFile> files = received.get(0).getRunCommand().getFilesList();
    assertEquals(1, files.size());
    assertEquals(dir.toRealPath().resolve("job.sh").toString(), files.get(0).getPath());
    assertEquals("#PBS -N x\ntrue\n", files.get(0).getContent().toStringUtf8());
  }

  @Test
  void qsubsScriptIsFoundByQsubsOwnOptionRules() throws Exception {
    for (String name : List.of("a.sh", "b.sh", "-c.sh")) {
      Files.writeString(dir.resolve(name), "true\n");
    }
    Map<List<String>, List<String>> sent = new java.util.LinkedHashMap<>();
    sent.put(List.of("-N", "a.sh", "b.sh"), List.of("b.sh"));
    sent.put(List.of("b.sh", "-N", "a.sh"), List.of("b.sh"));
    sent.put(List.of("-hN", "a.sh", "b.sh"), List.of("b.sh"));
    sent.put(List.of("-Na.sh", "b.sh"), List.of("b.sh"));
    sent.put(List.of("-l", "nodes=1", "--", "-c.sh"), List.of("-c.sh"));
    sent.put(List.of("--version", "a.sh"), List.of("a.sh"));
    sent.put(List.of("a.sh", "b.sh"), List.of());
    sent.put(List.of("-I"), List.of());
    sent.put(List.of("-N", "a.sh"), List.of());
    sent.put(List.of("-Y", "a.sh"), List.of());
    for (Map.Entry<List<String>, List<String>> line : sent.entrySet()) {
      received.clear();
      CompletableFuture<Void> served = serve(r -> output(0, false, "1.vm\n"));
      run("", "qsub", line.getKey().toArray(String[]::new));
      served.get(10, TimeUnit.SECONDS);
      List<String> files =
          received.get(0).getRunCommand().getFilesList().stream()
              .map(f -> Path.of(f.getPath()).getFileName().toString())
              .toList();
      assertEquals(line.getValue(), files, "qsub " + line.getKey());
    }
  }

  @Test
  void aFileSentAheadIsNotSentAgainWhenTheServerAsksForIt() throws Exception {
    Files.writeString(dir.resolve("job.sh"), "true\n");
    String job = dir.toRealPath().resolve("job.sh").toString();
    CompletableFuture<Void> served =
        serve(
            r ->
                r.getId() == 1
                    ? needs(CommandNeeds.newBuilder().setEnvironment(true).addFiles(job))
                    : output(0, false, "1.vm\n"));
    run("", "qsub", "-V", "job.sh");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(2, received.size());
    assertEquals(1, received.get(1).getRunCommand().getFilesCount());
  }

  @Test
  void aBrokenConnectionIsReportedAsTheJavaCommandsReportIt() throws Exception {
    CompletableFuture<Void> served = serve(r -> null);
    TmProcess.Result result = run("", "qsub", "job.sh");
    served.get(10, TimeUnit.SECONDS);
    String id = received.get(0).getRunCommand().getSubmissionId();
    assertEquals(
        new TmProcess.Result(
            1,
            "",
            "qsub: cannot talk to the Berth server at "
                + socket
                + ": the server closed the connection without answering (is it running? start it"
                + " with `berth up`, or set BERTH_SERVER)\n"
                + "qsub: the job may have been submitted (submission id "
                + id
                + "); check with qstat before submitting it again\n"),
        result);
  }

  @Test
  void qmgrReportsAnUnreachableServerWithTorquesStatus() throws Exception {
    CompletableFuture<Void> served = serve(r -> null);
    TmProcess.Result result = run("", "qmgr", "-c", "list server");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(3, result.status(), result.toString());
  }

  @Test
  void closedStandardDescriptorsAreNotTakenForTheSocket() throws Exception {
    CompletableFuture<Void> served = serve(r -> output(0, false, "out\n", true, "err\n"));
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", "exec \"$0\" qstat <&- 2>&-", BINARY.toString())
            .directory(dir.toFile())
            .redirectOutput(dir.resolve("stdout").toFile());
    builder.environment().clear();
    builder.environment().putAll(env());
    Process p = builder.start();
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "berth-cmd did not finish");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(0, p.exitValue());
    assertEquals("out\n", Files.readString(dir.resolve("stdout")));
  }

  @Test
  void aCommandLineThatIsNotUtf8GoesToTheJavaCommand() throws Exception {
    // The Java command (the checkout's ops/bin/berth-java) asks this server itself, with a request
    // of its own: the native client sent nothing protobuf could not carry.
    serve(r -> null);
    ProcessBuilder builder =
        new ProcessBuilder("sh", "-c", "exec \"$0\" qstat \"$(printf '\\377')\"", BINARY.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout").toFile());
    builder.environment().clear();
    builder.environment().putAll(env());
    builder.environment().put("PATH", System.getenv("PATH"));
    Process p = builder.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the Java command did not finish");
    // Before the Java commands are built, berth-java says so and asks nothing.
    String out = Files.readString(dir.resolve("stdout"));
    assertTrue(!received.isEmpty() || out.contains("not built yet"), out);
    assertTrue(
        received.stream().noneMatch(Request::hasRunCommand), "the native client sent it: " + out);
  }

  @Test
  void anErrorFromTheServerIsPrintedWithTheCommandsName() throws Exception {
    CompletableFuture<Void> served =
        serve(
            r ->
                Response.newBuilder()
                    .setError(
                        Error.newBuilder()
                            .setCode(Error.Code.INTERNAL)
                            .setMessage("the server could not run the command")));
    TmProcess.Result result = run("", "qdel", "1");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(
        new TmProcess.Result(1, "", "qdel: the server could not run the command\n"), result);
  }

  @Test
  void outputIsWrittenAsBytes() throws Exception {
    byte[] bytes = "caf\u00e9 \u2713\n".getBytes(StandardCharsets.UTF_8);
    CompletableFuture<Void> served =
        serve(
            r ->
                Response.newBuilder()
                    .setCommand(
                        CommandReply.newBuilder()
                            .addOutput(
                                CommandReply.Output.newBuilder()
                                    .setData(ByteString.copyFrom(bytes)))));
    TmProcess.Result result = run("", "pbsnodes", "-a");
    served.get(10, TimeUnit.SECONDS);
    assertEquals(new TmProcess.Result(0, "caf\u00e9 \u2713\n", ""), result);
  }
}
