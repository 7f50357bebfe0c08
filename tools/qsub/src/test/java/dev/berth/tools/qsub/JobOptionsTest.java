package dev.berth.tools.qsub;

import static dev.berth.tools.qsub.SubmitPlace.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Merging rules and the value checks qsub makes before anything is sent. */
class JobOptionsTest {
  private static String error(String... args) {
    return assertThrows(QsubException.class, () -> options(args)).getMessage();
  }

  @Test
  void lastOccurrenceReplacesTheWholeValue() throws Exception {
    JobOptions o = options("-m", "b", "-m", "e", "-m", "a", "-e", "x", "-e", "y");
    assertEquals("a", o.attributes().get("Mail_Points"));
    assertEquals("login1.example.org:/home/alice/work/y", o.attributes().get("Error_Path"));
  }

  @Test
  void resourcesMergePerName() throws Exception {
    JobOptions o =
        options("-l", "nodes=1:ppn=4,walltime=1:00:00", "-l", "walltime=2:00:00", "-l", "mem=1gb");
    assertEquals(Map.of("nodes", "1:ppn=4", "walltime", "2:00:00", "mem", "1gb"), o.resources());
  }

  @Test
  void resourceWithoutValueIsRefused() {
    assertEquals("-l wd: resource request must be name=value", error("-l", "wd"));
    assertEquals("-l wd: resource request must be name=value", error("-l", "nodes=1,wd"));
    assertEquals("-l mem=: resource mem has no value", error("-l", "mem="));
    assertEquals("-l =4: resource request must be name=value", error("-l", "=4"));
  }

  @Test
  void unknownResourcesAreKeptAsIs() throws Exception {
    JobOptions o = options("-l", "select=1:ncpus=2:mem=12GB", "-l", "place=pack");
    assertEquals(Map.of("select", "1:ncpus=2:mem=12GB", "place", "pack"), o.resources());
  }

  @Test
  void valuesWithControlCharactersAreRefusedBeforeAnythingIsSent() {
    assertEquals(
        "-N: the value holds the control character \\x1b; no value may hold control"
            + " characters, newlines or terminal escapes",
        error("-N", "x\u001b[2J"));
    assertTrue(
        error("-o", "/tmp/out\nx").startsWith("-o: the value holds the control character \\n"));
    assertTrue(error("-v", "A=1\u0007").startsWith("-v: the value holds"));
    assertTrue(error("-A", "acct\u202e").contains("\\u202e"));
  }

  @Test
  void mailPoints() throws Exception {
    assertEquals("abe", options("-m", "abe").attributes().get("Mail_Points"));
    assertEquals("n", options("-m", "n").attributes().get("Mail_Points"));
    assertEquals("p", options("-m", "p").attributes().get("Mail_Points"));
    assertEquals("f", options("-m", "f").attributes().get("Mail_Points"));
    assertTrue(error("-m", "x").startsWith("-m x: use n (no mail), p, or letters from"));
    assertTrue(error("-m", "an").startsWith("-m an:"));
    assertTrue(error("-m", "").startsWith("-m :"));
  }

  @Test
  void priorityRange() throws Exception {
    assertEquals("-1024", options("-p", "-1024").attributes().get("Priority"));
    assertEquals("1023", options("-p", "1023   ").attributes().get("Priority"));
    assertEquals("5", options("-p", "+5").attributes().get("Priority"));
    assertEquals("-p 1024: priority must be between -1024 and 1023", error("-p", "1024"));
    assertEquals("-p -1025: priority must be between -1024 and 1023", error("-p", "-1025"));
    assertTrue(error("-p", "high").startsWith("-p high: priority must be a whole number"));
  }

  @Test
  void rerunableJoinKeep() throws Exception {
    assertEquals("True", options("-r", "y").attributes().get("Rerunable"));
    assertEquals("False", options("-r", "n").attributes().get("Rerunable"));
    assertEquals("-r yes: use y (rerunnable) or n", error("-r", "yes"));
    assertEquals("eo", options("-j", "eo").attributes().get("Join_Path"));
    assertTrue(error("-j", "oe,eo").startsWith("-j oe,eo: use oe"));
    for (String keep : List.of("o", "e", "oe", "eo", "n")) {
      assertEquals(keep, options("-k", keep).attributes().get("Keep_Files"));
    }
    assertTrue(error("-k", "d").startsWith("-k d: use o, e, oe, eo or n"));
  }

  @Test
  void checkpointWords() throws Exception {
    assertEquals("c=10", options("-c", "c=10").attributes().get("Checkpoint"));
    assertEquals(
        "shutdown,interval=5", options("-c", "shutdown,interval=5").attributes().get("Checkpoint"));
    assertTrue(error("-c", "always").startsWith("-c always: 'always' is not a checkpoint option"));
  }

  @Test
  void emptyValuesAreRefused() {
    assertEquals("-N needs a job name", error("-N", ""));
    assertEquals("-A needs an account name", error("-A", " "));
    assertTrue(error("-q", "").startsWith("-q needs a destination"));
    assertTrue(error("-o", "").startsWith("-o needs a path"));
  }

  @Test
  void outputPaths() throws Exception {
    assertEquals(
        "login1.example.org:/home/alice/work/logs/out.txt",
        options("-o", "logs/out.txt").attributes().get("Output_Path"));
    assertEquals(
        "login1.example.org:/scratch/x.out",
        options("-o", "/scratch/x.out").attributes().get("Output_Path"));
    assertEquals(
        "other:/scratch/x.out",
        options("-o", "other:/scratch/x.out").attributes().get("Output_Path"));
    assertEquals("other:rel.out", options("-o", "other:rel.out").attributes().get("Output_Path"));
    assertEquals(
        "login1.example.org:/home/alice/work/$PBS_JOBID.err",
        options("-e", "$PBS_JOBID.err").attributes().get("Error_Path"));
    assertEquals(
        "login1.example.org:/home/alice/work/dir/a:b",
        options("-e", "dir/a:b").attributes().get("Error_Path"));
    assertEquals("-o other:: no path after the host name", error("-o", "other:"));
  }

