package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import dev.berth.tools.qsub.DirectiveReader.Located;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Getopt on directive lines: the same rules as the command line, errors named by line. */
class DirectiveReaderTest {
  private final Diagnostics diagnostics = new Diagnostics();

  private List<Located> read(String script) throws QsubException {
    byte[] bytes = script.getBytes(StandardCharsets.UTF_8);
    return DirectiveReader.read(DirectiveScanner.scan(bytes, "#PBS"), "#PBS", diagnostics);
  }

  private static List<String> shown(List<Located> options) {
    return options.stream()
        .map(l -> l.line() + ":" + l.option().name() + "=" + l.option().value())
        .toList();
  }

  @Test
  void severalOptionsOnOneLineKeepTheirOrder() throws Exception {
    List<Located> options = read("#PBS -N job -l nodes=1,walltime=1:00 -j oe -o x.out\n");
    assertEquals(
        List.of("1:N=job", "1:l=nodes=1,walltime=1:00", "1:j=oe", "1:o=x.out"), shown(options));
    assertTrue(diagnostics.warnings().isEmpty());
  }

  @Test
  void attachedArgumentsAndDashArgumentsWork() throws Exception {
    List<Located> options = read("#PBS -lmem=10gb\n#PBS -p -1024\n#PBS -Vh\n");
    assertEquals(List.of("1:l=mem=10gb", "2:p=-1024", "3:V=null", "3:h=null"), shown(options));
  }

  @Test
  void missingArgumentNamesTheLine() throws Exception {
    read("#!/bin/bash\n#PBS -m n\n#PBS -A acct\n\n#PBS -N \n");
    assertEquals(
        List.of("directive on line 5: option requires an argument -- 'N'"), diagnostics.errors());
  }

  @Test
  void unknownOptionNamesTheLine() throws Exception {
    read("#PBS -Z\n");
    assertEquals(List.of("directive on line 1: invalid option -- 'Z'"), diagnostics.errors());
  }

  @Test
  void everyBadLineIsReported() throws Exception {
    List<Located> options = read("#PBS -Z\n#PBS -N ok\n#PBS -N it's\n");
    assertEquals(List.of("2:N=ok"), shown(options));
    assertEquals(2, diagnostics.errors().size());
    assertTrue(diagnostics.errors().get(1).startsWith("directive on line 3: unmatched '"));
  }

  @Test
  void lowercaseNWithAWordWarnsAndExplains() throws Exception {
    List<Located> options = read("#PBS -n 2000K_S_MoO3\n");
    assertEquals(List.of("1:n=null"), shown(options));
    assertEquals(
        List.of(
            "directive on line 1: '2000K_S_MoO3' is not an option and is ignored (-n means"
                + " node-exclusive and takes no value; for a job name use -N)"),
        diagnostics.warnings());
  }

  @Test
  void strayAttributeWordSuggestsW() throws Exception {
    List<Located> options = read("#PBS group_list=cu_1 -A cu_1\n");
    assertEquals(List.of("1:A=cu_1"), shown(options));
    assertEquals(
        List.of(
            "directive on line 1: 'group_list=cu_1' is not an option and is ignored (did you mean"
                + " -W group_list=cu_1?)"),
        diagnostics.warnings());
  }

  @Test
  void trailingCommentsAreNotReadAsOptions() throws Exception {
    List<Located> options = read("#PBS -q batch  # queue; see -N below, it's fine\n");
    assertEquals(List.of("1:q=batch"), shown(options));
    assertTrue(diagnostics.warnings().isEmpty());
    assertFalse(diagnostics.hasErrors());
  }

  @Test
  void prefixOptionInAScriptIsIgnoredWithAWarning() throws Exception {
    List<Located> options = read("#PBS -C XX -N a\n");
    assertEquals(List.of("1:N=a"), shown(options));
    assertEquals(1, diagnostics.warnings().size());
    assertTrue(diagnostics.warnings().get(0).contains("-C has no effect"));
  }

  @Test
  void lateDirectivesAreReportedOnce() throws Exception {
    List<Located> options = read("#PBS -N a\ncd /tmp\n#PBS -N b\n#PBS -q c\n");
    assertEquals(List.of("1:N=a"), shown(options));
    assertEquals(
        List.of(
            "#PBS directives on lines 3, 4 are ignored: directives must come before the first"
                + " command (line 2)"),
        diagnostics.warnings());
  }

  @Test
  void longOptionsInAScriptAreParsedLikeTheCommandLine() throws Exception {
    List<Located> options = read("#PBS --version\n");
    assertEquals(1, options.size());
    Getopt.Option o = options.get(0).option();
    assertTrue(o.is('-'));
    assertEquals("version", o.value());
  }
}
