package dev.berth.server.state;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.berth.proto.Job;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;

/**
 * What the jobs take of the server's memory, summed by owner and for all owners: every job in the
 * state counts, completed ones kept for keep_completed too, until it is purged. The sums are kept
 * in the state, so that a submission is weighed against the heap without looking at any other job.
 *
 * <p>A job's bytes are an estimate of what it holds that no other job holds: its values, its script
 * ({@link #script}), a fixed part for its objects and its entries in the state's maps and indexes,
 * and a part for each element of its lists (a variable, a job it depends on, a mount), each of
 * which is objects of its own. An array's subjob holds only what differs from its parent, with
 * which it shares the rest (its environment, its script), as the state keeps it. Measured on a real
 * heap, the estimate is within about a tenth of what plain jobs, large environments and scripts and
 * subjobs take, mostly above it; a job's dependencies are counted above what they take.
 *
 * <p>Immutable and derived from the jobs alone, in any order they are added, like every index of
 * {@link ClusterState}.
 */
public final class JobBytes {
  static final JobBytes NONE = new JobBytes(HashTreePMap.empty(), 0);

  /** A job's own objects (about 70 fields) and its entries in the state's maps and indexes. */
  static final long JOB_BYTES = 1024;

  /** The same for a subjob, whose values are mostly its parent's. */
  static final long SUBJOB_BYTES = 832;

  /**
   * An element of a list of messages or strings: its own objects (a variable is three, about 40
   * bytes each besides its text) and, for a job depended on, its entry in the dependency index.
   */
  static final long ENTRY_BYTES = 128;

  /** A number, flag or state. */
  private static final long SCALAR_BYTES = 8;

  private static final List<FieldDescriptor> FIELDS = Job.getDescriptor().getFields();

  /**
   * The fields an array's parent changes once its subjobs exist (its state and times as they run,
   * its queue on qmove): a subjob's own, whatever the parent's, so that a subjob's bytes never
   * depend on when its parent last changed, and the sums are the same after any replay.
   */
  private static final Set<FieldDescriptor> PARENT_CHANGES =
      Set.of(
          field(Job.STATE_FIELD_NUMBER),
          field(Job.MTIME_FIELD_NUMBER),
          field(Job.COMP_TIME_FIELD_NUMBER),
          field(Job.QUEUE_FIELD_NUMBER));

  /** Each message type of a job: whether it has lists of objects, at any depth. */
  private static final Map<Descriptor, Boolean> HAS_LISTS = new HashMap<>();

  static {
    hasLists(Job.getDescriptor());
  }

  private final PMap<String, Long> byOwner;
  private final long total;

  private JobBytes(PMap<String, Long> byOwner, long total) {
    this.byOwner = byOwner;
    this.total = total;
  }

  /** What all jobs take. */
  public long total() {
    return total;
  }

  /** What the jobs of {@code user} take. */
  public long of(String user) {
    return byOwner.getOrDefault(user, 0L);
  }

  /** These sums with {@code bytes} (negative: taken away) more for {@code owner}. */
  JobBytes plus(String owner, long bytes) {
    long next = of(owner) + bytes;
    return new JobBytes(
        next == 0 ? byOwner.minus(owner) : byOwner.plus(owner, next), total + bytes);
  }

  /**
   * The bytes {@code job} holds besides its script; {@code parent} is its array's parent, whose
   * values it shares, or null for any other job (or a subjob whose parent is gone).
   */
  static long held(Job job, Job parent) {
    long bytes = parent == null ? JOB_BYTES : SUBJOB_BYTES;
    for (FieldDescriptor f : FIELDS) {
      if (f.isRepeated() ? job.getRepeatedFieldCount(f) == 0 : !job.hasField(f)) {
        continue;
      }
      Object value = job.getField(f);
      if (parent != null && !PARENT_CHANGES.contains(f) && value.equals(parent.getField(f))) {
        continue; // the parent's, shared
      }
      bytes += size(value);
    }
    return bytes;
  }

  /** The bytes a job's script holds (a subjob has none of its own: it runs its array's). */
  static long script(ByteString script) {
    return script.size();
  }

  private static long size(Object value) {
    if (value instanceof String s) {
      return s.length();
    }
    if (value instanceof Message m) {
      return m.getSerializedSize() + ENTRY_BYTES * entries(m);
    }
    if (value instanceof List<?> list) {
      long bytes = 0;
      for (Object element : list) {
        bytes += ENTRY_BYTES + size(element);
      }
      return bytes;
    }
    return SCALAR_BYTES;
  }

  /** How many elements the lists of objects in {@code m} have, at any depth. */
  private static long entries(Message m) {
    if (!HAS_LISTS.get(m.getDescriptorForType())) {
      return 0;
    }
    long n = 0;
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      boolean message = f.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
      if (f.isRepeated()) {
        int count = m.getRepeatedFieldCount(f);
        if (message) {
          for (int i = 0; i < count; i++) {
            n += 1 + entries((Message) m.getRepeatedField(f, i));
          }
        } else if (f.getJavaType() == FieldDescriptor.JavaType.STRING) {
          n += count;
        }
      } else if (message && m.hasField(f)) {
        n += entries((Message) m.getField(f));
      }
    }
    return n;
  }

  private static boolean hasLists(Descriptor d) {
    Boolean known = HAS_LISTS.get(d);
    if (known != null) {
      return known;
    }
    HAS_LISTS.put(d, false); // while its fields are looked at (no job message holds itself)
    boolean lists = false;
    for (FieldDescriptor f : d.getFields()) {
      boolean message = f.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
      lists |= f.isRepeated() && (message || f.getJavaType() == FieldDescriptor.JavaType.STRING);
      lists |= message && hasLists(f.getMessageType());
    }
    HAS_LISTS.put(d, lists);
    return lists;
  }

  private static FieldDescriptor field(int number) {
    return Job.getDescriptor().findFieldByNumber(number);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobBytes b && total == b.total && byOwner.equals(b.byOwner);
  }

  @Override
  public int hashCode() {
    return Objects.hash(total, byOwner.size());
  }

  @Override
  public String toString() {
    return "JobBytes{total=" + total + ", byOwner=" + byOwner + "}";
  }
}
