package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.NodeGroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * End-to-end compatibility with 40 real job scripts written by other people (the shared corpus, see
 * its INDEX.md): every script goes through the real qsub into a server-only cluster (nothing runs),
 * built with qmgr so that the corpus fits on it. For each script the table below says what Torque 6
 * would store, or how and why Berth refuses it, and the test checks what the server actually stored
 * through {@code qstat -f -F json}, {@code qstat -t} and the Job record.
 *
 * <p>The scripts are read where they are (system property {@code berth.corpus}, else {@code
 * shared/pbs-scripts} next to the checkout); they belong to other projects and are never copied
 * into this repository. Without them the class is skipped, saying so.
 */
@Tag("integration")
class CorpusIT {
  private static final int CORPUS_SIZE = 40;
  private static final String NO_CORPUS =
      "the job script corpus was not found: set -Dberth.corpus=DIR, or put it at"
          + " ../shared/pbs-scripts next to the checkout; the corpus was NOT checked";

  /** The queues the corpus names. Not {@code gigat} (31, late) and not {@code test} (21, off). */
  private static final List<String> QUEUES =
      List.of(
          "gpu",
          "pq",
          "batch-h",
          "ptq",
          "xlong",
          "gpu2",
          "normal",
          "main",
          "night",
          "priya",
          "home-yeo",
          "short",
          "short_cpuQ",
          "qwork",
          "gpuvolta");

  static Path corpus;
  static TestCluster cluster;
  static Path cwd;
  static String host;
  static String parentOfDependent;

  /** qsub's result for each corpus file, by file name, in submission order. */
  static final Map<String, TestCluster.Result> submitted = new LinkedHashMap<>();

  @BeforeAll
  static void submitTheWholeCorpus() throws IOException {
    Optional<Path> found = locateCorpus();
    if (found.isEmpty()) {
      System.err.println("CorpusIT: " + NO_CORPUS);
      return; // every test is then reported as skipped, with the reason (see requireCorpus)
    }
    corpus = found.get();
    cluster = TestCluster.start(false);
    host = cluster.node;
    cwd = Files.createTempDirectory(Path.of("/tmp"), "berth-corpus-cwd-");
    Files.setPosixFilePermissions(cwd, PosixFilePermissions.fromString("rwxr-xr-x"));
    buildASiteTheCorpusFitsOn();
    for (Path script : corpusFiles()) {
      submitted.put(script.getFileName().toString(), cluster.cliIn(cwd, "qsub", script.toString()));
    }
  }

  /** Skips each test visibly (a class-level skip would be reported as zero tests). */
  @BeforeEach
  void requireCorpus() {
    Assumptions.assumeTrue(corpus != null, NO_CORPUS);
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (cwd != null) {
      JobFiles.removeTree(cwd);
    }
  }

  /** Queues, 20 nodes of 24 cores and 4 GPUs with the corpus's properties, one named host. */
  private static void buildASiteTheCorpusFitsOn() throws IOException {
    for (String q : QUEUES) {
      qmgr("create queue " + q + " queue_type=e,enabled=true,started=true");
    }
    Map<Integer, String> properties =
        Map.of(
            1, "nehalem,node01", // 10: nodes=1:nehalem; 20: 1:node01:ppn=20
            2, "nehalem",
            3, "native,node03", // 13: nodes=2:ppn=1:native; 20: 1:node03:ppn=24
            4, "native",
            5, "x", // 36: nodes=4:ppn=1:x
            6, "x",
            7, "x",
            8, "x",
            9, "thinnode", // 34 (refused as CRLF; would want nodes=1:ppn=10:thinnode)
            10, "thinnode");
    for (int i = 1; i <= 20; i++) {
      String props = properties.containsKey(i) ? ",properties=\"" + properties.get(i) + "\"" : "";
      qmgr(String.format("create node n%02d np=24,gpus=4%s", i, props));
    }
    qmgr("create node vision.mc.vanderbilt.edu np=24,gpus=4"); // 18: nodes=<FQDN>
    String nodes = cluster.cli("pbsnodes", "-a").out();
    assertTrue(nodes.contains("properties = nehalem,node01"), nodes);
    assertTrue(nodes.contains("vision.mc.vanderbilt.edu\n"), nodes);

    // 28 says -W depend=afterok:11111, so job 11111 must exist: the next job gets that number.
    qmgr("set server next_job_number = 11111");
    Path trivial = cwd.resolve("parent.sh");
    Files.writeString(trivial, "true\n");
    TestCluster.Result parent = cluster.cliIn(cwd, "qsub", "-N", "parent", trivial.toString());
    assertEquals(0, parent.exit(), parent.toString());
    parentOfDependent = parent.out().trim();
    assertEquals("11111." + TestCluster.SERVER, parentOfDependent);
  }

  private static void qmgr(String directive) {
    TestCluster.Result r = cluster.cli("qmgr", "-c", directive);
    assertEquals(0, r.exit(), "qmgr -c '" + directive + "': " + r);
  }

