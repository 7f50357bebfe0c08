package dev.berth.tools.qsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.OptionalLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Slurm's time limits and memory sizes (parse_time.c, proc_args.c). */
class SlurmValuesTest {
  @ParameterizedTest
  @CsvSource({
    "10, 600",
    "10:30, 660",
    "1:00:00, 3600",
    "2-0, 172800",
    "1-2, 93600",
    "1-2:30, 95400",
    "1-0:0:1, 86460",
    "0:1, 60"
  })
  void timesAreSecondsRoundedUpToMinutes(String text, long seconds) throws Exception {
    assertEquals(OptionalLong.of(seconds), SlurmValues.timeLimit(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"UNLIMITED", "infinite", "-1", "0"})
  void noLimit(String text) throws Exception {
    assertEquals(OptionalLong.empty(), SlurmValues.timeLimit(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1h", "1:2:3:4", "1-2-3", ":5", "1-:5", "99999999999"})
  void badTimes(String text) {
    SbatchException e = assertThrows(SbatchException.class, () -> SlurmValues.timeLimit(text));
    assertEquals("sbatch: error: Invalid --time specification", e.getMessage());
    assertEquals(255, e.exit());
  }

  @ParameterizedTest
  @CsvSource({"100, 100", "100M, 100", "2G, 2048", "2gb, 2048", "1T, 1048576", "1500K, 2"})
  void memoryIsMegabytes(String text, long mb) throws Exception {
    assertEquals(mb, SlurmValues.megabytes("mem", text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "G", "-1", "1.5G", "2X"})
  void badMemory(String text) {
    SbatchException e =
        assertThrows(SbatchException.class, () -> SlurmValues.megabytes("mem-per-cpu", text));
    assertEquals("sbatch: error: Invalid --mem-per-cpu specification", e.getMessage());
  }
}
