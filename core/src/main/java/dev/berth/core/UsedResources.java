package dev.berth.core;

import dev.berth.proto.ResourcesUsed;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's resources_used as Torque's commands show them, in qstat's order: cput, mem, vmem and
 * walltime always, then what was measured only where it was (OOM kills, GPUs, block I/O, GPU
 * utilisation). qstat, job mail and epilogue arguments all show these.
 */
public final class UsedResources {
  private UsedResources() {}

  /** One resource: its name, its value as text, and whether that value is a plain number. */
  public record Item(String name, String value, boolean number) {
    /** {@code name=value}. */
    public String pair() {
      return name + "=" + value;
    }
  }

  public static List<Item> of(ResourcesUsed u) {
    List<Item> items = new ArrayList<>();
    items.add(new Item("cput", Durations.format(u.getCput()), false));
    items.add(new Item("mem", Sizes.formatKb(u.getMem()), false));
    items.add(new Item("vmem", Sizes.formatKb(u.getVmem()), false));
    items.add(new Item("walltime", Durations.format(u.getWalltime()), false));
    if (u.getOomKills() > 0) {
      items.add(new Item("oom_kills", Integer.toString(u.getOomKills()), true));
    }
    if (u.getGpus() > 0) {
      items.add(new Item("gpus", Integer.toString(u.getGpus()), true));
    }
    if (u.getIoRead() > 0 || u.getIoWrite() > 0) {
      items.add(new Item("io_read", Sizes.formatKb(u.getIoRead()), false));
      items.add(new Item("io_write", Sizes.formatKb(u.getIoWrite()), false));
    }
    if (u.getGpusSampled() > 0) { // where the driver told (named after OpenPBS's cpupercent)
      items.add(new Item("gpupercent", Integer.toString(u.getGpuPercent()), true));
      items.add(new Item("gpumem", Sizes.formatKb(u.getGpuMem()), false));
    }
    return items;
  }
}