  // ---------------------------------------------------------------------------------------------
  // The table: one row per script. Values are Torque 6's parse (INDEX.md) as Berth stores it;
  // where Berth deliberately differs, the row says so. Unlisted attributes must have Torque's
  // defaults: name = the file name, queue batch, Join n, Keep n, Mail a, Priority 0, Rerunable
  // True, output <cwd>/<name>.o<seq>, no account, no -d, no -S, no -V.
  // ---------------------------------------------------------------------------------------------

  static final List<Row> TABLE =
      List.of(
          accepted(1, "minimal GPU job, -V, whitespace-only line, no final newline")
              .name("matrixmul")
              .l("nodes", "1:ppn=1:gpus=1")
              .l("walltime", "00:10:00")
              .groups("1:ppn=1:gpus=1")
              .exportsEnvironment(),
          accepted(2, "no #! line, GPU mode, -r n")
              .name("CUDA_JOB")
              .rerunable(false)
              .l("nodes", "1:ppn=1:gpus=1:exclusive_process")
              .l("walltime", "00:05:00")
              .groups("1:ppn=1:gpus=1:exclusive_process"),
          accepted(3, "-p -1024 takes an argument starting with '-'; array with slot limit; -k oe")
              .queue("gpu")
              .priority(-1024)
              .array("1-4%4", 4, 4)
              .join("oe")
              .keep("oe")
              .l("nodes", "1:ppn=1:gpus=1:exclusive")
              .l("walltime", "12:00:00")
              .groups("1:ppn=1:gpus=1:exclusive"),
          accepted(4, "-d ., two options on one line, relative -o/-e, -V, -t")
              .name("chromopainter_test")
              .queue("pq")
              .account("Research_Project-T110748")
              .workdir(".")
              .out("logs/chromopainter_run.out.txt")
              .err("logs/chromopainter_run.err.txt")
              .mail("e", "j.whiting2@exeter.ac.uk")
              .exportsEnvironment()
              .array("1-33", 33, 0)
              .l("nodes", "1:ppn=4")
              .l("walltime", "01:00:00")
              .groups("1:ppn=4"),
          accepted(5, "-A x -W group_list=x on one line; one -l with nodes, mem, walltime; dirs")
              .account("vaccine")
              .groupList("vaccine")
              .workdir("/home/projects/vaccine/people/nilsch/masters_thesis/src/")
              // Directories (trailing /): the default file names go inside them.
              .out("/home/projects/vaccine/people/nilsch/masters_thesis/logs/")
              .err("/home/projects/vaccine/people/nilsch/masters_thesis/logs/")
              .mail("ae", "s123015@student.dtu.dk")
              .array("0-19%20", 20, 20)
              .l("nodes", "1:gpus=1:ppn=4")
              .l("mem", "188gb") // 188GB, normalized to lower case as Torque prints sizes
              .l("walltime", "01:00:00") // 1:00:00
              .groups("1:ppn=4:gpus=1")
              .also(CorpusIT::subjobsGetTorquesArrayFileNames),
          accepted(6, "a trailing comment after every directive")
              .name("ppm-analysis")
              .queue("batch-h")
              .account("ExaCT")
              .mail("ae", "marc.henrydefrahan@nrel.gov")
              .join("oe")
              .l("nodes", "1:ppn=24")
              .l("walltime", "48:00:00")
              .groups("1:ppn=24"),
          accepted(7, "line 1 blank, #! on line 2, trailing comments, -d .")
              .exportsEnvironment()
              .workdir(".")
              .queue("ptq")
              .account("Research_Project-161613")
              .mail("e", "jp492@exeter.ac.uk")
              .l("nodes", "1:ppn=8")
              .l("walltime", "00:30:00") // 0:30:00
              .groups("1:ppn=8"),
          accepted(8, "four options on line 1 (no #!); -j oe with -o")
              .name("hmmerpRozella")
              .join("oe")
              // Torque: with -j oe and -o, the error path is recorded as the output path.
              .out("hmmerpRozella.out")
              .err("hmmerpRozella.out")
              .workdir("/home_stajichlab/jstajich/bigdata/Rozella/OrthoMCL/sp")
              .l("nodes", "1:ppn=2")
              .l("walltime", "96:00:00")
              .l("mem", "2gb")
              .groups("1:ppn=2"),
          accepted(9, "two -l on one line; pmem; array with %")
              .name("RndmForests")
              .mail("abe", "rmills198@gmail.com")
              .array("1-100%10", 100, 10)
              .l("nodes", "1:ppn=4")
              .l("pmem", "16gb")
              .l("walltime", "120:00:00")
              .groups("1:ppn=4"),
          accepted(10, "array list plus slot limit; property-only node spec; -j oe + blank")
              .queue("xlong")
              .join("oe")
              .array("46-52,58-64,70-76,82-99%24", 39, 24)
              .l("nodes", "1:nehalem")
              .l("mem", "4gb")
              .l("walltime", "62:00:00")
              .groups("1:ppn=1:nehalem"),
          refused(11, "Moab bracket array -t [0-8]%9: the server refuses it, as pbs_server does")
              .exit(15083 % 256) // PBSE_BAD_ARRAY_REQ
              .says("submit error (Bad Job Array Request '[0-8]%9'"),
          // Berth does better than Torque: Torque keeps the unknown ngpus as an opaque string
          // and runs the job without GPUs; Berth refuses it and says how to ask for GPUs.
          refused(12, "-l ngpus=2 (PBS Pro resource)")
              .exit(15037 % 256) // PBSE_UNKRESC
              .says("unknown resource 'ngpus'", "-l nodes=N:gpus=G"),
          accepted(13, "-v NAME=value; node property native")
              .name("hadoopcluster")
              .queue("normal")
              .mail("bae", null)
              .join("oe")
              .out("hadoopcluster.log")
              .err("hadoopcluster.log")
              .var("Catalina_maxhops", "None")
              .l("nodes", "2:ppn=1:native")
              .l("walltime", "00:15:00")
              .groups("2:ppn=1:native"),
          accepted(14, "-lwalltime=, -lnodes=, -lmem= (argument attached)")
              .l("walltime", "00:10:00")
              .l("nodes", "1:ppn=12")
              .l("mem", "250gb") // 250GB
              .groups("1:ppn=12"),
          accepted(15, "walltime=0:120:00 (minutes above 59); -p 1023; -S on line 1, no #!")
              .name("pk_run")
              .shell("/bin/bash")
              .exportsEnvironment()
              .priority(1023)
              .l("nodes", "1:ppn=1")
              .l("walltime", "02:00:00") // 0:120:00 = 7200 s
              .l("mem", "5mb") // 5MB
              .groups("1:ppn=1"),
          accepted(16, "walltime=00:60:00; -m b, -m e, -m a: the last one wins")
              .name("katts-sample")
              .join("oe")
              .mail("a", null) // not abe: Torque keeps only the last -m
              .exportsEnvironment()
              .l("nodes", "1:ppn=23")
              .l("walltime", "01:00:00") // 00:60:00
              .l("mem", "55000mb")
              .groups("1:ppn=23"),
          accepted(17, "walltime=300 is seconds; nodes=1:gpus=2 without ppn")
              .name("Comp551")
              .account("eeg-641-aa")
              .l("walltime", "00:05:00") // 300 s, not Slurm's 300 minutes
              .l("nodes", "1:gpus=2")
              .groups("1:ppn=1:gpus=2"),
          accepted(18, "nodes=<FQDN> names a host; walltime in days")
              .mail("bae", "mike.sivley@vanderbilt.edu")
              .l("nodes", "vision.mc.vanderbilt.edu")
              .l("mem", "5000mb")
              .l("walltime", "24:00:00") // 1:00:00:00
              .groups("vision.mc.vanderbilt.edu:ppn=1"),
          accepted(19, "walltime=5:00:00:00; #!/bin/bash -login")
              .name("qiime")
              .queue("main")
              .mail("abe", "genase23@gmail.com")
              .l("walltime", "120:00:00") // 5 days
              .l("nodes", "20:ppn=1")
              .l("mem", "200gb")
              .groups("20:ppn=1"),
          accepted(20, "nodes joined with +, each group with its property; $PBS_JOBID in paths")
              .name("mpi2nodes")
              .queue("night")
              .out("/nas_home/hpcfapix/$PBS_JOBID.out") // literal: the mom expands it
              .err("/nas_home/hpcfapix/$PBS_JOBID.err")
              .l("walltime", "00:20:00")
              .l("nodes", "1:node01:ppn=20+1:node03:ppn=24")
              // After a count, node01 is a property, not a host name.
              .groups("1:ppn=20:node01", "1:ppn=24:node03"),
          accepted(21, "SPECFEM: nodes=10:ppn=8+1:ppn=1; -S; '## PBS -q test' is no directive")
              .name("go_process")
              .shell("/bin/bash")
              .join("oe")
              .out("OUTPUT_FILES/$PBS_JOBID.o")
              .err("OUTPUT_FILES/$PBS_JOBID.o")
              .l("nodes", "10:ppn=8+1:ppn=1")
              .l("walltime", "04:00:00")
              .groups("10:ppn=8", "1:ppn=1"),
          accepted(22, "TABs between #PBS, option and value; no final newline")
              .name("macroassembly_job")
              .queue("gpu")
              .mail("ae", null)
              .out("out.log")
              .err("err.log")
              .l("nodes", "1:ppn=4")
              .l("walltime", "01:00:00")
              .groups("1:ppn=4"),
          // Deliberate: Torque 6 accepts -L (NUMA tasks); Berth refuses it rather than run the
          // job with a different layout, and names the Torque form to use.
          refused(23, "Torque 6 -L tasks=1:lprocs=12:memory=32gb")
              .exit(2)
              .says("directive on line 5: -L is not supported", "-l nodes=N:ppn=M"),
          // Torque's qsub would contact server mp2; Berth has one server and says so.
          refused(24, "-q qwork@mp2 (another server)")
              .exit(15020 % 256) // PBSE_UNKQUE
              .says("submit error (destination 'qwork@mp2': server 'mp2' is not this server"),
          // Berth does better: Torque silently drops the word; Berth warns and hints at -N.
          accepted(25, "#PBS -n 2000K_S_MoO3 (meant -N): -n is node-exclusive, the word ignored")
              .exclusive()
              .queue("priya")
              .account("lc_pv")
              .mail("ae", "sungwooh@usc.edu")
              .join("oe")
              .out("log")
              .err("log")
              .workdir(".")
              .l("nodes", "1:ppn=1")
              .l("walltime", "24:00:00")
              .groups("1:ppn=1")
              .warns(
                  "directive on line 3: '2000K_S_MoO3' is not an option",
                  "-n means node-exclusive",
                  "use -N"),
          // As Torque (getopt: option requires an argument), plus a warning with a hint for the
          // stray group_list=, and the error names its line.
          refused(26, "#PBS -N with no value; '#PBS group_list=x' without -W")
              .exit(2)
              .says(
                  "directive on line 5: option requires an argument -- 'N'",
                  "did you mean -W group_list=cu_10039?"),
          refused(27, "-q @hades and -W depend=afterany:TOKEN (template placeholder)")
              .exit(2)
              .says("illegal -W depend value 'afterany:TOKEN'", "must start with digits"),
          accepted(28, "-W depend=afterok:11111: held until 11111 ends well")
              .name("test_qtools_submitter_wait_for_pbs")
              .queue("home-yeo")
              .account("yeo-group")
              .exportsEnvironment()
              .out(
                  "/Users/olga/workspace-git/YeoLab/gscripts/tests/data/"
                      + "test_qtools_submitter_wait_for_pbs.sh.out")
              .err(
                  "/Users/olga/workspace-git/YeoLab/gscripts/tests/data/"
                      + "test_qtools_submitter_wait_for_pbs.sh.err")
              .l("walltime", "00:01:00") // 0:01:00
              .l("nodes", "1:ppn=16")
              .groups("1:ppn=16")
              // Torque shows a dependency as type:jobid@server and holds the job (s).
              .heldBySystem("afterok:11111." + TestCluster.SERVER + "@" + TestCluster.SERVER)
              .also(CorpusIT::dependsOnTheParent),
          // Berth does better: Torque ignores the late -v silently; Berth warns.
          accepted(29, "#PBS -v after the first command is ignored; -e/-o directories")
              .workdir("/home5/flournoy/kids/Motion/")
              .err("/home5/flournoy/")
              .out("/home5/flournoy/")
              .queue("short")
              .l("nodes", "1:ppn=1")
              .groups("1:ppn=1")
              .noVar("motion_thresh")
              .warns("directive on line 19 is ignored", "first command (line 8)"),
          accepted(30, "'cd' on line 1: every directive is ignored")
              .noVar("PBS_O_INITDIR")
              .warns("directives on lines 2, 3, 4, 5 are ignored", "first command (line 1)"),
          accepted(31, "-S before the code is honoured; a late -l/-q/-N line is not")
              .shell("/bin/bash")
              .warns("directives on lines 14, 15 are ignored", "first command (line 5)"),
          accepted(32, "'PBS -l ...' without '#': a command, so there are no directives"),
          // As Torque, with a hint: dos2unix.
          refused(33, "CRLF line endings (array job)")
              .exit(2)
              .says("script is written in DOS/Windows text format", "dos2unix"),
          refused(34, "CRLF line endings (group_list job)")
              .exit(2)
              .says("script is written in DOS/Windows text format", "dos2unix"),
          // As Torque ("garbage in"), but Berth warns about each stray word.
          accepted(35, "unreplaced <placeholders> with blanks; -N sim$SIMNO stays literal")
              .name("sim$SIMNO")
              .out("<standard")
              .err("<standard")
              .workdir("<data")
              .mail("ae", "<email")
              .l("nodes", "1:ppn=16")
              .l("mem", "44gb")
              .l("feature", "16core")
              .l("walltime", "06:00:00")
              .groups("1:ppn=16")
              .warns(
                  "directive on line 6: 'output' is not an option",
                  "directive on line 10: 'notifications>' is not an option"),
          accepted(36, "-l gres=darshan; property x; relative $PBS_JOBID paths")
              .name("mpiio")
              .mail("bea", "gheber@hdfgroup.org")
              .err("$PBS_JOBID.err")
              .out("$PBS_JOBID.out")
              .l("nodes", "4:ppn=1:x")
              .l("walltime", "00:29:00")
              .l("gres", "darshan")
              .groups("4:ppn=1:x"),
          accepted(37, "no #!, a directive on line 1; nodes=6:ppn=2")
              .out("output.txt")
              .err("error.txt")
              .l("nodes", "6:ppn=2")
              .l("walltime", "00:01:00")
              .groups("6:ppn=2"),
          accepted(38, "'# PBS -t 1-22' is switched off; -N with trailing blanks")
              .name("garfield")
              .shell("/bin/bash")
              .out("garfield-trans-output")
              .err("garfield-trans-error")
              .l("walltime", "20:00:00")
              .l("nodes", "1:ppn=8")
              .groups("1:ppn=8"),
          // Berth does better: Torque keeps select/place as opaque strings and runs a 1-core
          // job; Berth refuses with the Torque form to use.
          refused(39, "OpenPBS -l select=1:ncpus=2:mem=12GB -l place=pack")
              .exit(15037 % 256) // PBSE_UNKRESC
              .says("unknown resource 'select'", "OpenPBS syntax", "-l nodes=N:ppn=M"),
          // Torque dies on the apostrophe in a trailing comment ("qsub: unmatched"); Berth
          // reads the comments as comments and reports every real problem at once.
          refused(40, "PBS Pro (Gadi): -P project, -l wd, -J 1-10, comment with an apostrophe")
              .exit(2)
              .says(
                  "directive on line 2: -P is not supported",
                  "directive on line 11: -l wd",
                  "directive on line 17: -J is not supported",
                  "use -t instead")
              .saysNot("unmatched"));