  @Test
  void workingDirectoriesBecomeAbsolute() throws Exception {
    assertEquals("/home/alice/work/.", options("-d", ".").attributes().get("init_work_dir"));
    assertEquals("/data/run", options("-d", "/data/run").attributes().get("init_work_dir"));
    assertEquals("/home/alice/work/sub", options("-w", "sub").attributes().get("work_dir"));
    assertEquals("/data", options("-w", "/data").attributes().get("work_dir"));
  }

  @Test
  void extensionsMergePerName() throws Exception {
    JobOptions o =
        options("-W", "group_list=a", "-W", "umask=022", "-W", "group_list=b", "-W", "SINGLEJOB");
    assertEquals("b", o.attributes().get("group_list"));
    assertEquals("022", o.attributes().get("umask"));
    assertEquals("SINGLEJOB", o.attributes().get("x"));
  }

  @Test
  void dependencies() throws Exception {
    assertEquals("afterok:11111", options("-W", "depend=afterok:11111").attributes().get("depend"));
    assertEquals(
        "beforeok:123456:123457,afterany:7.srv",
        options("-W", "depend=beforeok:123456:123457,afterany:7.srv").attributes().get("depend"));
    assertEquals("on:2", options("-W", "depend=on:2").attributes().get("depend"));
    assertEquals(
        "illegal -W depend value 'afterany:TOKEN': job id 'TOKEN' must start with digits (e.g."
            + " 123.server)",
        error("-W", "depend=afterany:TOKEN"));
    assertTrue(error("-W", "depend=afterwards:1").contains("unknown dependency type 'afterwards'"));
    assertTrue(error("-W", "depend=afterok").contains("'afterok' is not type:jobid"));
    assertTrue(error("-W", "depend=on:x").contains("on takes one count"));
  }

  @Test
  void extensionNeedsAName() {
    assertTrue(error("-W", "=x").startsWith("-W =x: expected name=value"));
    assertTrue(error("-W", "depend=").startsWith("-W depend=: expected name=value"));
  }

  @Test
  void interactiveIsTorquesAttribute() throws Exception {
    JobOptions o = options("-I");
    assertTrue(o.interactive());
    assertEquals("True", o.attributes().get("interactive"));
    assertFalse(o.runsCommand());
  }

  @Test
  void interactiveThroughWIsTheSameAsI() throws Exception {
    JobOptions o = options("-W", "interactive=true");
    assertTrue(o.interactive());
    assertEquals("True", o.attributes().get("interactive"));
    assertEquals(
        "-W interactive=yes: illegal -W value (interactive takes only true, the same as -I)",
        error("-W", "interactive=yes"));
    assertTrue(error("-W", "interactive=false").startsWith("-W interactive=false: illegal"));
  }

  @Test
  void commandNeedsInteractiveFirst() throws Exception {
    assertEquals("'-x' invalid on non-interactive job", error("-x"));
    assertEquals("'-x' invalid on non-interactive job", error("-x", "-I"));
    assertTrue(options("-I", "-x").runsCommand());
    assertTrue(options("-W", "interactive=true", "-x").runsCommand());
  }

  @Test
  void x11ForwardingIsRefusedAsNotAvailable() {
    assertEquals(
        "-X is not supported: X11 forwarding is not available; use qsub -I without -X (a"
            + " terminal session)",
        error("-I", "-X"));
  }

  @Test
  void holdFlagAndHoldList() throws Exception {
    assertEquals("u", options("-h").attributes().get("Hold_Types"));
    JobOptions alter = new JobOptions(SubmitPlace.CTX);
    alter.apply(new Getopt.Option('h', "so"));
    assertEquals("so", alter.attributes().get("Hold_Types"));
    assertThrows(QsubException.class, () -> alter.apply(new Getopt.Option('h', "x")));
  }

  @Test
  void flags() throws Exception {
    JobOptions o = options("-n", "-V", "-z");
    assertEquals("True", o.attributes().get("node_exclusive"));
    assertTrue(o.exportEnvironment());
    assertTrue(o.quiet());
  }

  @ParameterizedTest
  @ValueSource(chars = {'X', 'E', 'f'})
  void unsupportedFlagsAreRefusedByName(char flag) {
    String message = error("-" + flag);
    assertTrue(message.startsWith("-" + flag + " is not supported: "), message);
  }

  @ParameterizedTest
  @ValueSource(chars = {'L', 'F', 'P', 'J', 'D', 'u', 'i', 'K', 'b', 'T'})
  void unsupportedOptionsWithValuesAreRefusedByName(char option) {
    String message = error("-" + option, "value");
    assertTrue(message.startsWith("-" + option + " is not supported: "), message);
  }

  @Test
  void refusalsSayWhatToDoInstead() {
    assertTrue(error("-L", "tasks=1:lprocs=12").contains("-l nodes=N:ppn=M"));
    assertTrue(error("-J", "1-10").contains("use -t"));
    assertTrue(error("-P", "nz97").contains("-A ACCOUNT"));
    assertTrue(error("-E").contains("use -n"));
  }

  @Test
  void longOptionsAreNotJobOptions() {
    assertEquals("unknown option --version", error("--version"));
  }
}
