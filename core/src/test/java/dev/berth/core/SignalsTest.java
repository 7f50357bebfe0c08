package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SignalsTest {

  @Test
  void constants() {
    assertEquals(9, Signals.SIGKILL);
    assertEquals(15, Signals.SIGTERM);
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "SIGTERM, 15",
    "TERM, 15",
    "term, 15",
    "SigTerm, 15",
    "sigkill, 9",
    "KILL, 9",
    "SIGHUP, 1",
    "INT, 2",
    "SIGQUIT, 3",
    "SIGUSR1, 10",
    "usr2, 12",
    "SIGALRM, 14",
    "SIGCHLD, 17",
    "SIGCONT, 18",
    "SIGSTOP, 19",
    "SIGTSTP, 20",
    "XCPU, 24",
    "SIGWINCH, 28",
    "SIGSYS, 31",
    "' SIGINT ', 2",
  })
  void names(String text, int number) {
    assertEquals(number, Signals.parse(text));
  }

  @ParameterizedTest(name = "{0} is {1}")
  @CsvSource({
    "suspend, 19",
    "SUSPEND, 19",
    "Suspend, 19",
    "resume, 18",
    "RESUME, 18",
  })
  void qsigSuspendAndResume(String text, int number) {
    assertEquals(number, Signals.parse(text));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"1, 1", "9, 9", "15, 15", "34, 34", "64, 64", "' 9 ', 9", "009, 9"})
  void numbers(String text, int number) {
    assertEquals(number, Signals.parse(text));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"0", "65", "100", "99999999999", "00"})
  void numbersOutOfRange(String text) {
    BadValueException e = assertThrows(BadValueException.class, () -> Signals.parse(text));
    assertEquals("signal number " + text + " is out of range 1-64", e.getMessage());
  }

  @ParameterizedTest(name = "''{0}''")
  @CsvSource({"''", "SIG", "FOO", "SIGFOO", "-9", "SIG9", "SIGSUSPEND", "SIGRESUME", "KILL9"})
  void unknownNames(String text) {
    BadValueException e = assertThrows(BadValueException.class, () -> Signals.parse(text));
    assertEquals("unknown signal '" + text + "'", e.getMessage());
  }
}
