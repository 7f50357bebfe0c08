package dev.berth.tools.hosted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.client.ServerConnection;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.CommandNeeds;
import dev.berth.proto.CommandReply;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.LocalFile;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.RunCommand;
import dev.berth.proto.SubmitReply;
import dev.berth.tools.testing.FakeCli;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class HostedCommandTest {
  private static final String CWD = "/home/alice/work";

  /** A command as berth-cmd sends it first: qsub with its probe of the working directory. */
  private static RunCommand.Builder command(String name, String... args) {
    RunCommand.Builder command = bare(name, args);
    if (name.equals("qsub")) {
      command.addProbes(
          LocalFile.newBuilder()
              .setPath(CWD)
              .setProblem(LocalFile.Problem.DIRECTORY)
              .setWritable(true));
    }
    return command;
  }

  private static RunCommand.Builder bare(String name, String... args) {
    return RunCommand.newBuilder()
        .setName(name)
        .addAllArgs(List.of(args))
        .setCwd(CWD)
        .addEnvironment("HOME=/home/alice")
        .addEnvironment("PATH=/usr/bin:/bin")
        .addAllUnset(List.of("LANG", "LOGNAME", "MAIL", "SHELL", "TZ", "PBS_DPREFIX"))
        .addUnset("PBS_QSTAT_NO_COMPLETE")
        .setZone("Europe/Berlin")
        .setSubmissionId("sub-1");
  }

  private final FakeServer server =
      FakeServer.named(
          "srv",
          r ->
              r.hasSubmit()
                  ? Response.newBuilder()
                      .setSubmitted(SubmitReply.newBuilder().setJobId("7.srv"))
                      .build()
                  : FakeServer.error(Error.Code.UNKNOWN_JOB, "Unknown Job Id Error 9.srv"));

  private Response run(RunCommand.Builder command) {
    return run(command, FakeCli.context(server).connector());
  }

  private static Response run(RunCommand.Builder command, dev.berth.client.Connector connector) {
    try {
      ServerConnection connection = connector.connect(null);
      return HostedCommand.run(
          command.build(),
          "login1",
          r -> {
            try {
              return connection.call(r.toBuilder());
            } catch (dev.berth.client.ServerUnavailableException e) {
              throw new AssertionError(e);
            }
          },
          r -> r.hasStatJobs(),
          64 << 20);
    } catch (dev.berth.client.ServerUnavailableException e) {
      throw new AssertionError(e);
    }
  }

  private static String out(Response r, boolean err) {
    StringBuilder s = new StringBuilder();
    for (CommandReply.Output o : r.getCommand().getOutputList()) {
      if (o.getStderr() == err) {
        s.append(o.getData().toStringUtf8());
      }
    }
    return s.toString();
  }

  private static CommandNeeds needs(Response r) {
    assertTrue(r.getCommand().hasNeeds(), r.toString());
    return r.getCommand().getNeeds();
  }

  @Test
  void aScriptNotSentIsAskedForByItsAbsolutePathBeforeAnythingIsSent() {
    Response r = run(command("qsub", "job.sh"));
    assertEquals(List.of(CWD + "/job.sh"), needs(r).getFilesList());
    assertEquals(List.of(), server.commandRequests());
  }

  @Test
  void aScriptSentIsSubmittedWithTheClientsSubmissionIdAndHost() {
    Response r =
        run(
            command("qsub", "job.sh")
                .addFiles(
                    LocalFile.newBuilder()
                        .setPath(CWD + "/job.sh")
                        .setContent(ByteString.copyFromUtf8("#PBS -N x\ntrue\n"))));
    assertEquals("7.srv\n", out(r, false));
    assertEquals(0, r.getCommand().getExitStatus());
    Request sent = server.commandRequests().get(0);
    assertEquals("sub-1", sent.getSubmit().getSubmissionId());
    assertEquals("#PBS -N x\ntrue\n", sent.getSubmit().getScript().toStringUtf8());
    assertTrue(
        sent.toString().contains("PBS_O_HOST=login1"), "the caller's host, not the server's");
  }

  @Test
  void aFileTheClientCouldNotReadIsReportedAsTheJavaCommandReportsIt() {
    Response missing =
        run(
            command("qsub", "job.sh")
                .addFiles(
                    LocalFile.newBuilder()
                        .setPath(CWD + "/job.sh")
                        .setProblem(LocalFile.Problem.MISSING)));
    assertEquals("qsub: job script job.sh does not exist\n", out(missing, true));
    assertEquals(2, missing.getCommand().getExitStatus());
    Response denied =
        run(
            command("qsub", "job.sh")
                .addFiles(
                    LocalFile.newBuilder()
                        .setPath(CWD + "/job.sh")
                        .setProblem(LocalFile.Problem.DENIED)));
    assertEquals("qsub: job script job.sh cannot be read (permission denied)\n", out(denied, true));
  }

  @Test
  void aVariableTheClientDidNotMentionNeedsTheWholeEnvironment() {
    ByteString script = ByteString.copyFromUtf8("true\n");
    assertTrue(
        needs(run(command("qsub", "-V").setStdinGiven(true).setStdin(script))).getEnvironment());
    assertTrue(
        needs(run(command("qsub", "-v", "FOO").setStdinGiven(true).setStdin(script)))
            .getEnvironment());
    RunCommand.Builder unsure = command("qstat", "9").clearUnset();
    assertTrue(needs(run(unsure)).getEnvironment(), "PBS_QSTAT_NO_COMPLETE was not answered");
    Response answered = run(command("qstat", "9"));
    assertEquals("qstat: Unknown Job Id Error 9.srv\n", out(answered, true));
    assertEquals(153, answered.getCommand().getExitStatus());
  }

  @Test
  void aWorkingDirectoryTheCallerCannotWriteIsRefusedBeforeAnythingIsSent() {
    LocalFile script =
        LocalFile.newBuilder()
            .setPath(CWD + "/job.sh")
            .setContent(ByteString.copyFromUtf8("true\n"))
            .build();
    Response r =
        run(
            bare("qsub", "job.sh")
                .addFiles(script)
                .addProbes(
                    LocalFile.newBuilder()
                        .setPath(CWD)
                        .setProblem(LocalFile.Problem.DIRECTORY)
                        .setWritable(false)));
    assertEquals(
        "qsub: the job's output would go to /home/alice/work, where you cannot make files: submit"
            + " from a directory you can write, or give -o a path you can\n"
            + "qsub: no job was submitted\n",
        out(r, true));
    assertEquals(2, r.getCommand().getExitStatus());
    assertEquals(List.of(), server.commandRequests());
    assertEquals(
        List.of(CWD),
        needs(run(bare("qsub", "job.sh").addFiles(script))).getProbesList(),
        "a client that sent no probe is asked for it");
  }

  @Test
  void standardInputIsAskedForAndOnATerminalLeftToTheJavaCommand() {
    assertTrue(needs(run(command("qsub"))).getStdin());
    assertTrue(needs(run(command("qmgr").setTerminal(true))).getInteraction());
    Response fed =
        run(
            command("qsub")
                .setStdinGiven(true)
                .setStdin(ByteString.copyFromUtf8("#PBS -N fed\ntrue\n")));
    assertEquals("7.srv\n", out(fed, false));
  }

  @Test
  void anInteractiveJobIsLeftToTheJavaQsubBeforeAnythingIsSent() {
    Response r = run(command("qsub", "-I", "-l", "walltime=1:00:00").setTerminal(true));
    assertTrue(needs(r).getInteraction(), r.toString());
    assertEquals(List.of(), server.commandRequests());
    RunCommand.Builder x = command("qsub", "-I", "-x", "hostname -f");
    assertEquals(List.of(CWD + "/hostname -f"), needs(run(x)).getFilesList(), "a script?");
    x.addFiles(
        LocalFile.newBuilder().setPath(CWD + "/hostname -f").setProblem(LocalFile.Problem.MISSING));
    assertTrue(needs(run(x)).getInteraction(), "-x needs no terminal, but still a session");
    assertEquals(List.of(), server.commandRequests());
  }

  @Test
  void aScriptThatAsksForAnInteractiveJobIsLeftToTheJavaQsubToo() {
    Response r =
        run(
            command("qsub", "job.sh")
                .setTerminal(true)
                .addFiles(
                    LocalFile.newBuilder()
                        .setPath(CWD + "/job.sh")
                        .setContent(ByteString.copyFromUtf8("#PBS -I\n#PBS -N x\n"))));
    assertTrue(needs(r).getInteraction(), r.toString());
    assertEquals(List.of(), server.commandRequests());
  }

  @Test
  void interactiveWithoutATerminalIsRefusedAsTheJavaQsubRefusesIt() {
    Response r = run(command("qsub", "-I"));
    assertEquals(
        "qsub:\tstandard input and output must be a terminal for \n\tinteractive job"
            + " submission\n",
        out(r, true));
    assertEquals(1, r.getCommand().getExitStatus());
    assertEquals(List.of(), server.commandRequests());
  }

  @Test
  void outputKeepsTheOrderItWasWrittenIn() {
    RecordedOutput output = new RecordedOutput(1 << 20);
    output.out().print("a\n");
    output.err().print("b\n");
    output.err().print("c\n");
    output.out().print("d\n");
    assertEquals(
        List.of("out:a\n", "err:b\nc\n", "out:d\n"),
        output.chunks().stream()
            .map(o -> (o.getStderr() ? "err:" : "out:") + o.getData().toStringUtf8())
            .toList());
  }

  @Test
  void outputPastTheLimitIsDroppedAndTheOutputRefused() {
    RecordedOutput output = new RecordedOutput(8);
    output.out().print("1234");
    output.err().print("5678");
    assertFalse(output.overflowed());
    output.out().print("9");
    output.out().print("more and more");
    assertTrue(output.overflowed());
    assertEquals(
        "12345678",
        output.chunks().stream().map(o -> o.getData().toStringUtf8()).reduce("", String::concat));
  }

  @Test
  void aCommandThatWouldPrintMoreThanTheServerSendsBackIsRefusedWhole() {
    Response r =
        HostedCommand.run(
            command("qstat").build(),
            "login1",
            request ->
                Response.newBuilder()
                    .setJobs(
                        JobList.newBuilder()
                            .setServer("srv")
                            .addJobs(Job.newBuilder().setId("1.srv").setName("a".repeat(64))))
                    .build(),
            request -> true,
            64);
    assertEquals(1, r.getCommand().getExitStatus());
    assertEquals(
        "qstat: the output would be larger than 64 bytes, the most the server sends back for one"
            + " command; ask for less at a time\n",
        out(r, true));
    assertEquals("", out(r, false));
  }

  @Test
  void aServerSteppingDownAnswersForTheWholeCommand() {
    Function<Request, Response> down =
        r -> FakeServer.error(Error.Code.SERVER_DOWN, "this server is stepping down");
    FakeServer stepping = new FakeServer(down);
    Response r = run(command("qstat", "9"), FakeCli.context(stepping).connector());
    assertEquals(Error.Code.SERVER_DOWN, r.getError().getCode());
  }

  @Test
  void onlyKnownCommandsInAnAbsoluteDirectoryRun() {
    Response unknown = run(command("rm", "-rf", "/"));
    assertEquals("rm: not a command the server runs\n", out(unknown, true));
    Response relative = run(command("qstat").setCwd("work"));
    assertEquals(
        "qstat: the working directory 'work' is not an absolute path\n", out(relative, true));
    assertEquals(List.of(), server.requests());
  }
}