  // ---------------------------------------------------------------------------------------------

  @Test
  void theCorpusIsTheVerifiedFortyScriptsAndTheTableCoversEachOnce() throws IOException {
    List<Path> files = corpusFiles();
    assertEquals(CORPUS_SIZE, files.size(), "scripts in " + corpus);
    Map<String, String> blobs = verificationTable();
    for (Path f : files) {
      String name = f.getFileName().toString();
      assertEquals(blobs.get(name), gitBlobId(Files.readAllBytes(f)), name + " changed");
    }
    List<Integer> rows = TABLE.stream().map(r -> r.number).toList();
    assertEquals(
        java.util.stream.IntStream.rangeClosed(1, CORPUS_SIZE).boxed().toList(),
        rows,
        "one row per script, in order");
    assertEquals(CORPUS_SIZE, submitted.size());
  }

  @TestFactory
  Stream<DynamicTest> eachScriptIsStoredAsTorqueWouldOrRefusedWithAReason() {
    return TABLE.stream()
        .map(
            row ->
                DynamicTest.dynamicTest(
                    String.format("%02d %s", row.number, row.what), () -> check(row)));
  }

  @Test
  void refusedScriptsLeaveNoJobBehindAndEveryAcceptedOneIsListed() {
    TreeSet<String> expected = new TreeSet<>();
    expected.add(parentOfDependent);
    for (Row row : TABLE) {
      TestCluster.Result r = submitted.get(fileOf(row.number));
      if (row.exit == null) {
        expected.add(r.out().trim());
      }
    }
    TestCluster.Result qstat = cluster.cli("qstat");
    assertEquals(0, qstat.exit(), qstat.toString());
    TreeSet<String> listed = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^(\\d+(?:\\[\\])?\\.\\S+)\\s").matcher(qstat.out());
    while (m.find()) {
      listed.add(m.group(1));
    }
    assertEquals(expected, listed, qstat.out());
    assertEquals(30 + 1, listed.size(), "30 scripts accepted, plus job 11111");
  }

