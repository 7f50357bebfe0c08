package dev.berth.mom.os.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What nvidia-smi tells of each GPU, keyed by the minor number of its device file. */
public final class NvidiaSmi {
  /** The query: the fields of {@link Facts}, in order. */
  static final List<String> QUERY =
      List.of(
          "--query-gpu=index,minor_number,uuid,name,pci.bus_id,memory.total",
          "--format=csv,noheader,nounits");

  /** The sampling query: minor number, utilisation (percent) and memory in use (MiB). */
  static final List<String> SAMPLE =
      List.of(
          "--query-gpu=minor_number,utilization.gpu,memory.used", "--format=csv,noheader,nounits");

  private NvidiaSmi() {}

  /** One GPU: nvidia-smi's index, and its uuid, name, bus id and memory (bytes). */
  public record Facts(int index, String uuid, String model, String busId, long memory) {}

  /** nvidia-smi in the PATH, else where drivers install it. */
  public static Path find() {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nvidia-smi"))) {
        return Path.of(dir, "nvidia-smi");
      }
    }
    return Path.of("/usr/bin/nvidia-smi");
  }

  /**
   * Asks {@code smi} (nvidia-smi) about the GPUs; empty when it is not there or does not answer
   * within 30 s (a driver that is not loaded).
   */
  public static Map<Integer, Facts> ask(Path smi) {
    return parse(run(smi, QUERY, Duration.ofSeconds(30)));
  }

  /**
   * What {@code smi} (nvidia-smi) says each GPU is doing now, keyed by minor number; empty when it
   * does not answer within {@code patience}. Where a GPU's driver does not tell a figure, that GPU
   * is left out.
   */
  public static Map<Integer, GpuSample> sample(Path smi, Duration patience) {
    return parseSamples(run(smi, SAMPLE, patience));
  }

  /** Runs {@code smi} with {@code query}; its output, or empty when it failed or took too long. */
  private static String run(Path smi, List<String> query, Duration patience) {
    if (!Files.isExecutable(smi)) {
      return "";
    }
    Path out = null;
    try {
      out = Files.createTempFile("berth-nvidia-smi", ".csv");
      List<String> argv = new ArrayList<>(List.of(smi.toString()));
      argv.addAll(query);
      Process p =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return "";
      }
      return p.exitValue() == 0 ? Files.readString(out, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // a temporary file left behind
        }
      }
    }
  }

  /** Parses the sample query's CSV lines; a GPU whose figures are not numbers is left out. */
  static Map<Integer, GpuSample> parseSamples(String csv) {
    Map<Integer, GpuSample> samples = new HashMap<>();
    for (String line : csv.split("\n")) {
      String[] f = line.split(",");
      if (f.length != 3) {
        continue;
      }
      try {
        int percent = Integer.parseInt(f[1].trim());
        long mib = Long.parseLong(f[2].trim());
        if (percent >= 0 && percent <= 100 && mib >= 0) {
          samples.put(Integer.parseInt(f[0].trim()), new GpuSample(percent, mib * 1024 * 1024));
        }
      } catch (NumberFormatException e) {
        // [N/A] or [Not Supported], or a warning nvidia-smi printed
      }
    }
    return samples;
  }

  /** Parses the query's CSV lines; a line that does not fit is left out. */
  static Map<Integer, Facts> parse(String csv) {
    Map<Integer, Facts> facts = new HashMap<>();
    for (String line : csv.split("\n")) {
      String[] f = line.split(",");
      if (f.length != 6) {
        continue;
      }
      try {
        long mib = f[5].trim().matches("\\d+") ? Long.parseLong(f[5].trim()) : 0;
        facts.put(
            Integer.parseInt(f[1].trim()),
            new Facts(
                Integer.parseInt(f[0].trim()),
                f[2].trim(),
                f[3].trim(),
                f[4].trim(),
                mib * 1024 * 1024));
      } catch (NumberFormatException e) {
        // not a GPU line (a warning nvidia-smi printed)
      }
    }
    return facts;
  }
}
