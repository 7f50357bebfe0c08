package dev.berth.core;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A job array request ({@code qsub -t}, {@code sbatch --array}): a comma list of {@code N} or
 * {@code N-M}, optionally followed by {@code %slots}, as pbs_server accepts it; a range may take a
 * step, {@code N-M:S} (every S-th index from N), as Slurm's and PBS Pro's arrays do. Anything else
 * (Moab's {@code [0-8]}) is a bad array request.
 */
public record ArrayRequest(List<Integer> indices, int slotLimit) {
  public static ArrayRequest parse(String text, int maxSize) {
    String spec = text.trim();
    int slotLimit = 0;
    int percent = spec.indexOf('%');
    if (percent >= 0) {
      slotLimit = number(text, spec.substring(percent + 1));
      if (slotLimit == 0) {
        throw bad(text, "the slot limit after % must be at least 1");
      }
      spec = spec.substring(0, percent);
    }
    TreeSet<Integer> indices = new TreeSet<>();
    for (String item : spec.split(",", -1)) {
      int dash = item.indexOf('-', 1);
      int colon = dash < 0 ? -1 : item.indexOf(':', dash);
      int low = number(text, dash < 0 ? item : item.substring(0, dash));
      int high =
          dash < 0
              ? low
              : number(text, item.substring(dash + 1, colon < 0 ? item.length() : colon));
      int step = colon < 0 ? 1 : number(text, item.substring(colon + 1));
      if (high < low) {
        throw bad(text, "range " + item + " runs backwards");
      }
      if (step == 0) {
        throw bad(text, "the step after : in " + item + " must be at least 1");
      }
      long added = 0;
      for (long i = low; i <= high && indices.size() + added <= maxSize; i += step) {
        added += indices.contains((int) i) ? 0 : 1;
      }
      if (indices.size() + added > maxSize) {
        throw bad(text, "more than max_job_array_size (" + maxSize + ") subjobs");
      }
      for (long i = low; i <= high; i += step) {
        indices.add((int) i);
      }
    }
    return new ArrayRequest(List.copyOf(new ArrayList<>(indices)), slotLimit);
  }

  private static int number(String text, String item) {
    if (item.isEmpty() || !Ascii.allDigits(item)) {
      throw bad(text, "'" + item + "' is not a non-negative number");
    }
    try {
      return Integer.parseInt(item);
    } catch (NumberFormatException e) {
      throw bad(text, "'" + item + "' is too large");
    }
  }

  private static BadValueException bad(String text, String why) {
    return new BadValueException(
        "Bad Job Array Request '"
            + text
            + "': "
            + why
            + " (use e.g. 1-10, 1,5,7-9, 1-9:2 or 1-100%5)");
  }
}
