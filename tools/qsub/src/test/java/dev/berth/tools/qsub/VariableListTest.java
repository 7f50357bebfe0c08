package dev.berth.tools.qsub;

import static dev.berth.tools.qsub.SubmitPlace.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Variable_List: PBS_O_*, then -v, then -V, one entry per name. */
class VariableListTest {
  private static final List<String> AUTOMATIC =
      List.of(
          "PBS_O_HOME=/home/alice",
          "PBS_O_LANG=en_US.UTF-8",
          "PBS_O_LOGNAME=alice",
          "PBS_O_PATH=/usr/bin:/bin",
          "PBS_O_MAIL=/var/mail/alice",
          "PBS_O_SHELL=/bin/bash",
          "PBS_O_HOST=login1.example.org",
          "PBS_O_WORKDIR=/home/alice/work");

  private static List<String> build(String... args) throws Exception {
    return VariableList.build(options(args), SubmitPlace.CTX);
  }

  @Test
  void qsubAlwaysSendsPbsOVariablesFromItsEnvironment() throws Exception {
    // TZ is not in the environment, so there is no PBS_O_TZ; FOO is not sent without -V.
    assertEquals(AUTOMATIC, build());
  }

  @Test
  void workDirAndInitDir() throws Exception {
    List<String> vars = build("-w", "/data", "-d", "sub");
    assertTrue(vars.contains("PBS_O_WORKDIR=/data"), vars.toString());
    assertTrue(vars.contains("PBS_O_INITDIR=/home/alice/work/sub"), vars.toString());
  }

  @Test
  void vVariablesFollowTheAutomaticOnes() throws Exception {
    List<String> vars = build("-v", "A=1,FOO,B=x=y", "-v", "C='1,2',A=2");
    List<String> expected = new ArrayList<>(AUTOMATIC);
    expected.addAll(List.of("A=2", "FOO=bar", "B=x=y", "C=1,2"));
    assertEquals(expected, vars);
  }

  @Test
  void anExplicitVBeatsTheAutomaticValue() throws Exception {
    List<String> vars = build("-v", "PBS_O_WORKDIR=/msegalrolab/msegalro/ACMAP");
    assertEquals(
        List.of("PBS_O_WORKDIR=/msegalrolab/msegalro/ACMAP"),
        vars.stream().filter(v -> v.startsWith("PBS_O_WORKDIR=")).toList());
  }

  @Test
  void bigVExportsTheWholeEnvironmentWithoutOverriding() throws Exception {
    List<String> vars = build("-V", "-v", "FOO=mine");
    List<String> expected = new ArrayList<>(AUTOMATIC);
    expected.addAll(
        List.of(
            "FOO=mine",
            "HOME=/home/alice",
            "LANG=en_US.UTF-8",
            "LIST=a,b",
            "LOGNAME=alice",
            "MAIL=/var/mail/alice",
            "PATH=/usr/bin:/bin",
            "SHELL=/bin/bash"));
    assertEquals(expected, vars);
  }

  @Test
  void aBareNameThatIsNotSetIsSentEmptyWithAWarning() throws Exception {
    List<String> warnings = new ArrayList<>();
    Map<String, String> parsed = VariableList.parse("NOPE", SubmitPlace.ENV, warnings);
    assertEquals(Map.of("NOPE", ""), parsed);
    assertEquals(List.of("-v NOPE: NOPE is not set here; the job gets it empty"), warnings);
  }

  @Test
  void malformedListsAreRefused() {
    assertThrows(
        QsubException.class, () -> VariableList.parse("=x", SubmitPlace.ENV, new ArrayList<>()));
    assertThrows(
        QsubException.class, () -> VariableList.parse("A='x", SubmitPlace.ENV, new ArrayList<>()));
    assertThrows(
        QsubException.class, () -> VariableList.parse("A B=1", SubmitPlace.ENV, new ArrayList<>()));
  }

  @Test
  void bigVLeavesOutWhatTheServerWouldRefuseAndSaysSo() throws Exception {
    Map<String, String> env =
        Map.of(
            "FOO", "bar",
            "BASH_FUNC_module%%", "() {  eval $(lmod bash \"$@\")\n}",
            "PS1", "\u001b[1m$ ",
            "NOTES", "line one\nline two");
    JobOptions options =
        new JobOptions(
            new SubmitContext(SubmitPlace.CWD, SubmitPlace.HOST, env, SubmitPlace.CLOCK));
    List<String> warnings =
        options.apply(Getopt.parse(QsubFlags.QSUB, List.of("-V")).options().get(0));
    assertEquals(
        List.of(
            "-V: not passing BASH_FUNC_module%% (not variable names)",
            "-V: not passing NOTES, PS1 (control characters or newlines in the value; pass one"
                + " with -v if needed)"),
        warnings);
    List<String> vars =
        VariableList.build(
            options, new SubmitContext(SubmitPlace.CWD, SubmitPlace.HOST, env, SubmitPlace.CLOCK));
    assertTrue(vars.contains("FOO=bar"), vars.toString());
    assertTrue(vars.stream().noneMatch(v -> v.startsWith("PS1=") || v.startsWith("NOTES=")));
    assertTrue(vars.stream().noneMatch(v -> v.startsWith("BASH_FUNC")));
  }

  @Test
  void vRefusesWhatTheServerWouldRefuse() {
    QsubException badName =
        assertThrows(
            QsubException.class, () -> VariableList.parse("1X=2", SubmitPlace.ENV, List.of()));
    assertTrue(badName.getMessage().startsWith("-v 1X=2: expected NAME or NAME=value"));
    QsubException badValue =
        assertThrows(
            QsubException.class,
            () -> VariableList.parse("PS1", Map.of("PS1", "\u001b[1m$ "), new ArrayList<>()));
    assertEquals(
        "-v PS1: its value here holds the control character \\x1b; no value may hold control"
            + " characters, newlines or terminal escapes",
        badValue.getMessage());
  }
}
