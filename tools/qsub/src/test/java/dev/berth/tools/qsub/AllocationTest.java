package dev.berth.tools.qsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import dev.berth.tools.qsub.session.Terminal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * salloc and srun outside a job against an in-memory server that refuses every job: the interactive
 * job each asks for (its command, name and resources), and what each refuses before asking, in
 * Slurm's words. (The sessions themselves are InteractiveIT's and ContainerIT's.)
 */
class AllocationTest {
  private static final Response NO_ROOM =
      Response.newBuilder()
          .setError(Error.newBuilder().setCode(Error.Code.BAD_VALUE).setMessage("no room"))
          .build();

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final FakeServer server = new FakeServer(r -> NO_ROOM);

  private int run(String program, String... args) {
    SubmitContext ctx =
        new SubmitContext(dir, SubmitPlace.HOST, SubmitPlace.ENV, SubmitPlace.CLOCK);
    Invocation inv =
        new Invocation(
            program,
            List.of(args),
            ctx.env(),
            dir,
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    return program.equals("salloc")
        ? Salloc.run(inv, ctx, server, Terminal.NONE)
        : Srun.run(inv, ctx, server, Terminal.NONE);
  }

  private Map<String, String> sent() {
    return SubmitPlace.byName(server.requests().get(0).getSubmit().getAttributesList());
  }

  private String stderr() {
    return err.toString(UTF_8);
  }

  @Test
  void sallocAsksForAnInteractiveJobRunningItsCommand() {
    assertEquals(1, run("salloc", "-N", "2", "-J", "dev", "sh", "-c", "echo 'hi there'"));
    assertEquals("salloc: error: Job submit/allocate failed: no room\n", stderr());
    Map<String, String> a = sent();
    assertEquals("True", a.get("interactive"));
    assertEquals("sh -c 'echo '\"'\"'hi there'\"'\"''", a.get("inter_cmd"));
    assertEquals("dev", a.get("Job_Name"));
    assertEquals("2:ppn=1", a.get("Resource_List.nodes"));
    assertEquals("sbatch", a.get("submit_style"), "the job sees Slurm's variables");
    assertFalse(a.containsKey("Output_Path"), "its output is its terminal's");
  }

  @Test
  void sallocWithoutACommandIsALoginShellNamedInteractive() {
    assertEquals(1, run("salloc", "-t", "30"));
    Map<String, String> a = sent();
    assertFalse(a.containsKey("inter_cmd"));
    assertEquals("interactive", a.get("Job_Name"));
    assertEquals("1800", a.get("Resource_List.walltime"));
  }

  @Test
  void srunRunsItsStepInTheAllocationByTheToolsPath() {
    assertEquals(1, run("srun", "-n", "2", "-l", "--cpu-bind=q", "-t", "5", "hostname", "-s"));
    assertEquals("srun: error: Unable to allocate resources: no room\n", stderr());
    Map<String, String> a = sent();
    assertEquals(
        "\"${BERTH_TOOLS:+$BERTH_TOOLS/}srun\" --ntasks=2 --label --cpu-bind=q -- hostname -s",
        a.get("inter_cmd"));
    assertEquals("hostname", a.get("Job_Name"), "named after its program, as Slurm's");
    assertEquals("1:ppn=2", a.get("Resource_List.nodes"));
  }

  @Test
  void gpusPerTaskAskTheAllocationsGpusAndTheStepBindsThem() {
    assertEquals(1, run("srun", "-n", "2", "--gpus-per-task=1", "nvidia-smi"));
    Map<String, String> a = sent();
    assertEquals("1:ppn=2:gpus=2", a.get("Resource_List.nodes"));
    assertTrue(
        SubmitPlace.variables(server.requests().get(0).getSubmit().getAttributesList())
            .contains("SLURM_GPUS_PER_TASK=1"),
        a.toString());
  }

  @Test
  void srunPtyRunsTheCommandItselfOnTheTerminal() {
    assertEquals(1, run("srun", "--pty", "--container-image=pytorch", "bash"), stderr());
    Map<String, String> a = sent();
    assertEquals("bash", a.get("inter_cmd"));
    assertEquals("pytorch", a.get("container_image"), a.toString());
  }

  @Test
  void whatTheyCannotHonourIsRefusedBeforeAnythingIsAsked() {
    assertEquals(1, run("srun", "--pty", "-n", "2", "bash"));
    assertEquals(
        "srun: error: --pty with more than one task is not supported by Berth's srun yet\n",
        stderr());
    err.reset();
    assertEquals(1, run("srun", "--mpi=cray_shasta", "./a.out"));
    assertTrue(stderr().startsWith("srun: error: --mpi=cray_shasta is not supported"), stderr());
    err.reset();
    assertEquals(1, run("srun", "--qos=high", "true"));
    assertEquals(
        "srun: error: --qos is not supported by Berth's srun yet (docs/slurm.md lists what is)\n",
        stderr());
    err.reset();
    assertEquals(1, run("srun"));
    assertEquals("srun: fatal: No command given to execute.\n", stderr());
    err.reset();
    assertEquals(255, run("salloc", "--bogus"));
    assertTrue(stderr().startsWith("salloc: unrecognized option '--bogus'"), stderr());
    err.reset();
    assertEquals(1, run("salloc", "--mem=1G", "--mem-per-cpu=1G"));
    assertEquals(
        "salloc: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n",
        stderr());
    assertEquals(List.of(), server.requests(), "nothing asked for");
  }
}
