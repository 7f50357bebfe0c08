package dev.berth.mom.os.cgroup;

import java.util.LinkedHashSet;
import java.util.List;

/**
 * The eBPF program that keeps a cgroup v2 job from devices (BPF_PROG_TYPE_CGROUP_DEVICE): it denies
 * every access (mknod, read, write) to the listed character devices and allows everything else, so
 * the job keeps whatever its parent allows, as {@link V1Job}'s deny rules do. The kernel runs it at
 * each device access of a process in the cgroup or below, with r1 pointing at {@code struct
 * bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; }}, whose access_type is {@code
 * access << 16 | type}; r0 = 0 denies, 1 allows. The device must pass every program attached on the
 * way up, and the v1 devices controller as well.
 *
 * <p>Each instruction is a long holding {@code struct bpf_insn}'s fields from the lowest bits up:
 * opcode (8 bits), destination and source register (4 each), offset (16), immediate (32).
 */
final class DeviceProgram {
  /**
   * The most devices one program denies. At two instructions each it stays below the 4,096
   * instructions the verifier takes even without privileges (BPF_MAXINSNS), and a node has far
   * fewer: a GPU, its control and uvm nodes, MIG capabilities.
   */
  static final int MAX_DEVICES = 1000;

  private static final int BPF_DEVCG_DEV_CHAR = 2;

  private static final int R0 = 0;
  private static final int R1 = 1;
  private static final int TYPE = 2;
  private static final int MAJOR = 4;
  private static final int MINOR = 5;

  private static final int LDX_MEM_W = 0x61; // BPF_LDX | BPF_MEM | BPF_W
  private static final int ALU64_AND_K = 0x57; // BPF_ALU64 | BPF_AND | BPF_K
  private static final int MOV64_K = 0xb7; // BPF_ALU64 | BPF_MOV | BPF_K
  private static final int JEQ_K = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
  private static final int JNE_K = 0x55; // BPF_JMP | BPF_JNE | BPF_K
  private static final int EXIT = 0x95; // BPF_JMP | BPF_EXIT

  private DeviceProgram() {}

  /**
   * The program denying {@code devices} (each counted once). A jump's offset counts from the
   * instruction after it.
   *
   * @throws IllegalArgumentException for more than {@link #MAX_DEVICES} devices
   */
  static long[] denying(List<Device> devices) {
    List<Device> distinct = List.copyOf(new LinkedHashSet<>(devices));
    int n = distinct.size();
    if (n > MAX_DEVICES) {
      throw new IllegalArgumentException(
          "a BPF device program denies at most " + MAX_DEVICES + " devices, not " + n);
    }
    long[] p = new long[9 + 2 * n];
    int i = 0;
    p[i++] = insn(LDX_MEM_W, TYPE, R1, 0, 0); // access_type
    p[i++] = insn(ALU64_AND_K, TYPE, 0, 0, 0xffff);
    p[i++] = insn(JNE_K, TYPE, 0, 2 * n + 2, BPF_DEVCG_DEV_CHAR); // to allow
    p[i++] = insn(LDX_MEM_W, MAJOR, R1, 4, 0);
    p[i++] = insn(LDX_MEM_W, MINOR, R1, 8, 0);
    for (int d = 0; d < n; d++) {
      Device device = distinct.get(d);
      p[i++] = insn(JNE_K, MAJOR, 0, 1, device.major()); // to the next device
      p[i++] = insn(JEQ_K, MINOR, 0, 2 * (n - d), device.minor()); // to deny
    }
    p[i++] = insn(MOV64_K, R0, 0, 0, 1); // allow
    p[i++] = insn(EXIT, 0, 0, 0, 0);
    p[i++] = insn(MOV64_K, R0, 0, 0, 0); // deny
    p[i] = insn(EXIT, 0, 0, 0, 0);
    return p;
  }

  private static long insn(int code, int dst, int src, int off, int imm) {
    return code | dst << 8 | src << 12 | (off & 0xffffL) << 16 | (long) imm << 32;
  }
}
