package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.proto.Attribute;
import dev.berth.tools.qsub.Submission.Prepared;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The 40 real job scripts of the shared compatibility corpus (see its INDEX.md), each read from the
 * shared folder and run through qsub's parsing with a fixed cwd, host and environment. The
 * expectations in {@link CorpusExpectations} are Torque 6 qsub's parse, except where Berth
 * deliberately differs; those rows say why.
 *
 * <p>The folder is {@code -Dberth.corpus=DIR}, else {@code ../shared/pbs-scripts} next to the
 * repository (found by walking up from the working directory). Without it the tests are skipped,
 * never passed.
 */
class CorpusTest {
  static final String PROPERTY = "berth.corpus";

  @TestFactory
  Stream<DynamicTest> everyCorpusScriptParsesAsExpected() throws IOException {
    Optional<Path> corpus = locate();
    if (corpus.isEmpty()) {
      // A visible skip with the reason, never a silent pass.
      return Stream.of(
          DynamicTest.dynamicTest(
              "corpus not present",
              () ->
                  assumeTrue(
                      false,
                      "compatibility corpus not present (looked for "
                          + System.getProperty(
                              PROPERTY, "../shared/pbs-scripts next to the repository")
                          + "; set -D"
                          + PROPERTY
                          + "=DIR); corpus tests skipped")));
    }
    Path dir = corpus.get();
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files = list.filter(p -> p.toString().endsWith(".pbs")).sorted().toList();
    }
    Set<String> names =
        files.stream()
            .map(p -> p.getFileName().toString())
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(
        new TreeSet<>(CorpusExpectations.ALL.keySet()),
        names,
        "the corpus in " + dir + " and the expectation table must list the same 40 files");
    return files.stream()
        .map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f)));
  }

  private static void check(Path file) throws IOException {
    String name = file.getFileName().toString();
    CorpusExpectations.Expected expected = CorpusExpectations.ALL.get(name);
    byte[] bytes = Files.readAllBytes(file);
    Diagnostics diagnostics = new Diagnostics();
    Optional<Prepared> prepared =
        Submission.prepare(
            commandLine(name), new JobScript(name, bytes), SubmitPlace.CTX, diagnostics);
    assertWarnings(expected.warnings(), diagnostics.warnings());
    if (!expected.errors().isEmpty()) {
      assertTrue(prepared.isEmpty(), name + " must be refused");
      assertWarnings(expected.errors(), diagnostics.errors());
      return;
    }
    assertEquals(List.of(), diagnostics.errors(), name + " must be accepted");
    List<Attribute> attributes = prepared.orElseThrow().request().getAttributesList();
    assertEquals(expected.attributes(name), SubmitPlace.byName(attributes), name);
    List<String> variables = SubmitPlace.variables(attributes);
    for (String v : expected.variables()) {
      assertTrue(variables.contains(v), name + ": Variable_List lacks " + v + ": " + variables);
    }
    for (String absent : expected.absentVariables()) {
      assertTrue(
          variables.stream().noneMatch(v -> v.startsWith(absent + "=")),
          name + ": Variable_List must not have " + absent + ": " + variables);
    }
    assertEquals(expected.exportsEnvironment(), variables.contains("FOO=bar"), name + " and -V");
    assertEquals(1, variables.stream().filter(v -> v.startsWith("PBS_O_WORKDIR=")).count(), name);
    assertArrayEquals(bytes, prepared.get().request().getScript().toByteArray(), name);
    assertFalse(prepared.get().quiet());
  }

  /** Same count, and each actual message starts with the expected text at its position. */
  private static void assertWarnings(List<String> expected, List<String> actual) {
    assertEquals(expected.size(), actual.size(), "messages: " + actual);
    for (int i = 0; i < expected.size(); i++) {
      String a = actual.get(i);
      assertTrue(a.startsWith(expected.get(i)), "expected '" + expected.get(i) + "...' got: " + a);
    }
  }

  static Optional<Path> locate() {
    String property = System.getProperty(PROPERTY);
    if (property != null && !property.isBlank()) {
      Path dir = Path.of(property);
      return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve("mvnw")) && Files.exists(d.resolve(".git"))) {
        Path candidate = d.resolve("../shared/pbs-scripts").normalize();
        return Files.isDirectory(candidate) ? Optional.of(candidate) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The command line {@code qsub FILE}. */
  private static QsubCommandLine commandLine(String file) {
    try {
      return QsubCommandLine.parse(List.of(file));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