  // ---------------------------------------------------------------------------------------------

  private static void check(Row row) {
    String file = fileOf(row.number);
    TestCluster.Result r = submitted.get(file);
    assertNotNull(r, file + " was not submitted");
    if (row.exit != null) {
      checkRefusal(row, r);
    } else {
      checkStored(row, file, r);
    }
  }

  private static void checkRefusal(Row row, TestCluster.Result r) {
    List<Executable> checks = new ArrayList<>();
    checks.add(() -> assertEquals(row.exit, r.exit(), "exit status"));
    checks.add(() -> assertEquals("", r.out(), "no job id is printed"));
    for (String s : row.says) {
      checks.add(() -> assertTrue(r.err().contains(s), "stderr should contain «" + s + "»"));
    }
    for (String s : row.saysNot) {
      checks.add(() -> assertFalse(r.err().contains(s), "stderr must not contain «" + s + "»"));
    }
    if (row.exit == 2) {
      checks.add(() -> assertTrue(r.err().contains("qsub: no job was submitted"), "qsub refused"));
    } else {
      checks.add(() -> assertTrue(r.err().startsWith("qsub: submit error ("), "server refused"));
    }
    assertAll(row.number + " " + r, checks);
  }

  private static void checkStored(Row row, String file, TestCluster.Result r) {
    assertEquals(0, r.exit(), "qsub " + file + ": " + r);
    String id = r.out().trim();
    assertTrue(id.matches("\\d+(\\[\\])?\\." + TestCluster.SERVER), "job id: " + r.out());
    long number = Long.parseLong(id.substring(0, id.indexOf(id.contains("[") ? '[' : '.')));
    String name = row.name != null ? row.name : file;

    TestCluster.Result stat = cluster.cli("qstat", "-f", "-F", "json", id);
    assertEquals(0, stat.exit(), stat.toString());
    Map<String, Object> jobs = MiniJson.child(MiniJson.object(stat.out()), "Jobs");
    assertEquals(List.of(id), List.copyOf(jobs.keySet()));
    @SuppressWarnings("unchecked")
    Map<String, Object> a = (Map<String, Object>) jobs.get(id);
    Map<String, Object> resources = MiniJson.child(a, "Resource_List");
    Map<String, Object> variables = MiniJson.child(a, "Variable_List");
    Job job = cluster.job(id);
    Submitted s = new Submitted(row, file, id, number, name, a, job);

    // Every attribute this table speaks of, compared with its expected value or its absence.
    Map<String, String> want = new TreeMap<>();
    want.put("Job_Name", name);
    want.put("Job_Owner", "root@" + host);
    want.put("queue", row.queue);
    want.put("job_state", row.state);
    want.put("Hold_Types", row.holdTypes);
    want.put("Join_Path", row.join);
    want.put("Keep_Files", row.keep);
    want.put("Mail_Points", row.mailPoints);
    want.put("Mail_Users", row.mailUsers);
    want.put("Priority", Integer.toString(row.priority));
    want.put("Rerunable", row.rerunable ? "True" : "False");
    want.put("Account_Name", row.account);
    want.put("group_list", row.groupList);
    want.put("Output_Path", path(row.out, name, ".o", number));
    want.put("Error_Path", path(row.err, name, ".e", number));
    want.put("init_work_dir", workdir(row.workdir));
    want.put("Shell_Path_List", row.shell);
    want.put("node_exclusive", row.exclusive ? "True" : null);
    want.put("depend", row.depend);
    want.put("job_array_request", row.arrayRequest);
    want.put("submit_host", host);
    want.put("work_dir", cwd.toString());

    Map<String, String> wantResources = new TreeMap<>(row.resources);
    wantResources.put(
        "nodect",
        Integer.toString(
            row.groups.isEmpty() ? 1 : row.groups.stream().mapToInt(g -> count(g)).sum()));
    if (row.resources.containsKey("nodes")) {
      wantResources.put("neednodes", row.resources.get("nodes"));
    }

    List<Executable> checks = new ArrayList<>();
    for (Map.Entry<String, String> e : want.entrySet()) {
      checks.add(
          () ->
              assertEquals(
                  e.getValue(),
                  a.containsKey(e.getKey()) ? String.valueOf(a.get(e.getKey())) : null,
                  e.getKey()));
    }
    checks.add(() -> assertTrue(a.get("Priority") instanceof Long, "Priority is a JSON number"));
    checks.add(() -> assertEquals(wantResources, strings(resources), "Resource_List"));
    checks.add(() -> assertEquals(row.warnings.isEmpty() ? "" : r.err(), r.err(), "no warnings"));
    for (String w : row.warnings) {
      checks.add(() -> assertTrue(r.err().contains("qsub: warning: "), "a warning: " + r.err()));
      checks.add(() -> assertTrue(r.err().contains(w), "warning should contain «" + w + "»"));
    }

    // Variable_List: qsub's PBS_O_* values, -v, -V (the whole environment) and -d.
    Map<String, String> wantVars = new LinkedHashMap<>(row.vars);
    wantVars.put("PBS_O_WORKDIR", cwd.toString());
    wantVars.put("PBS_O_QUEUE", row.queue);
    wantVars.put("PBS_O_HOST", host);
    wantVars.put("PBS_O_INITDIR", workdir(row.workdir));
    wantVars.put("BERTH_SERVER", row.exportsEnvironment ? cluster.socket.toString() : null);
    for (String absent : row.absentVars) {
      wantVars.put(absent, null);
    }
    for (Map.Entry<String, String> e : wantVars.entrySet()) {
      checks.add(
          () -> assertEquals(e.getValue(), variables.get(e.getKey()), "variable " + e.getKey()));
    }

    // The typed record the scheduler and moms use.
    checks.add(() -> assertEquals(row.state, stateLetter(job.getState()), "Job.state"));
    checks.add(
        () ->
            assertEquals(
                seconds(row.resources.get("walltime")),
                job.getResources().getWalltime(),
                "Job walltime in seconds"));
    checks.add(
        () ->
            assertEquals(
                bytes(row.resources.get("mem")), job.getResources().getMem(), "Job mem in bytes"));
    checks.add(
        () ->
            assertEquals(
                bytes(row.resources.get("pmem")),
                job.getResources().getPmem(),
                "Job pmem in bytes"));
    checks.add(
        () ->
            assertEquals(
                row.groups,
                job.getResources().getNodeGroupsList().stream().map(CorpusIT::describe).toList(),
                "node groups"));
    checks.add(() -> assertEquals(row.priority, job.getPriority(), "Job priority"));
    checks.add(() -> assertEquals(row.exclusive, job.getNodeExclusive(), "Job node_exclusive"));
    checks.add(() -> assertEquals(row.shell == null ? "" : row.shell, job.getShell(), "Job shell"));
    checks.add(() -> assertEquals(row.arrayTasks, job.getArraySize(), "Job array_size"));
    checks.add(() -> assertEquals(row.slotLimit, job.getArraySlotLimit(), "Job slot limit"));
    checks.add(() -> checkSubjobs(s));
    for (Consumer<Submitted> extra : row.extra) {
      checks.add(() -> extra.accept(s));
    }
    assertAll(file + " as " + id, checks);
  }

