package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The device program run by a small interpreter of the instructions it may use, with the kernel's
 * context (access_type, major, minor), so the tests check what it allows, not its bytes. The
 * interpreter refuses what the verifier would: other opcodes, context reads other than the three
 * u32 fields, uninitialized registers, jumps backwards or out of the program, and falling off its
 * end.
 */
class DeviceProgramTest {
  static final int BLOCK = 1;
  static final int CHAR = 2;
  static final int MKNOD = 1;
  static final int READ = 2;
  static final int WRITE = 4;

  static final int ALLOW = 1;
  static final int DENY = 0;

  static final Device GPU1 = new Device(195, 1);
  static final Device CTL = new Device(195, 255);
  static final Device UVM = new Device(511, 0);

  @Test
  void everyAccessToAListedCharacterDeviceIsDeniedAndNothingElse() {
    long[] p = DeviceProgram.denying(List.of(GPU1, CTL, UVM));
    for (int access : List.of(MKNOD, READ, WRITE, READ | WRITE, MKNOD | READ | WRITE)) {
      for (Device d : List.of(GPU1, CTL, UVM)) {
        assertEquals(DENY, run(p, access, CHAR, d), access + " of " + d);
        assertEquals(ALLOW, run(p, access, BLOCK, d), access + " of block device " + d);
      }
      for (Device d :
          List.of(
              new Device(195, 0),
              new Device(195, 2),
              new Device(195, 254),
              new Device(511, 1),
              new Device(196, 1),
              new Device(1, 3),
              new Device(0, 0))) {
        assertEquals(ALLOW, run(p, access, CHAR, d), access + " of " + d);
      }
    }
  }

  @Test
  void withoutDevicesEverythingIsAllowed() {
    long[] p = DeviceProgram.denying(List.of());
    assertEquals(ALLOW, run(p, READ | WRITE, CHAR, GPU1));
    assertEquals(ALLOW, run(p, MKNOD, BLOCK, new Device(7, 0)));
  }

  @Test
  void theLargestDeviceNumbersAreDenied() {
    Device last = new Device(4095, (1 << 20) - 1); // 12-bit major, 20-bit minor
    long[] p = DeviceProgram.denying(List.of(last));
    assertEquals(DENY, run(p, READ, CHAR, last));
    assertEquals(ALLOW, run(p, READ, CHAR, new Device(4095, (1 << 20) - 2)));
    assertEquals(ALLOW, run(p, READ, CHAR, new Device(4094, (1 << 20) - 1)));
  }

  @Test
  void theMostDevicesAProgramTakesAreAllDeniedWithinTheVerifiersLengthLimit() {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < DeviceProgram.MAX_DEVICES; i++) {
      devices.add(new Device(200 + i / 100, i % 100));
    }
    devices.add(devices.get(0)); // counted once
    long[] p = DeviceProgram.denying(devices);
    assertTrue(p.length <= 4096, "BPF_MAXINSNS: " + p.length);
    for (int i = 0; i < DeviceProgram.MAX_DEVICES; i++) {
      Device d = devices.get(i);
      assertEquals(DENY, run(p, WRITE, CHAR, d), d.toString());
      assertEquals(ALLOW, run(p, WRITE, CHAR, new Device(d.major(), d.minor() + 100)));
      assertEquals(ALLOW, run(p, WRITE, BLOCK, d));
    }
  }

  @Test
  void moreDevicesAreRefused() {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i <= DeviceProgram.MAX_DEVICES; i++) {
      devices.add(new Device(195, i));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DeviceProgram.denying(devices));
    assertEquals("a BPF device program denies at most 1000 devices, not 1001", e.getMessage());
  }

  /** What the program returns for {@code access} to a device of {@code type}. */
  static long run(long[] program, int access, int type, Device device) {
    int[] ctx = {access << 16 | type, device.major(), device.minor()};
    Long[] r = new Long[11];
    boolean[] pointsToCtx = new boolean[11];
    pointsToCtx[1] = true;
    int pc = 0;
    while (true) {
      check(pc >= 0 && pc < program.length, pc, "the program runs off its end");
      long insn = program[pc];
      int code = (int) (insn & 0xff);
      int dst = (int) (insn >>> 8 & 0xf);
      int src = (int) (insn >>> 12 & 0xf);
      short off = (short) (insn >>> 16);
      int imm = (int) (insn >>> 32);
      check(dst <= 10 && src <= 10, pc, "no such register");
      switch (code) {
        case 0x61 -> { // dst = *(u32 *)(src + off)
          check(pointsToCtx[src], pc, "a load from something other than the context");
          check(off == 0 || off == 4 || off == 8, pc, "a load from the context other than a field");
          r[dst] = Integer.toUnsignedLong(ctx[off / 4]);
          pointsToCtx[dst] = false;
        }
        case 0x57 -> r[dst] = value(r, dst, pc) & imm; // dst &= imm, 64 bits
        case 0xb7 -> { // dst = imm, 64 bits
          r[dst] = (long) imm;
          pointsToCtx[dst] = false;
        }
        case 0x15, 0x55 -> { // if dst ==, != imm goto pc + 1 + off
          check(off >= 0, pc, "a backward jump");
          boolean equal = value(r, dst, pc) == (long) imm;
          if (equal == (code == 0x15)) {
            pc += off;
          }
        }
        case 0x95 -> {
          return value(r, 0, pc);
        }
        default -> fail("instruction " + pc + ": opcode 0x" + Integer.toHexString(code));
      }
      pc++;
    }
  }

  private static long value(Long[] r, int reg, int pc) {
    check(r[reg] != null, pc, "a register read before it is set");
    return r[reg];
  }

  private static void check(boolean ok, int pc, String what) {
    if (!ok) {
      fail("instruction " + pc + ": " + what);
    }
  }
}
