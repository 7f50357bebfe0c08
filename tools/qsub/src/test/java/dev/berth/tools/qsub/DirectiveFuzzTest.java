package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.client.Getopt;
import dev.berth.core.ControlCharacters;
import dev.berth.tools.qsub.DirectiveScanner.Directive;
import dev.berth.tools.qsub.DirectiveScanner.ScannedScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzz test of qsub's {@code #PBS} directive parser: random scripts built from directive
 * fragments, and the real scripts of the compatibility corpus mutated byte by byte and line by
 * line. For each, the scanner and the tokenizer may only throw {@link QsubException}, and a whole
 * submission ({@link Submission#prepare}, which applies every directive) throws nothing and either
 * has a request or has errors. All cases together must finish within a time limit, so a parse that
 * hangs fails the test instead of hanging the build.
 *
 * <p>The seed is printed; {@code -Dberth.fuzz.seed=N} repeats a run, {@code -Dberth.fuzz.cases=N}
 * sets how many cases (default 5000).
 */
class DirectiveFuzzTest {
  private static final long SEED = Long.getLong("berth.fuzz.seed", System.nanoTime());
  private static final int CASES = Integer.getInteger("berth.fuzz.cases", 5000);

  /** Pieces directives are made of: every option letter, and the characters parsers trip on. */
  private static final String[] FRAGMENTS = {
    "#PBS",
    "#PBS ",
    " #PBS",
    "#pbs",
    "#!",
    "#",
    ":",
    "\\",
    "\\\n",
    "'",
    "\"",
    "''",
    "\"\"",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u0000",
    "\u001b[2J",
    "\u202e",
    "é",
    "東",
    "=",
    ",",
    "+",
    "%",
    "@",
    "[",
    "]",
    "-",
    "--",
    "-l",
    "-N",
    "-v",
    "-V",
    "-W",
    "-t",
    "-q",
    "-o",
    "-e",
    "-S",
    "-d",
    "-w",
    "-a",
    "-A",
    "-C",
    "-j",
    "-k",
    "-m",
    "-M",
    "-p",
    "-r",
    "-h",
    "-c",
    "-I",
    "-u",
    "-x",
    "-z",
    "-n",
    "-F",
    "-L",
    "--version",
    "nodes=1:ppn=4",
    "walltime=1:00:00",
    "mem=4gb",
    "pmem=9999999999pb",
    "depend=afterok:12",
    "group_list=users",
    "1-10%2",
    "A=1,B='x,y'",
    "/tmp/out",
    "host:/tmp/err",
    "$HOME",
    "oe",
    "batch@srv",
    "1202141200",
    "echo hi",
    "cd $PBS_O_WORKDIR",
    "exit 0",
    "sleep 1",
  };

  private final Random random = new Random(SEED);
  private final List<byte[]> corpus = corpus();

  @Test
  void theDirectiveParserNeverThrowsAnythingButItsErrorsAndNeverHangs() {
    System.out.println(
        "DirectiveFuzzTest: seed "
            + SEED
            + ", "
            + CASES
            + " cases (repeat with -Dberth.fuzz.seed="
            + SEED
            + ")");
    String[] current = {""};
    assertTimeoutPreemptively(
        Duration.ofSeconds(30).plusMillis(2L * CASES), // about 1 ms a case on a loaded machine
        () -> {
          for (int i = 0; i < CASES; i++) {
            byte[] script = i % 2 == 0 ? randomScript() : mutatedScript();
            current[0] = "case " + i + " of seed " + SEED;
            check(script, current[0]);
          }
        },
        () -> "the parser hung or is far too slow at " + current[0]);
  }

  private static void check(byte[] script, String where) throws Getopt.UsageException {
    try {
      ScannedScript scanned = DirectiveScanner.scan(script, DirectiveScanner.DEFAULT_PREFIX);
      for (Directive d : scanned.directives()) {
        try {
          DirectiveTokenizer.tokenize(d.text());
        } catch (QsubException expected) {
          // an unmatched quote: reported, as documented
        }
      }
    } catch (QsubException expected) {
      // not a Unix text file, or a continuation at the end: reported, as documented
    } catch (RuntimeException | StackOverflowError e) {
      fail(where + ": the scanner or the tokenizer threw " + e + " on " + shown(script), e);
    }
    QsubCommandLine cmd = QsubCommandLine.parse(List.of("job.pbs"));
    Diagnostics diagnostics = new Diagnostics();
    Optional<Submission.Prepared> prepared = Optional.empty();
    try {
      prepared =
          Submission.prepare(cmd, new JobScript("job.pbs", script), SubmitPlace.CTX, diagnostics);
    } catch (RuntimeException | StackOverflowError e) {
      fail(where + ": qsub's parse threw " + e + " on " + shown(script), e);
    }
    assertEquals(
        prepared.isEmpty(),
        diagnostics.hasErrors(),
        where + ": a request exactly when there is no error, for " + shown(script));
  }

  /**
   * Up to 20 lines, mostly directives of a few words, each word a few fragments run together; now
   * and then a comment, a blank or an executable line (after which directives are late).
   */
  private byte[] randomScript() {
    StringBuilder s = new StringBuilder(random.nextBoolean() ? "#!/bin/bash\n" : "");
    int lines = random.nextInt(20);
    for (int l = 0; l < lines; l++) {
      switch (random.nextInt(10)) {
        case 0 -> s.append(random.nextBoolean() ? "echo hi" : "  cd /tmp");
        case 1 ->
            s.append(
                random.nextBoolean() ? "# a comment's quote" : random.nextBoolean() ? "" : ":");
        default -> {
          s.append(random.nextInt(4) == 0 ? " #PBS" : "#PBS");
          int words = 1 + random.nextInt(5);
          for (int w = 0; w < words; w++) {
            s.append(random.nextInt(4) == 0 ? '\t' : ' ');
            int pieces = 1 + random.nextInt(4);
            for (int p = 0; p < pieces; p++) {
              s.append(FRAGMENTS[random.nextInt(FRAGMENTS.length)]);
            }
          }
        }
      }
      s.append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A corpus script with a few mutations: bytes flipped, inserted, cut; lines moved or spliced. */
  private byte[] mutatedScript() {
    byte[] base = corpus.get(random.nextInt(corpus.size()));
    List<Byte> bytes = new ArrayList<>(base.length + 16);
    for (byte b : base) {
      bytes.add(b);
    }
    int mutations = 1 + random.nextInt(6);
    for (int m = 0; m < mutations; m++) {
      int at = bytes.isEmpty() ? 0 : random.nextInt(bytes.size());
      switch (random.nextInt(5)) {
        case 0 -> {
          if (!bytes.isEmpty()) {
            bytes.set(at, (byte) random.nextInt(256));
          }
        }
        case 1 -> {
          byte[] fragment =
              FRAGMENTS[random.nextInt(FRAGMENTS.length)].getBytes(StandardCharsets.UTF_8);
          for (int k = fragment.length - 1; k >= 0; k--) {
            bytes.add(at, fragment[k]);
          }
        }
        case 2 -> {
          int end = Math.min(bytes.size(), at + random.nextInt(40));
          bytes.subList(at, end).clear();
        }
        case 3 -> {
          byte[] other = corpus.get(random.nextInt(corpus.size()));
          int from = other.length == 0 ? 0 : random.nextInt(other.length);
          int to = Math.min(other.length, from + random.nextInt(200));
          for (int k = to - 1; k >= from; k--) {
            bytes.add(at, other[k]);
          }
        }
        default -> bytes.add(at, (byte) "\\'\"#\n \t".charAt(random.nextInt(7)));
      }
    }
    byte[] result = new byte[bytes.size()];
    for (int i = 0; i < result.length; i++) {
      result[i] = bytes.get(i);
    }
    return result;
  }

  /** The corpus scripts, or a few built-in ones when the corpus is not next to the repository. */
  private static List<byte[]> corpus() {
    Optional<Path> dir = CorpusTest.locate();
    if (dir.isPresent()) {
      try (Stream<Path> files = Files.list(dir.get())) {
        List<byte[]> scripts = new ArrayList<>();
        for (Path f : files.filter(p -> p.toString().endsWith(".pbs")).sorted().toList()) {
          scripts.add(Files.readAllBytes(f));
        }
        if (!scripts.isEmpty()) {
          return scripts;
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return Stream.of(
            "#!/bin/bash\n#PBS -N job\n#PBS -l nodes=1:ppn=4,walltime=1:00:00\necho hi\n",
            "#PBS -t 1-10%2 -j oe \\\n#PBS -o /tmp/out\n: comment\n#PBS -v 'A=1,B=2'\ncd\n",
            "#!/bin/sh\n\n# plain comment\n#PBS -W depend=afterok:12 -q batch@srv\nexit 0\n")
        .map(s -> s.getBytes(StandardCharsets.UTF_8))
        .toList();
  }

  private static String shown(byte[] script) {
    return "'" + ControlCharacters.escape(new String(script, StandardCharsets.UTF_8)) + "'";
  }
}
