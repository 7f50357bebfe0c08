package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DirectiveTokenizerTest {
  private static List<String> words(String text) throws QsubException {
    return DirectiveTokenizer.tokenize(text);
  }

  @Test
  void splitsOnSpacesAndTabs() throws Exception {
    assertEquals(
        List.of("-l", "nodes=1:ppn=4", "-q", "gpu"), words("\t-l\tnodes=1:ppn=4  -q gpu  "));
  }

  @Test
  void emptyTextHasNoWords() throws Exception {
    assertEquals(List.of(), words(""));
    assertEquals(List.of(), words("   \t "));
  }

  @Test
  void quotesAreStrippedAndKeepBlanks() throws Exception {
    assertEquals(List.of("-N", "test"), words("-N \"test\""));
    assertEquals(List.of("-d", "/a dir/x"), words("-d '/a dir/x'"));
    assertEquals(List.of("-Na b"), words("-N\"a b\""));
    assertEquals(List.of("-M", "it's"), words("-M \"it's\""));
  }

  @Test
  void emptyQuotesMakeAnEmptyWord() throws Exception {
    assertEquals(List.of("-N", ""), words("-N \"\""));
  }

  @Test
  void backslashTakesTheNextCharacterLiterally() throws Exception {
    assertEquals(List.of("-N", "a b"), words("-N a\\ b"));
    assertEquals(List.of("-M", "it's"), words("-M it\\'s"));
    assertEquals(List.of("-N", "#1"), words("-N \\#1"));
  }

  @Test
  void hashStartingAWordBeginsATrailingComment() throws Exception {
    assertEquals(
        List.of("-l", "walltime=1:00:00"), words("-l walltime=1:00:00  # the job's limit"));
    assertEquals(List.of("-V"), words("-V # export -N x"));
    assertEquals(List.of(), words("# just a comment"));
  }

  @Test
  void hashInsideAWordOrQuotedIsKept() throws Exception {
    assertEquals(List.of("-N", "run#2"), words("-N run#2"));
    assertEquals(List.of("-N", "#2"), words("-N '#2'"));
  }

  @Test
  void unmatchedQuoteIsAnError() {
    QsubException e = assertThrows(QsubException.class, () -> words("-N job's"));
    assertTrue(e.getMessage().startsWith("unmatched '"), e.getMessage());
    assertThrows(QsubException.class, () -> words("-N \"open"));
  }
}
