package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.tools.qsub.DirectiveScanner.Directive;
import dev.berth.tools.qsub.DirectiveScanner.ScannedScript;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DirectiveScannerTest {
  private static ScannedScript scan(String script) throws QsubException {
    return scan(script, "#PBS");
  }

  private static ScannedScript scan(String script, String prefix) throws QsubException {
    return DirectiveScanner.scan(script.getBytes(StandardCharsets.UTF_8), prefix);
  }

  private static List<String> texts(ScannedScript s) {
    return s.directives().stream().map(Directive::text).toList();
  }

  @Test
  void directivesBeforeTheFirstCommandCount() throws Exception {
    ScannedScript s =
        scan("#!/bin/bash\n#PBS -N a\n\n# comment\n#PBS -q b\necho hi\n#PBS -N late\n");
    assertEquals(List.of(new Directive(2, " -N a"), new Directive(5, " -q b")), s.directives());
    assertEquals(6, s.firstExecutableLine());
    assertEquals(List.of(7), s.lateDirectiveLines());
  }

  @Test
  void whatCountsAsADirective() throws Exception {
    ScannedScript s =
        scan("   #PBS -A x\n#PBS\t-q y\n#PBS-l mem=1gb\n##PBS -N no\n# PBS -N no\n#pbs -N no\n");
    assertEquals(List.of(" -A x", "\t-q y", "-l mem=1gb"), texts(s));
    assertEquals(0, s.firstExecutableLine());
  }

  @Test
  void blankLinesColonAndShebangLinesDoNotStopTheScan() throws Exception {
    ScannedScript s = scan("\n#!/bin/sh\n  \t\n: comment\n#!/bin/sh -f\n#PBS -N a\n");
    assertEquals(List.of(" -N a"), texts(s));
    assertEquals(0, s.firstExecutableLine());
  }

  @Test
  void indentedColonIsExecutable() throws Exception {
    ScannedScript s = scan(" : x\n#PBS -N a\n");
    assertEquals(List.of(), s.directives());
    assertEquals(1, s.firstExecutableLine());
    assertEquals(List.of(2), s.lateDirectiveLines());
  }

  @Test
  void aMissingHashMakesTheLineACommand() throws Exception {
    ScannedScript s = scan("#!/bin/bash\nPBS -l walltime=1:00\n#PBS -N a\n");
    assertEquals(2, s.firstExecutableLine());
    assertEquals(List.of(3), s.lateDirectiveLines());
  }

  @Test
  void lastLineWithoutNewlineIsScanned() throws Exception {
    assertEquals(List.of(" -N a"), texts(scan("#PBS -N a")));
  }

  @Test
  void trailingBackslashContinuesTheDirective() throws Exception {
    ScannedScript s = scan("#PBS -N a \\\n   -j oe\n#PBS -q b\n");
    assertEquals(
        List.of(new Directive(1, " -N a    -j oe"), new Directive(3, " -q b")), s.directives());
  }

  @Test
  void continuationLineLosesItsOwnPrefix() throws Exception {
    // Without this, Berth's trailing-comment rule would read "#PBS" as a comment and drop -j oe.
    ScannedScript s = scan("#PBS -N a \\\n#PBS -j oe\n");
    assertEquals(List.of(" -N a  -j oe"), texts(s));
  }

  @Test
  void continuationAtTheEndOfTheScriptIsAnError() {
    QsubException e = assertThrows(QsubException.class, () -> scan("#PBS -N a \\\n"));
    assertTrue(e.getMessage().contains("line 1"), e.getMessage());
  }

  @Test
  void crlfScriptsAreRefusedWithAHelpfulMessage() {
    QsubException e = assertThrows(QsubException.class, () -> scan("#!/bin/sh\r\n#PBS -N a\r\n"));
    assertEquals(
        "script is written in DOS/Windows text format (CRLF line endings); convert it with"
            + " dos2unix",
        e.getMessage());
  }

  @Test
  void crlfAfterTheDirectivesIsRefusedToo() {
    assertThrows(QsubException.class, () -> scan("#PBS -N a\necho hi\r\n"));
  }

  @Test
  void binaryFilesAreRefused() {
    QsubException e = assertThrows(QsubException.class, () -> scan("\u007fELF\u0000\u0001"));
    assertTrue(e.getMessage().contains("not a text file"));
  }

  @Test
  void prefixCanBeChanged() throws Exception {
    ScannedScript s = scan("#MY -N a\n#PBS -N b\n", "#MY");
    assertEquals(List.of(" -N a"), texts(s));
  }

  @Test
  void emptyPrefixTurnsDirectivesOff() throws Exception {
    ScannedScript s = scan("#PBS -N a\necho\n#PBS -N b\n", "");
    assertTrue(s.directives().isEmpty());
    assertTrue(s.lateDirectiveLines().isEmpty());
  }

  @Test
  void emptyScriptHasNothing() throws Exception {
    ScannedScript s = scan("");
    assertTrue(s.directives().isEmpty());
    assertFalse(s.firstExecutableLine() > 0);
  }
}
