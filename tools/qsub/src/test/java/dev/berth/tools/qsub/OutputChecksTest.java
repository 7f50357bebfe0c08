package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.client.LocalFiles;
import dev.berth.client.LocalFiles.Probe;
import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a job's output goes on the submit host, checked through the probes its client answers. */
class OutputChecksTest {
  private static final SubmitContext CTX =
      new SubmitContext(Path.of("/home/a/run"), "login1", Map.of(), Clock.systemUTC());

  private final Map<Path, Probe> answers = new LinkedHashMap<>();
  private final List<Path> asked = new ArrayList<>();
  private final LocalFiles files =
      new LocalFiles() {
        @Override
        public byte[] read(Path file) {
          throw new AssertionError("qsub reads no output file");
        }

        @Override
        public Map<Path, Probe> probe(List<Path> paths) {
          asked.addAll(paths);
          Map<Path, Probe> result = new LinkedHashMap<>();
          paths.forEach(
              p ->
                  result.put(
                      p, answers.getOrDefault(p, new Probe(Probe.Kind.MISSING, 0, null, ""))));
          return result;
        }
      };

  private static Attribute attr(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  private static Probe directory(boolean writable) {
    return new Probe(Probe.Kind.DIRECTORY, 0, null, "", writable);
  }

  private String refusal(Attribute... attributes) {
    return assertThrows(
            QsubException.class, () -> OutputChecks.check(List.of(attributes), CTX, files))
        .getMessage();
  }

  @Test
  void theWorkingDirectoryMustTakeTheFilesWhenNoPathIsGiven() throws Exception {
    answers.put(Path.of("/home/a/run"), directory(true));
    OutputChecks.check(List.of(), CTX, files);
    assertEquals(List.of(Path.of("/home/a/run")), asked);

    answers.put(Path.of("/home/a/run"), directory(false));
    assertEquals(
        "the job's output would go to /home/a/run, where you cannot make files: submit from a"
            + " directory you can write, or give -o a path you can",
        refusal());
    answers.put(Path.of("/srv/shared"), directory(false));
    answers.put(Path.of("/home/a/out"), directory(true));
    OutputChecks.check(List.of(attr(AttributeNames.WORK_DIR, "/home/a/out")), CTX, files);
  }

  @Test
  void anExistingFileTheCallerMayWriteWillDoAsWillANewOneInAWritableDirectory() throws Exception {
    answers.put(Path.of("/dev/null"), new Probe(Probe.Kind.OTHER, 0, null, "", true));
    answers.put(Path.of("/home/a/logs"), directory(true));
    OutputChecks.check(
        List.of(
            attr(AttributeNames.OUTPUT_PATH, "login1:/dev/null"),
            attr(AttributeNames.ERROR_PATH, "login1.site:/home/a/logs/x.err")),
        CTX,
        files);
    answers.put(Path.of("/etc/passwd"), new Probe(Probe.Kind.FILE, 10, null, "", false));
    assertEquals(
        "the job's output would go to /etc/passwd, which you cannot write: submit from a directory"
            + " you can write, or give -o a path you can",
        refusal(
            attr(AttributeNames.OUTPUT_PATH, "login1:/etc/passwd"),
            attr(AttributeNames.JOIN_PATH, "oe")));
    // a directory not there yet may be made before the job starts (by a job it depends on, say)
    OutputChecks.check(
        List.of(
            attr(AttributeNames.OUTPUT_PATH, "login1:/dev/null"),
            attr(AttributeNames.ERROR_PATH, "login1:/home/a/logs/later/x.err")),
        CTX,
        files);
    answers.put(Path.of("/root"), new Probe(Probe.Kind.DENIED, 0, null, ""));
    assertEquals(
        "the job's output would go to /root, which you cannot enter: submit from a directory you"
            + " can write, or give -e a path you can",
        refusal(
            attr(AttributeNames.OUTPUT_PATH, "login1:/dev/null"),
            attr(AttributeNames.ERROR_PATH, "login1:/root/x.err")));
  }

  @Test
  void anotherHostsPathsKeptAndJoinedStreamsAreNotThisHostsToCheck() throws Exception {
    answers.put(Path.of("/home/a/run"), directory(false));
    OutputChecks.check(
        List.of(
            attr(AttributeNames.OUTPUT_PATH, "n07:/scratch/x.out"),
            attr(AttributeNames.ERROR_PATH, "n07:/scratch/x.err")),
        CTX,
        files);
    OutputChecks.check(List.of(attr(AttributeNames.KEEP_FILES, "oe")), CTX, files);
    assertEquals(List.of(), asked, "nothing of this host was asked about");
  }
}