  /** qstat -t lists exactly the subjobs the -t request names, named {@code <name>-<index>}. */
  private static void checkSubjobs(Submitted s) {
    TestCluster.Result t = cluster.cli("qstat", "-t", s.id);
    assertEquals(0, t.exit(), t.toString());
    List<Integer> indices = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^" + s.number + "\\[(\\d+)\\]\\.").matcher(t.out());
    while (m.find()) {
      indices.add(Integer.parseInt(m.group(1)));
    }
    if (s.row.arrayRequest == null) {
      assertEquals(List.of(), indices, "not an array: " + t.out());
      return;
    }
    List<Integer> expected = expand(s.row.arrayRequest);
    assertEquals(s.row.arrayTasks, expected.size(), "the table's task count");
    assertEquals(expected, indices, "qstat -t " + s.id);
    int first = expected.get(0);
    Job sub = cluster.job(s.number + "[" + first + "]");
    assertEquals(s.name + "-" + first, sub.getName(), "subjob name");
    assertEquals(s.id, sub.getArrayParent());
    assertEquals(first, sub.getArrayIndex());
    assertEquals(s.row.queue, sub.getQueue());
    assertEquals(JobState.QUEUED, sub.getState());
  }

  /** 05: output and error directories get Torque's array file names, {@code name.oSEQ-IDX}. */
  private static void subjobsGetTorquesArrayFileNames(Submitted s) {
    Job sub = cluster.job(s.number + "[3]");
    String logs = host + ":/home/projects/vaccine/people/nilsch/masters_thesis/logs/";
    assertEquals(logs + s.name + ".o" + s.number + "-3", sub.getOutputPath());
    assertEquals(logs + s.name + ".e" + s.number + "-3", sub.getErrorPath());
    assertEquals("vaccine", sub.getExtensionsMap().get("group_list"));
  }

