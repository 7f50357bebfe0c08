package dev.berth.mom.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class OutputFilesTest {
  private static final Map<String, String> ENV =
      Map.of(
          "PBS_JOBID", "12.srv",
          "PBS_JOBNAME", "myjob",
          "HOME", "/home/alice",
          "USER", "alice");
  private static final Predicate<Path> DIRECTORIES =
      Set.of(Path.of("/home/alice"), Path.of("/out"))::contains;

  private static Job.Builder job(String out, String err) {
    return Job.newBuilder()
        .setId("12.srv")
        .setNumber(12)
        .setName("myjob")
        .setOutputPath(out)
        .setErrorPath(err);
  }

  private static final Path SPOOL = Path.of("/spool/12.srv");

  /** A node n1 on the machine m1 that shares /home with every login host. */
  private static final OutputRoutes ROUTES =
      OutputRoutes.of("n1", "m1", List.of("login*:/home", "login1:/data=/mnt/login1"));

  private static OutputFiles.Paths paths(Job.Builder job) {
    return OutputFiles.of(job.build(), ENV, DIRECTORIES, OutputRoutes.inPlace(), SPOOL);
  }

  private static OutputFiles.Paths routed(Job.Builder job) {
    return OutputFiles.of(job.build(), ENV, DIRECTORIES, ROUTES, SPOOL);
  }

  @Test
  void onASingleHostSiteTheHostPrefixIsStripped() {
    OutputFiles.Paths p = paths(job("login1:/data/a.out", "/data/a.err"));
    assertEquals(Path.of("/data/a.out"), p.stdout());
    assertEquals(Path.of("/data/a.err"), p.stderr());
    assertFalse(p.join());
    assertEquals(List.of(), p.spooled());
  }

  @Test
  void pathsOfThisNodeOrASharedFileSystemAreWrittenInPlace() {
    OutputFiles.Paths p = routed(job("n1:/scratch/o", "M1:/scratch/e"));
    assertEquals(Path.of("/scratch/o"), p.stdout());
    assertEquals(Path.of("/scratch/e"), p.stderr());
    OutputFiles.Paths shared = routed(job("login2:/home/alice/o", "login1:/data/run/e"));
    assertEquals(Path.of("/home/alice/o"), shared.stdout());
    assertEquals(Path.of("/mnt/login1/run/e"), shared.stderr());
    assertEquals(List.of(), shared.spooled());
  }

  @Test
  void pathsOfOtherHostsAreSpooledForDelivery() {
    OutputFiles.Paths p = routed(job("login1:/scratch/o", "login2:/database/e"));
    assertEquals(SPOOL.resolve("myjob.o12"), p.stdout());
    assertEquals(SPOOL.resolve("myjob.e12"), p.stderr());
    assertEquals(
        List.of(
            new OutputFiles.Spooled("o", "login1", SPOOL.resolve("myjob.o12")),
            new OutputFiles.Spooled("e", "login2", SPOOL.resolve("myjob.e12"))),
        p.spooled());
  }

  @Test
  void aJoinedStreamIsSpooledOnce() {
    OutputFiles.Paths p = routed(job("login1:/scratch/o", "login1:/scratch/e").setJoinPath("oe"));
    assertEquals(List.of(new OutputFiles.Spooled("o", "login1", p.stdout())), p.spooled());
  }

  @Test
  void aKeptStreamStaysInTheOwnersHomeOnTheExecutionHost() {
    OutputFiles.Paths p = routed(job("login1:/scratch/o", "login1:/scratch/e").setKeepFiles("oe"));
    assertEquals(Path.of("/home/alice/myjob.o12"), p.stdout());
    assertEquals(Path.of("/home/alice/myjob.e12"), p.stderr());
    assertEquals(List.of(), p.spooled());
  }

  @Test
  void theRelayFindsTheDestinationOfAStream() {
    Job j = job("login1:/out", "login1:$HOME/${PBS_JOBID}.err").build();
    assertEquals(Path.of("/out/myjob.o12"), OutputFiles.destination(j, "o", ENV, DIRECTORIES));
    assertEquals(
        Path.of("/home/alice/12.srv.err"), OutputFiles.destination(j, "e", ENV, DIRECTORIES));
  }

  @Test
  void aUsecpRuleMustNameAHostAndAbsolutePaths() {
    for (String bad : List.of("/home", "login1:home", ":/home", "login1:/a=b")) {
      assertThrows(IllegalArgumentException.class, () -> OutputRoutes.Shared.parse(bad), bad);
    }
  }

  @Test
  void variablesAreExpanded() {
    OutputFiles.Paths p =
        paths(job("h:/data/$PBS_JOBID/${PBS_JOBNAME}-$USER.o", "h:$HOME/${PBS_JOBID}.${USER}"));
    assertEquals(Path.of("/data/12.srv/myjob-alice.o"), p.stdout());
    assertEquals(Path.of("/home/alice/12.srv.alice"), p.stderr());
  }

  @Test
  void aDirectoryGetsTheDefaultName() {
    OutputFiles.Paths p = paths(job("h:/out", "h:$HOME"));
    assertEquals(Path.of("/out/myjob.o12"), p.stdout());
    assertEquals(Path.of("/home/alice/myjob.e12"), p.stderr());
  }

  @Test
  void aSubjobsDefaultNameEndsWithItsIndex() {
    OutputFiles.Paths p =
        paths(job("h:/out", "h:/out").setArrayParent("12[].srv").setArrayIndex(7));
    assertEquals(Path.of("/out/myjob.o12-7"), p.stdout());
    assertEquals(Path.of("/out/myjob.e12-7"), p.stderr());
  }

  @Test
  void joinOutAndErrorWritesBothToTheOutputPath() {
    OutputFiles.Paths p = paths(job("h:/data/o", "h:/data/e").setJoinPath("oe"));
    assertTrue(p.join());
    assertEquals(Path.of("/data/o"), p.stdout());
  }

  @Test
  void joinErrorAndOutWritesBothToTheErrorPath() {
    OutputFiles.Paths p = paths(job("h:/data/o", "h:/data/e").setJoinPath("eo"));
    assertTrue(p.join());
    assertEquals(Path.of("/data/e"), p.stdout());
    assertEquals(Path.of("/data/e"), p.stderr());
  }

  @Test
  void joinNKeepsThemApart() {
    OutputFiles.Paths p = paths(job("h:/data/o", "h:/data/e").setJoinPath("n"));
    assertFalse(p.join());
    assertEquals(Path.of("/data/o"), p.stdout());
    assertEquals(Path.of("/data/e"), p.stderr());
  }
}
