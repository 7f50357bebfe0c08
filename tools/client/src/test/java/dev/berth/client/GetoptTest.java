package dev.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class GetoptTest {
  private static final String QSUB = "a:A:hl:N:p:V-:";

  @Test
  void clusteredFlagsAndAttachedOrSeparateArguments() throws Exception {
    Getopt.Result r = Getopt.parse(QSUB, List.of("-hV", "-lnodes=1", "-N", "job", "script.sh"));
    assertEquals(
        List.of(
            new Getopt.Option('h', null),
            new Getopt.Option('V', null),
            new Getopt.Option('l', "nodes=1"),
            new Getopt.Option('N', "job")),
        r.options());
    assertEquals(List.of("script.sh"), r.operands());
  }

  @Test
  void anArgumentMayStartWithADash() throws Exception {
    Getopt.Result r = Getopt.parse(QSUB, List.of("-p", "-1024"));
    assertEquals(List.of(new Getopt.Option('p', "-1024")), r.options());
  }

  @Test
  void operandsArePermutedToTheEndUnlessThePlusStopsAtTheFirst() throws Exception {
    assertEquals(
        List.of("a.sh", "b"), Getopt.parse(QSUB, List.of("a.sh", "-h", "b", "-V")).operands());
    Getopt.Result strict = Getopt.parse("+" + QSUB, List.of("a.sh", "-h"));
    assertEquals(List.of("a.sh", "-h"), strict.operands());
    assertEquals(List.of(), strict.options());
  }

  @Test
  void doubleDashEndsOptionsAndLoneDashIsAnOperand() throws Exception {
    Getopt.Result r = Getopt.parse(QSUB, List.of("-h", "--", "-N", "-"));
    assertEquals(List.of(new Getopt.Option('h', null)), r.options());
    assertEquals(List.of("-N", "-"), r.operands());
    assertEquals(List.of("-"), Getopt.parse(QSUB, List.of("-")).operands());
  }

  @Test
  void longWordsBecomeTheDashOptionWhenTheOptstringAllowsIt() throws Exception {
    assertEquals(
        List.of(new Getopt.Option('-', "version")),
        Getopt.parse(QSUB, List.of("--version")).options());
  }

  @Test
  void errorsReadLikeGetopts() {
    assertEquals(
        "invalid option -- 'z'",
        assertThrows(Getopt.UsageException.class, () -> Getopt.parse(QSUB, List.of("-z")))
            .getMessage());
    assertEquals(
        "option requires an argument -- 'N'",
        assertThrows(Getopt.UsageException.class, () -> Getopt.parse(QSUB, List.of("-hN")))
            .getMessage());
    assertThrows(Getopt.UsageException.class, () -> Getopt.parse("ab", List.of("--version")));
  }
}
