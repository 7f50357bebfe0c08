package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CommandReaderTest {

  private static List<String> all(CommandReader reader) throws IOException {
    List<String> directives = new ArrayList<>();
    String directive;
    while ((directive = reader.next()) != null) {
      directives.add(directive);
    }
    return directives;
  }

  private static List<String> read(String input) throws IOException {
    return all(new CommandReader(new BufferedReader(new StringReader(input)), null));
  }

  @Test
  void oneDirectivePerLine() throws IOException {
    assertEquals(
        List.of("set server scheduling = True", "list server"),
        read("set server scheduling = True\nlist server\n"));
  }

  @Test
  void blankAndCommentLinesAreSkipped() throws IOException {
    assertEquals(
        List.of("create queue fast", "list queue fast"),
        read(
            "\n#\n# Create queues\n   # indented comment\n\t\ncreate queue fast\n\nlist queue fast"));
  }

  @Test
  void semicolonsSeparateAndHashStartsAComment() throws IOException {
    assertEquals(
        List.of("set server a=1", "set server b=2", "list server"),
        read("set server a=1; set server b=2;;list server # shows both\n"));
  }

  @Test
  void quotesProtectSemicolonsAndHashes() throws IOException {
    assertEquals(
        List.of("set server comment = \"a;b # c\"", "set node n1 note='x;y'"),
        read("set server comment = \"a;b # c\"; set node n1 note='x;y'  # done\n"));
  }

  @Test
  void trailingBackslashContinuesTheLine() throws IOException {
    assertEquals(
        List.of("create queue fast    queue_type=e,  enabled=true", "list queue fast"),
        read("create queue fast \\\n  queue_type=e, \\\nenabled=true\nlist queue fast\n"));
  }

  @Test
  void aBlankLineEndsAContinuation() throws IOException {
    assertEquals(List.of("set server", "list server"), read("set server \\\n\nlist server\n"));
  }

  @Test
  void endOfInputEndsAContinuation() throws IOException {
    assertEquals(List.of("list server"), read("list server \\"));
  }

  @Test
  void carriageReturnsAreDropped() throws IOException {
    assertEquals(List.of("list server", "list queue"), read("list server\r\nlist queue\r\n"));
  }

  @Test
  void dashCArgumentFollowsTheSameRules() throws IOException {
    assertEquals(
        List.of("set server a=1", "list server"),
        all(CommandReader.of("set server a=1; list server # comment")));
    assertEquals(List.of(), all(CommandReader.of("")));
  }

  @Test
  void promptsOnATerminal() throws IOException {
    ByteArrayOutputStream prompts = new ByteArrayOutputStream();
    CommandReader reader =
        new CommandReader(
            new BufferedReader(new StringReader("list server; list queue\nset server \\\na=1\n")),
            new PrintStream(prompts, true, StandardCharsets.UTF_8));
    assertEquals("list server", reader.next());
    assertEquals("Qmgr: ", prompts.toString(StandardCharsets.UTF_8));
    assertEquals("list queue", reader.next());
    assertEquals("Qmgr: ", prompts.toString(StandardCharsets.UTF_8), "no prompt for a pending one");
    assertEquals("set server  a=1", reader.next());
    assertEquals("Qmgr: Qmgr: Qmgr< ", prompts.toString(StandardCharsets.UTF_8));
    assertEquals(null, reader.next());
    assertEquals("Qmgr: Qmgr: Qmgr< Qmgr: \n", prompts.toString(StandardCharsets.UTF_8));
  }
}
