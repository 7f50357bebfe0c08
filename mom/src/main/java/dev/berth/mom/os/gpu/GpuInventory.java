package dev.berth.mom.os.gpu;

import dev.berth.proto.Gpu;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The GPUs a mom offers to jobs, numbered 0, 1, ... in the order jobs see them: the device files an
 * administrator names (any accelerator, and stand-ins for tests), or NVIDIA GPUs found through
 * their device files ({@code /dev/nvidiaN}) with what nvidia-smi tells of each.
 */
public final class GpuInventory {
  private static final Pattern NVIDIA_GPU = Pattern.compile("nvidia(\\d+)");

  private GpuInventory() {}

  /**
   * The GPUs a mom's {@code --gpus} names: {@code auto} (NVIDIA GPUs in /dev, described by {@code
   * smi}, nvidia-smi, when it is there), {@code none}, or device files, comma separated.
   */
  public static List<Gpu> of(String spec, Path smi) throws IOException {
    return switch (spec.trim()) {
      case "none" -> List.of();
      case "auto" -> nvidia(Path.of("/dev"), NvidiaSmi.ask(smi));
      default -> {
        List<Path> paths = new ArrayList<>();
        for (String item : spec.split(",")) {
          paths.add(Path.of(item.trim()));
        }
        yield configured(paths);
      }
    };
  }

  /**
   * GPUs from the device files named, in that order.
   *
   * @throws IOException naming a file that is not a character device, or one named twice
   */
  public static List<Gpu> configured(List<Path> devices) throws IOException {
    List<Gpu> gpus = new ArrayList<>();
    Set<DeviceFiles.Numbers> seen = new HashSet<>();
    for (Path device : devices) {
      if (!device.isAbsolute()) {
        throw new IOException("GPU device " + device + " is not an absolute path");
      }
      DeviceFiles.Numbers n = DeviceFiles.of(device);
      if (!seen.add(n)) {
        throw new IOException(
            "GPU device " + device + " is device " + n.major() + ":" + n.minor() + " again");
      }
      gpus.add(
          Gpu.newBuilder()
              .setIndex(gpus.size())
              .setDevice(device.toString())
              .setMajor(n.major())
              .setMinor(n.minor())
              .build());
    }
    return List.copyOf(gpus);
  }

  /**
   * The NVIDIA GPUs whose device files are in {@code dev}, ordered as nvidia-smi numbers them when
   * it answered ({@code smi}: minor number to what it said), else by minor number.
   */
  public static List<Gpu> nvidia(Path dev, Map<Integer, NvidiaSmi.Facts> smi) throws IOException {
    List<Gpu.Builder> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(dev)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Matcher m = NVIDIA_GPU.matcher(f.getFileName().toString());
        if (m.matches() && DeviceFiles.isCharDevice(f)) {
          DeviceFiles.Numbers n = DeviceFiles.of(f);
          Gpu.Builder g =
              Gpu.newBuilder().setDevice(f.toString()).setMajor(n.major()).setMinor(n.minor());
          NvidiaSmi.Facts facts = smi.get(n.minor());
          if (facts != null) {
            g.setUuid(facts.uuid())
                .setModel(facts.model())
                .setBusId(facts.busId())
                .setMemory(facts.memory());
          }
          found.add(g);
        }
      }
    }
    found.sort(
        Comparator.comparingInt(
                (Gpu.Builder g) -> {
                  NvidiaSmi.Facts facts = smi.get(g.getMinor());
                  return facts == null ? Integer.MAX_VALUE : facts.index();
                })
            .thenComparingInt(Gpu.Builder::getMinor));
    List<Gpu> gpus = new ArrayList<>();
    for (Gpu.Builder g : found) {
      gpus.add(g.setIndex(gpus.size()).build());
    }
    return List.copyOf(gpus);
  }
}