  /** 28: the dependency names the full id of job 11111, and the job waits on a system hold. */
  private static void dependsOnTheParent(Submitted s) {
    assertEquals(1, s.job.getDependenciesCount(), s.job.toString());
    assertEquals("afterok", s.job.getDependencies(0).getType());
    assertEquals(List.of(parentOfDependent), s.job.getDependencies(0).getJobIdsList());
    assertTrue(s.job.getHolds().getSystem(), "system hold");
    assertFalse(s.job.getHolds().getUser(), "no user hold");
  }

  // ---------------------------------------------------------------------------------------------
  // Expected values derived from the table, independently of the code under test.

  private static String path(String spec, String name, String suffix, long number) {
    String p = spec == null ? "" : spec;
    if (!p.startsWith("/")) {
      p = cwd + "/" + p;
    }
    if (p.endsWith("/")) {
      p = p + name + suffix + number;
    }
    return host + ":" + p;
  }

  private static String workdir(String spec) {
    if (spec == null) {
      return null;
    }
    return spec.startsWith("/") ? spec : cwd + "/" + spec;
  }

  /** HH:MM:SS to seconds (0 for none). */
  static long seconds(String hms) {
    if (hms == null) {
      return 0;
    }
    String[] f = hms.split(":");
    assertEquals(3, f.length, "the table writes walltimes as HH:MM:SS: " + hms);
    return Long.parseLong(f[0]) * 3600 + Long.parseLong(f[1]) * 60 + Long.parseLong(f[2]);
  }

