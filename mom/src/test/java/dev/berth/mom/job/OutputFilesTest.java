package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import java.nio.file.Path;
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

  private static OutputFiles.Paths paths(Job.Builder job) {
    return OutputFiles.of(job.build(), ENV, DIRECTORIES);
  }

  @Test
  void hostPrefixIsStripped() {
    OutputFiles.Paths p = paths(job("login1:/data/a.out", "/data/a.err"));
    assertEquals(Path.of("/data/a.out"), p.stdout());
    assertEquals(Path.of("/data/a.err"), p.stderr());
    assertFalse(p.join());
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
