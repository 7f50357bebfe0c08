package dev.berth.tools.qsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitReply;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sbatch end to end against an in-memory server: what it sends for Slurm's options and directives,
 * what it prints, and what it refuses, in Slurm's words and exit statuses.
 */
class SbatchTest {
  private static final Response SUBMITTED =
      Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId("42.head")).build();

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final FakeServer server = new FakeServer(r -> SUBMITTED);
  private SubmitContext ctx;
  private byte[] stdin = new byte[0];

  @BeforeEach
  void place() {
    ctx = new SubmitContext(dir, SubmitPlace.HOST, SubmitPlace.ENV, SubmitPlace.CLOCK);
  }

  private int sbatch(FakeServer to, String... args) {
    Invocation inv =
        new Invocation(
            "sbatch",
            List.of(args),
            ctx.env(),
            dir,
            new ByteArrayInputStream(stdin),
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    return Sbatch.run(inv, ctx, to);
  }

  private int sbatch(String... args) {
    return sbatch(server, args);
  }

  private String script(String text) throws Exception {
    Files.writeString(dir.resolve("job.sh"), text, UTF_8);
    return "job.sh";
  }

  private Map<String, String> sent() {
    return SubmitPlace.byName(server.requests().get(0).getSubmit().getAttributesList());
  }

  private Map<String, String> variables() {
    Map<String, String> v = new HashMap<>();
    for (String entry :
        SubmitPlace.variables(server.requests().get(0).getSubmit().getAttributesList())) {
      int eq = entry.indexOf('=');
      v.put(entry.substring(0, eq), entry.substring(eq + 1));
    }
    return v;
  }

  private String stderr() {
    return err.toString(UTF_8);
  }

  @Test
  void aScriptWithDirectivesIsSubmittedAsSlurmRunsIt() throws Exception {
    String file =
        script(
            "#!/bin/bash\n"
                + "#SBATCH -J train --time=1:30\n"
                + "# a comment between directives\n"
                + "#SBATCH --output=logs/%x-%j.out -p gpu\n"
                + "#SBATCH --mem=2G\n"
                + "srun hostname\n"
                + "#SBATCH --job-name=too-late\n");
    assertEquals(0, sbatch(file), stderr());
    assertEquals("Submitted batch job 42\n", out.toString(UTF_8));
    Map<String, String> sent = sent();
    assertEquals("train", sent.get("Job_Name"));
    assertEquals("120", sent.get("Resource_List.walltime"), "1:30 is two minutes, rounded up");
    assertEquals("gpu", sent.get("destination"));
    assertEquals(SubmitPlace.HOST + ":" + dir + "/logs/%x-%j.out", sent.get("Output_Path"));
    assertEquals(sent.get("Output_Path"), sent.get("Error_Path"));
    assertEquals("oe", sent.get("Join_Path"));
    assertEquals("1:ppn=1", sent.get("Resource_List.nodes"));
    assertEquals("2048mb", sent.get("Resource_List.mem"));
    assertEquals(dir.toString(), sent.get("init_work_dir"));
    assertEquals("sbatch", sent.get("submit_style"));
    Map<String, String> v = variables();
    assertEquals(dir.toString(), v.get("SLURM_SUBMIT_DIR"));
    assertEquals(SubmitPlace.HOST, v.get("SLURM_SUBMIT_HOST"));
    assertEquals("2048", v.get("SLURM_MEM_PER_NODE"));
    assertEquals("bar", v.get("FOO"), "--export=ALL by default");
    assertEquals(dir.toString(), v.get("PBS_O_WORKDIR"));
  }

  @Test
  void theCommandLineWinsAndTheDefaultsAreSlurms() throws Exception {
    String file = script("#!/bin/sh\n#SBATCH -J fromscript\ntrue\n");
    assertEquals(0, sbatch("--job-name=cmd", "--parsable", file), stderr());
    assertEquals("42\n", out.toString(UTF_8));
    assertEquals("cmd", sent().get("Job_Name"));
    assertEquals(SubmitPlace.HOST + ":" + dir + "/slurm-%j.out", sent().get("Output_Path"));
  }

  @Test
  void anArrayGoesAsItIsAndItsTasksWriteToSlurmsArrayFileByDefault() throws Exception {
    String file = script("#!/bin/sh\n#SBATCH --array=0-15:4%2\ntrue\n");
    assertEquals(0, sbatch(file), stderr());
    assertEquals("0-15:4%2", sent().get("job_array_request"));
    assertEquals(SubmitPlace.HOST + ":" + dir + "/slurm-%A_%a.out", sent().get("Output_Path"));
    assertEquals(SubmitPlace.HOST + ":" + dir + "/slurm-%A_%a.out", sent().get("Error_Path"));
  }

  @Test
  void tasksNodesAndCpusBecomeNodeGroupsAsSlurmLaysThemOut() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(0, sbatch("-N", "2", "-n", "5", "-c", "2", file), stderr());
    assertEquals("1:ppn=6+1:ppn=4", sent().get("Resource_List.nodes"));
    assertEquals("5", variables().get("SLURM_NTASKS"));
    assertEquals("2", variables().get("SLURM_CPUS_PER_TASK"));

    server.requests().clear();
    assertEquals(0, sbatch("-n", "5", "--ntasks-per-node=2", file), stderr());
    assertEquals("2:ppn=2+1:ppn=1", sent().get("Resource_List.nodes"));
  }

  @Test
  void exportNoneAndAListSendOnlyWhatTheyName() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(0, sbatch("--export=FOO,X=1", file), stderr());
    Map<String, String> v = variables();
    assertEquals("bar", v.get("FOO"));
    assertEquals("1", v.get("X"));
    assertFalse(v.containsKey("LIST"));
    assertEquals("FOO,X=1", v.get("SLURM_EXPORT_ENV"));
  }

  @Test
  void wrapMakesTheScript() {
    assertEquals(0, sbatch("--wrap=hostname -s"), stderr());
    assertEquals("wrap", sent().get("Job_Name"));
    assertEquals(
        "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname -s\n",
        server.requests().get(0).getSubmit().getScript().toStringUtf8());
  }

  @Test
  void pyxisContainerOptionsBecomeBerthsContainerAttributes() throws Exception {
    String file =
        script(
            "#!/bin/sh\n#SBATCH --container-image=pytorch\n#SBATCH --container-remap-root\ntrue\n");
    assertEquals(
        0,
        sbatch(
            "--container-mounts=" + dir + "," + dir + ":/data:ro",
            "--container-workdir=/data",
            "--container-name=work:auto",
            "--no-container-remap-root",
            "--container-writable",
            "--no-container-mount-home",
            "--container-env=NCCL_DEBUG,CUDA_HOME",
            file),
        stderr());
    Map<String, String> a = sent();
    assertEquals("pytorch", a.get("container_image"));
    assertEquals(dir + ":" + dir + "," + dir + ":/data:ro", a.get("container_mounts"));
    assertEquals("/data", a.get("container_workdir"));
    assertEquals("work", a.get("container_name"));
    assertFalse(a.containsKey("container_remap_root"), "the command line's --no- wins");
    assertEquals("True", a.get("container_writable"));
    assertEquals("NCCL_DEBUG,CUDA_HOME", a.get("container_env"));
  }

  @Test
  void registryImagesMissingFilesAndPyxisFlagsBerthLacksAreRefused() {
    assertEquals(1, sbatch("--container-image=nvcr.io#nvidia/pytorch:23.01", "--wrap=true"));
    assertTrue(
        stderr().contains(": Berth runs squashfs images, a file or a name imported"), stderr());
    assertEquals(1, sbatch("--container-image=./missing.sqsh", "--wrap=true"));
    assertTrue(
        stderr().contains("container_image " + dir + "/missing.sqsh: no such file"), stderr());
    assertEquals(1, sbatch("--container-image=x", "--container-mounts=/a:/b:private", "--wrap=t"));
    assertTrue(stderr().contains("mount flags 'private' are not supported"), stderr());
    assertEquals(1, sbatch("--container-image=x", "--container-save=/tmp/x", "--wrap=true"));
    assertTrue(
        stderr().contains("--container-save is not supported by Berth's sbatch yet"), stderr());
    assertEquals(List.of(), server.requests(), "nothing submitted");
  }

  @Test
  void whatBerthDoesNotHonourIsRefusedByNameAndNothingIsSent() throws Exception {
    String file = script("#!/bin/sh\n#SBATCH --gpus-per-socket=1\ntrue\n");
    assertEquals(1, sbatch(file));
    assertEquals(
        "sbatch: error: --gpus-per-socket is not supported by Berth's sbatch yet (docs/slurm.md"
            + " lists what is)\n",
        stderr());
    assertTrue(server.requests().isEmpty());

    err.reset();
    ctx = new SubmitContext(dir, ctx.host(), Map.of("SBATCH_QOS", "high"), ctx.clock());
    assertEquals(1, sbatch(script("#!/bin/sh\ntrue\n")));
    assertTrue(stderr().contains("SBATCH_QOS is set: --qos is not supported"), stderr());
    assertTrue(server.requests().isEmpty());
  }

  @Test
  void badOptionsAndValuesExit255InSlurmsWords() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(255, sbatch("--bogus", file));
    assertEquals(
        "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n",
        stderr());
    err.reset();
    assertEquals(255, sbatch("-t", "1:2:3:4", file));
    assertEquals("sbatch: error: Invalid --time specification\n", stderr());
    err.reset();
    assertEquals(255, sbatch("--mem=lots", file));
    assertEquals("sbatch: error: Invalid --mem specification\n", stderr());
    err.reset();
    assertEquals(255, sbatch("--mem-per", "1", file));
    assertTrue(stderr().startsWith("sbatch: option '--mem-per' is ambiguous"), stderr());
    assertTrue(server.requests().isEmpty());
  }

  @Test
  void scriptsSlurmRefusesAreRefused() throws Exception {
    assertEquals(1, sbatch(script("echo no interpreter line\n")));
    assertTrue(stderr().contains("This does not look like a batch script."), stderr());
    err.reset();
    assertEquals(1, sbatch(script("#!/bin/sh\r\ntrue\r\n")));
    assertTrue(stderr().contains("DOS line breaks"), stderr());
    err.reset();
    assertEquals(1, sbatch("missing.sh"));
    assertEquals("sbatch: error: Unable to open file missing.sh\n", stderr());
    err.reset();
    assertEquals(1, sbatch(script("#!/bin/sh\n#PBS -N torque\n#SBATCH -J slurm\ntrue\n")));
    assertTrue(stderr().contains("a #PBS directive: Berth's sbatch reads only #SBATCH"), stderr());
    assertTrue(server.requests().isEmpty());
    err.reset();
    assertEquals(0, sbatch("--ignore-pbs", "job.sh"), stderr());
    assertEquals("slurm", sent().get("Job_Name"));
  }

  @Test
  void aServerRefusalIsSlurmsSubmissionFailure() throws Exception {
    FakeServer refusing =
        new FakeServer(
            r ->
                Response.newBuilder()
                    .setError(
                        Error.newBuilder()
                            .setCode(Error.Code.UNKNOWN_QUEUE)
                            .setMessage("Unknown queue nosuch"))
                    .build());
    assertEquals(1, sbatch(refusing, "-p", "nosuch", script("#!/bin/sh\ntrue\n")));
    assertEquals("sbatch: error: Batch job submission failed: Unknown queue nosuch\n", stderr());
  }

  @Test
  void dependenciesBeginMailGpusAndExclusiveAsTorquesAttributes() throws Exception {
    String file = script("#!/bin/sh\n#SBATCH --gres=gpu:2 -N 2 --exclusive\ntrue\n");
    assertEquals(
        0,
        sbatch(
            "--dependency=afterok:12:13_2,afterany:14,singleton",
            "--begin=now+2hours",
            "--mail-type=BEGIN,END",
            "--mail-user=alice@example.org",
            file),
        stderr());
    Map<String, String> sent = sent();
    assertEquals("afterok:12:13[2],afterany:14,singleton", sent.get("depend"));
    assertEquals(
        Long.toString(SubmitPlace.CLOCK.instant().getEpochSecond() + 7200),
        sent.get("Execution_Time"));
    assertEquals("be", sent.get("Mail_Points"));
    assertEquals("alice@example.org", sent.get("Mail_Users"));
    assertEquals("2:ppn=1:gpus=2", sent.get("Resource_List.nodes"));
    assertEquals("True", sent.get("node_exclusive"));
    assertEquals("afterok:12:13_2,afterany:14,singleton", variables().get("SLURM_JOB_DEPENDENCY"));
  }

  @Test
  void gpusForTheWholeJobAreAsManyOnEachNode() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(0, sbatch("--gpus=4", "-N", "2", file), stderr());
    assertEquals("2:ppn=1:gpus=2", sent().get("Resource_List.nodes"));
    assertEquals("4", variables().get("SLURM_GPUS"));
    assertEquals(1, sbatch("--gpus=3", "-N", "2", file));
    assertTrue(stderr().contains("--gpus=3 over 2 nodes: Berth gives each node"), stderr());
    assertEquals(1, sbatch("--gpus=a100:2", file));
    assertTrue(stderr().contains("GPU types are not supported"), stderr());
    assertEquals(1, sbatch("--gpus=2", "--gres=gpu:1", file));
    assertTrue(stderr().contains("give the GPUs one way"), stderr());
  }

  @Test
  void gpusPerTaskAreAsManyTimesTheTasksOnEachNode() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(0, sbatch("--gpus-per-task=2", "-N", "2", "-n", "4", file), stderr());
    assertEquals("2:ppn=2:gpus=4", sent().get("Resource_List.nodes"));
    assertEquals("2", variables().get("SLURM_GPUS_PER_TASK"));
    assertEquals(0, sbatch("--gpus-per-task=1", "-N", "1", "--ntasks-per-node=3", "-c", "2", file));
    assertEquals(
        "1:ppn=6:gpus=3",
        SubmitPlace.byName(server.requests().get(1).getSubmit().getAttributesList())
            .get("Resource_List.nodes"),
        "tasks, not CPUs");
    assertEquals(1, sbatch("--gpus-per-task=1", "-N", "2", file));
    assertTrue(stderr().contains("--gpus-per-task needs a task count"), stderr());
    assertEquals(1, sbatch("--gpus-per-task=1", "--gpus=2", "-n", "2", file));
    assertTrue(stderr().contains("give the GPUs one way"), stderr());
    assertEquals(1, sbatch("--gpus-per-task=1", "-N", "2", "-n", "3", file));
    assertTrue(stderr().contains("spread unevenly"), stderr());
  }

  @Test
  void whatTheseCannotExpressIsRefused() throws Exception {
    String file = script("#!/bin/sh\ntrue\n");
    assertEquals(1, sbatch("--dependency=aftercorr:12", file));
    assertTrue(stderr().contains("aftercorr is not supported"), stderr());
    err.reset();
    assertEquals(1, sbatch("--dependency=afterok:1?afterok:2", file));
    err.reset();
    assertEquals(255, sbatch("--begin=someday", file));
    assertEquals("sbatch: error: Invalid --begin specification\n", stderr());
    err.reset();
    assertEquals(1, sbatch("--mail-type=TIME_LIMIT_80", file));
    err.reset();
    assertEquals(1, sbatch("--gres=gpu:a100:1", file));
    err.reset();
    assertEquals(1, sbatch("--exclusive=user", file));
    assertTrue(server.requests().isEmpty());
    assertEquals("aef", SlurmRequests.mailPoints("FAIL"));
    assertEquals("n", SlurmRequests.mailPoints("NONE"));
  }
}