  /** A Torque size such as {@code 188gb} in bytes (0 for none). */
  static long bytes(String size) {
    if (size == null) {
      return 0;
    }
    Matcher m = Pattern.compile("(\\d+)([kmgt]?)b").matcher(size);
    assertTrue(m.matches(), "the table writes sizes as <n>[kmgt]b: " + size);
    int shift = 10 * "_kmgt".indexOf(m.group(2).isEmpty() ? "_" : m.group(2));
    return Long.parseLong(m.group(1)) << shift;
  }

  /** The indices of a Torque -t request: {@code 1-4,9%2} gives 1, 2, 3, 4, 9. */
  static List<Integer> expand(String request) {
    String list = request.contains("%") ? request.substring(0, request.indexOf('%')) : request;
    List<Integer> out = new ArrayList<>();
    for (String item : list.split(",")) {
      String[] range = item.split("-");
      int from = Integer.parseInt(range[0]);
      int to = range.length == 2 ? Integer.parseInt(range[1]) : from;
      for (int i = from; i <= to; i++) {
        out.add(i);
      }
    }
    return out;
  }

  /** A node group as {@code count|host:ppn=P[:gpus=G][:mode][:property...]}. */
  static String describe(NodeGroup g) {
    StringBuilder sb = new StringBuilder();
    sb.append(g.getHost().isEmpty() ? Integer.toString(g.getCount()) : g.getHost());
    sb.append(":ppn=").append(g.getPpn());
    if (g.getGpus() > 0) {
      sb.append(":gpus=").append(g.getGpus());
    }
    if (!g.getGpuMode().isEmpty()) {
      sb.append(':').append(g.getGpuMode());
    }
    for (String p : g.getPropertiesList()) {
      sb.append(':').append(p);
    }
    return sb.toString();
  }

  private static int count(String group) {
    String first = group.substring(0, group.indexOf(':'));
    return first.chars().allMatch(Character::isDigit) ? Integer.parseInt(first) : 1;
  }

  private static String stateLetter(JobState state) {
    return state.name().substring(0, 1);
  }

  private static Map<String, String> strings(Map<String, Object> map) {
    Map<String, String> out = new TreeMap<>();
    map.forEach((k, v) -> out.put(k, String.valueOf(v)));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // The corpus on disk.

  private static Optional<Path> locateCorpus() {
    String property = System.getProperty("berth.corpus");
    if (property != null && !property.isBlank()) {
      return Optional.of(Path.of(property)).filter(Files::isDirectory);
    }
    for (Path p = TestCluster.ROOT; p != null; p = p.getParent()) {
      Path candidate = p.resolve("../shared/pbs-scripts").normalize();
      if (Files.isRegularFile(candidate.resolve("INDEX.md"))) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static List<Path> corpusFiles() throws IOException {
    try (Stream<Path> files = Files.list(corpus)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".pbs")).sorted().toList();
    }
  }

  private static String fileOf(int number) {
    String prefix = String.format("%02d-", number);
    List<String> names =
        submitted.keySet().stream().filter(n -> n.startsWith(prefix)).collect(Collectors.toList());
    if (names.size() != 1) {
      fail("expected one corpus file " + prefix + "*.pbs, found " + names);
    }
    return names.get(0);
  }

  /** INDEX.md's "Verification" table: file name to git blob id. */
  private static Map<String, String> verificationTable() throws IOException {
    Map<String, String> blobs = new TreeMap<>();
    Matcher m =
        Pattern.compile("(?m)^\\| (\\d\\d-[^ |]+\\.pbs) \\| ([0-9a-f]{40}) \\|$")
            .matcher(Files.readString(corpus.resolve("INDEX.md")));
    while (m.find()) {
      blobs.put(m.group(1), m.group(2));
    }
    assertEquals(CORPUS_SIZE, blobs.size(), "blob ids in INDEX.md");
    return blobs;
  }

  /** {@code git hash-object}: SHA-1 of "blob LEN\0" followed by the bytes. */
  private static String gitBlobId(byte[] content) {
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      sha1.update(("blob " + content.length + "\0").getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(sha1.digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Rows.

  record Submitted(
      Row row,
      String file,
      String id,
      long number,
      String name,
      Map<String, Object> attributes,
      Job job) {}

  static Row accepted(int number, String what) {
    return new Row(number, what);
  }

  static Row refused(int number, String what) {
    return new Row(number, what);
  }

  /** One script's expected outcome; unset fields mean Torque's defaults. */
  static final class Row {
    final int number;
    final String what;
    Integer exit;
    final List<String> says = new ArrayList<>();
    final List<String> saysNot = new ArrayList<>();
    String name;
    String queue = "batch";
    String state = "Q";
    String holdTypes = "n";
    String join = "n";
    String keep = "n";
    String mailPoints = "a";
    String mailUsers;
    int priority;
    boolean rerunable = true;
    String account;
    String groupList;
    String out;
    String err;
    String workdir;
    String shell;
    boolean exclusive;
    String depend;
    boolean exportsEnvironment;
    String arrayRequest;
    int arrayTasks;
    int slotLimit;
    final Map<String, String> resources = new TreeMap<>();
    List<String> groups = List.of();
    final Map<String, String> vars = new LinkedHashMap<>();
    final List<String> absentVars = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    final List<Consumer<Submitted>> extra = new ArrayList<>();

    Row(int number, String what) {
      this.number = number;
      this.what = what;
    }

    Row exit(int status) {
      exit = status;
      return this;
    }

    Row says(String... parts) {
      says.addAll(Arrays.asList(parts));
      return this;
    }

    Row saysNot(String part) {
      saysNot.add(part);
      return this;
    }

    Row name(String n) {
      name = n;
      return this;
    }

    Row queue(String q) {
      queue = q;
      return this;
    }

    Row join(String j) {
      join = j;
      return this;
    }

    Row keep(String k) {
      keep = k;
      return this;
    }

    Row mail(String points, String users) {
      mailPoints = points;
      mailUsers = users;
      return this;
    }

    Row priority(int p) {
      priority = p;
      return this;
    }

    Row rerunable(boolean r) {
      rerunable = r;
      return this;
    }

    Row account(String a) {
      account = a;
      return this;
    }

    Row groupList(String g) {
      groupList = g;
      return this;
    }

    /** -o as written: relative to the submit directory; a trailing / means a directory. */
    Row out(String o) {
      out = o;
      return this;
    }

    Row err(String e) {
      err = e;
      return this;
    }

    /** -d as written. */
    Row workdir(String d) {
      workdir = d;
      return this;
    }

    Row shell(String s) {
      shell = s;
      return this;
    }

    Row exclusive() {
      exclusive = true;
      return this;
    }

    Row heldBySystem(String dependency) {
      state = "H";
      holdTypes = "s";
      depend = dependency;
      return this;
    }

    Row exportsEnvironment() {
      exportsEnvironment = true;
      return this;
    }

    Row array(String request, int tasks, int slots) {
      arrayRequest = request;
      arrayTasks = tasks;
      slotLimit = slots;
      return this;
    }

    Row l(String resource, String value) {
      resources.put(resource, value);
      return this;
    }

    Row groups(String... g) {
      groups = List.of(g);
      return this;
    }

    Row var(String name, String value) {
      vars.put(name, value);
      return this;
    }

    Row noVar(String name) {
      absentVars.add(name);
      return this;
    }

    Row warns(String... parts) {
      warnings.addAll(Arrays.asList(parts));
      return this;
    }

    Row also(Consumer<Submitted> check) {
      extra.add(check);
      return this;
    }
  }
}
