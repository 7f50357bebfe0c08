/*
 * berth-native: what the mom needs from the kernel that Java's API does not give, a section each:
 * the process id behind a Unix socket connection, NSS lookups, cgroup v2 device programs and
 * pseudo-terminals. First the process id (SO_PEERCRED): Java's own SO_PEERCRED option gives
 * only user and group names, and the task manager must know which process connected, to check
 * that it belongs to the job it asks about.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jni.h>
#include <string.h>
#include <sys/socket.h>

static int channel_fd(JNIEnv *env, jobject channel) {
  jclass cls = (*env)->GetObjectClass(env, channel);
  /* SocketChannelImpl keeps the descriptor number in fdVal (JDK 11 to 25). */
  jfieldID field = (*env)->GetFieldID(env, cls, "fdVal", "I");
  if (field == NULL) {
    (*env)->ExceptionClear(env);
    return -1;
  }
  return (*env)->GetIntField(env, channel, field);
}

JNIEXPORT jlongArray JNICALL Java_dev_berth_mom_os_PeerCredentials_peer(
    JNIEnv *env, jclass cls, jobject channel) {
  (void)cls;
  int fd = channel_fd(env, channel);
  if (fd < 0) {
    (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"),
                     "cannot find the socket's file descriptor");
    return NULL;
  }
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
    (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"), strerror(errno));
    return NULL;
  }
  jlong values[3] = {cred.pid, cred.uid, cred.gid};
  jlongArray result = (*env)->NewLongArray(env, 3);
  if (result != NULL) (*env)->SetLongArrayRegion(env, result, 0, 3, values);
  return result;
}

/*
 * Users and groups as the node's NSS serves them (files, LDAP, SSSD), in-process: the mom looks
 * them up for every job and task it starts, and a getent process per lookup cost milliseconds.
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>

/* Large LDAP groups need more than any fixed buffer: grow it while the C library says ERANGE. */
#define MAX_LOOKUP_BUFFER (16 << 20)

/* {name, uid, gid, home, shell}, or null when there is no such user. */
JNIEXPORT jobjectArray JNICALL Java_dev_berth_mom_os_Nss_user(JNIEnv *env, jclass cls,
                                                             jstring name) {
  (void)cls;
  const char *n = (*env)->GetStringUTFChars(env, name, NULL);
  if (n == NULL) return NULL;
  struct passwd pw, *found = NULL;
  char *buffer = NULL;
  int rc = ERANGE;
  for (size_t size = 16384; rc == ERANGE && size <= MAX_LOOKUP_BUFFER; size *= 4) {
    char *bigger = realloc(buffer, size);
    if (!bigger) { rc = ENOMEM; break; }
    buffer = bigger;
    rc = getpwnam_r(n, &pw, buffer, size, &found);
  }
  (*env)->ReleaseStringUTFChars(env, name, n);
  jobjectArray result = NULL;
  if (rc == 0 && found != NULL) {
    char uid[32], gid[32];
    snprintf(uid, sizeof uid, "%u", (unsigned)pw.pw_uid);
    snprintf(gid, sizeof gid, "%u", (unsigned)pw.pw_gid);
    const char *fields[5] = {pw.pw_name, uid, gid, pw.pw_dir, pw.pw_shell ? pw.pw_shell : ""};
    result = (*env)->NewObjectArray(env, 5, (*env)->FindClass(env, "java/lang/String"), NULL);
    for (int i = 0; result != NULL && i < 5; i++) {
      (*env)->SetObjectArrayElement(env, result, i, (*env)->NewStringUTF(env, fields[i]));
    }
  } else if (rc != 0) {
    (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"), strerror(rc));
  }
  free(buffer);
  return result;
}

/* The groups a user is in (getgrouplist), their primary group first. */
JNIEXPORT jintArray JNICALL Java_dev_berth_mom_os_Nss_groups(JNIEnv *env, jclass cls,
                                                            jstring name, jint gid) {
  (void)cls;
  const char *n = (*env)->GetStringUTFChars(env, name, NULL);
  if (n == NULL) return NULL;
  int count = 64;
  int found = 0;
  gid_t *groups = NULL;
  for (int tries = 0; tries < 8 && !found; tries++) {
    gid_t *bigger = realloc(groups, sizeof(gid_t) * count);
    if (bigger == NULL) break;
    groups = bigger;
    int want = count;
    if (getgrouplist(n, (gid_t)gid, groups, &want) >= 0) {
      count = want;
      found = 1;
    } else {
      count = want > count ? want : count * 2;
    }
  }
  (*env)->ReleaseStringUTFChars(env, name, n);
  jintArray result = NULL;
  if (!found) {
    (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"),
                     "cannot list the user's groups");
  } else {
    result = (*env)->NewIntArray(env, count);
    for (int i = 0; result != NULL && i < count; i++) {
      jint g = (jint)groups[i];
      (*env)->SetIntArrayRegion(env, result, i, 1, &g);
    }
  }
  free(groups);
  return result;
}

/* A group's id, or -1 when there is no such group. */
JNIEXPORT jint JNICALL Java_dev_berth_mom_os_Nss_groupId(JNIEnv *env, jclass cls, jstring name) {
  (void)cls;
  const char *n = (*env)->GetStringUTFChars(env, name, NULL);
  if (n == NULL) return -1;
  struct group gr, *found = NULL;
  char *buffer = NULL;
  int rc = ERANGE;
  for (size_t size = 16384; rc == ERANGE && size <= MAX_LOOKUP_BUFFER; size *= 4) {
    char *bigger = realloc(buffer, size);
    if (!bigger) { rc = ENOMEM; break; }
    buffer = bigger;
    rc = getgrnam_r(n, &gr, buffer, size, &found);
  }
  (*env)->ReleaseStringUTFChars(env, name, n);
  jint result = rc == 0 && found != NULL ? (jint)gr.gr_gid : -1;
  free(buffer);
  if (rc != 0) {
    (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"), strerror(rc));
  }
  return result;
}

/*
 * cgroup v2's device rules: it has no devices files, so a BPF_PROG_TYPE_CGROUP_DEVICE program
 * (DeviceProgram.java builds it) is loaded and attached to the job's cgroup directory through raw
 * bpf(2); libbpf would be one more library to ship for two system calls.
 */
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>

/* Enough of the verifier's log to say why; from Linux 6.4 on it keeps the end, where that is. */
#define VERIFIER_LOG_SIZE 8192

static long bpf(int cmd, union bpf_attr *attr) {
  return syscall(__NR_bpf, cmd, attr, sizeof *attr);
}

__attribute__((format(printf, 2, 3))) static void throw_io(JNIEnv *env, const char *format, ...) {
  char message[VERIFIER_LOG_SIZE + 1024];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  (*env)->ThrowNew(env, (*env)->FindClass(env, "java/io/IOException"), message);
}

/* The program's fd, or -1 with an IOException thrown. */
static int load_device_program(JNIEnv *env, const struct bpf_insn *insns, jsize count,
                               const char *dir) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = (uintptr_t)insns;
  attr.insn_cnt = (uint32_t)count;
  attr.license = (uintptr_t) "GPL";
  /* What bpftool lists it as. */
  memcpy(attr.prog_name, "berth_devices", sizeof "berth_devices");
  int fd = (int)bpf(BPF_PROG_LOAD, &attr);
  if (fd >= 0) return fd;
  int err = errno;
  /* The log only on failure: it slows the verifier, and a full buffer fails even a good program. */
  char *log = calloc(VERIFIER_LOG_SIZE, 1);
  if (log != NULL) {
    attr.log_level = 1;
    attr.log_buf = (uintptr_t)log;
    attr.log_size = VERIFIER_LOG_SIZE;
    fd = (int)bpf(BPF_PROG_LOAD, &attr);
  }
  if (fd < 0) {
    throw_io(env, "cannot load a BPF device program for %s: %s%s%s", dir, strerror(err),
             log != NULL && log[0] ? "; verifier log:\n" : "", log != NULL ? log : "");
  }
  free(log);
  return fd;
}

/*
 * Loads the program (struct bpf_insn packed in a long each: code, dst_reg, src_reg, off and imm
 * from the lowest bits up) and attaches it to the cgroup directory after any programs already
 * there. The fds are closed again: the attachment holds the program until the cgroup is removed.
 */
JNIEXPORT void JNICALL Java_dev_berth_mom_os_cgroup_BpfDevices_attach(JNIEnv *env, jclass cls,
                                                                     jstring dir,
                                                                     jlongArray program) {
  (void)cls;
  jsize count = (*env)->GetArrayLength(env, program);
  struct bpf_insn *insns = calloc(count, sizeof *insns);
  if (insns == NULL) {
    throw_io(env, "out of memory for a BPF device program of %d instructions", (int)count);
    return;
  }
  jlong *words = (*env)->GetLongArrayElements(env, program, NULL);
  if (words == NULL) {
    free(insns);
    return; /* an OutOfMemoryError is pending */
  }
  for (jsize i = 0; i < count; i++) {
    uint64_t w = (uint64_t)words[i];
    insns[i].code = (uint8_t)w;
    insns[i].dst_reg = (w >> 8) & 0xf;
    insns[i].src_reg = (w >> 12) & 0xf;
    insns[i].off = (int16_t)(w >> 16);
    insns[i].imm = (int32_t)(w >> 32);
  }
  (*env)->ReleaseLongArrayElements(env, program, words, JNI_ABORT);
  const char *path = (*env)->GetStringUTFChars(env, dir, NULL);
  if (path == NULL) {
    free(insns);
    return;
  }
  int prog = load_device_program(env, insns, count, path);
  free(insns);
  if (prog >= 0) {
    int cgroup = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cgroup < 0) {
      throw_io(env, "cannot open the cgroup %s: %s", path, strerror(errno));
    } else {
      union bpf_attr attr;
      memset(&attr, 0, sizeof attr);
      attr.target_fd = (uint32_t)cgroup;
      attr.attach_bpf_fd = (uint32_t)prog;
      attr.attach_type = BPF_CGROUP_DEVICE;
      attr.attach_flags = BPF_F_ALLOW_MULTI;
      if (bpf(BPF_PROG_ATTACH, &attr) < 0) {
        throw_io(env, "cannot attach a BPF device program to %s: %s", path, strerror(errno));
      }
      close(cgroup);
    }
    close(prog);
  }
  (*env)->ReleaseStringUTFChars(env, dir, path);
}

/*
 * Pty.java: the master of a pseudo-terminal, on whose slave an interactive job's shell runs. The
 * master is non-blocking and every wait is a poll() on it and on an eventfd: close(2) of the
 * master wakes no thread blocked in read(2) on Linux, and that read would keep the terminal open,
 * so the session would never be hung up. Writing the eventfd wakes every waiter for good.
 */
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <termios.h>

/* The bytes one read copies at most: a terminal gives a few kilobytes at a time anyway. */
#define PTY_CHUNK 16384

/* Opens a master and the eventfd into fds[0] and fds[1]; returns the slave's path. */
JNIEXPORT jstring JNICALL Java_dev_berth_mom_os_Pty_openMaster(JNIEnv *env, jclass cls,
                                                               jintArray fds) {
  (void)cls;
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) {
    throw_io(env, "cannot open a pseudo-terminal: %s", strerror(errno));
    return NULL;
  }
  char slave[64];
  int wakeup = -1;
  if (unlockpt(master) < 0 || ptsname_r(master, slave, sizeof slave) != 0 ||
      fcntl(master, F_SETFL, O_NONBLOCK) < 0 ||
      (wakeup = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
    throw_io(env, "cannot set up a pseudo-terminal: %s", strerror(errno));
    close(master);
    return NULL;
  }
  jint values[2] = {master, wakeup};
  (*env)->SetIntArrayRegion(env, fds, 0, 2, values);
  return (*env)->NewStringUTF(env, slave);
}

/* Waits until the master is ready for `events`: 1, or 0 once woken, or -1 with an exception. */
static int pty_wait(JNIEnv *env, int master, int wakeup, short events) {
  for (;;) {
    struct pollfd p[2] = {{.fd = master, .events = events}, {.fd = wakeup, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw_io(env, "cannot wait for the pseudo-terminal: %s", strerror(errno));
      return -1;
    }
    if (p[1].revents) return 0;
    if (p[0].revents) return 1; /* POLLHUP too: the read or write then says EIO */
  }
}

/* Bytes read, or -1 at the end: the session closed the slave, or close() woke this thread. */
JNIEXPORT jint JNICALL Java_dev_berth_mom_os_Pty_read(JNIEnv *env, jclass cls, jint master,
                                                      jint wakeup, jbyteArray buf, jint off,
                                                      jint len) {
  (void)cls;
  char chunk[PTY_CHUNK];
  size_t want = len < PTY_CHUNK ? (size_t)len : PTY_CHUNK;
  for (;;) {
    int ready = pty_wait(env, master, wakeup, POLLIN);
    if (ready <= 0) return -1;
    ssize_t n = read(master, chunk, want);
    if (n > 0) {
      (*env)->SetByteArrayRegion(env, buf, off, (jsize)n, (const jbyte *)chunk);
      return (jint)n;
    }
    /* Linux says EIO once no slave is open: the session hung up, the end of its output */
    if (n == 0 || errno == EIO) return -1;
    if (errno != EAGAIN && errno != EINTR) {
      throw_io(env, "cannot read the pseudo-terminal: %s", strerror(errno));
      return -1;
    }
  }
}

/* Writes all of buf[off, off + len); an IOException if the session is gone or close() woke it. */
JNIEXPORT void JNICALL Java_dev_berth_mom_os_Pty_write(JNIEnv *env, jclass cls, jint master,
                                                       jint wakeup, jbyteArray buf, jint off,
                                                       jint len) {
  (void)cls;
  char chunk[PTY_CHUNK];
  while (len > 0) {
    jint size = len < PTY_CHUNK ? len : PTY_CHUNK;
    (*env)->GetByteArrayRegion(env, buf, off, size, (jbyte *)chunk);
    for (jint done = 0; done < size;) {
      int ready = pty_wait(env, master, wakeup, POLLOUT);
      if (ready < 0) return;
      if (ready == 0) {
        throw_io(env, "the pseudo-terminal is closed");
        return;
      }
      ssize_t n = write(master, chunk + done, (size_t)(size - done));
      if (n >= 0) {
        done += (jint)n;
      } else if (errno == EIO) {
        throw_io(env, "the session on the pseudo-terminal has closed it");
        return;
      } else if (errno != EAGAIN && errno != EINTR) {
        throw_io(env, "cannot write to the pseudo-terminal: %s", strerror(errno));
        return;
      }
    }
    off += size;
    len -= size;
  }
}

/* TIOCSWINSZ: the kernel sends SIGWINCH to the terminal's foreground process group. */
JNIEXPORT void JNICALL Java_dev_berth_mom_os_Pty_resize(JNIEnv *env, jclass cls, jint master,
                                                        jint rows, jint columns) {
  (void)cls;
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)columns};
  if (ioctl(master, TIOCSWINSZ, &size) < 0) {
    throw_io(env, "cannot resize the pseudo-terminal: %s", strerror(errno));
  }
}

/* Wakes every thread waiting in read or write, and any later one at once. */
/*
 * For input that is a file or a pipe rather than someone typing: no echo, no signal keys, no
 * carriage return added to output. Lines and end of input (Ctrl-D) stay the terminal's. Set on the
 * master, the kernel applies it to the slave's settings, which are the ones that count.
 */
JNIEXPORT void JNICALL Java_dev_berth_mom_os_Pty_passInput(JNIEnv *env, jclass cls, jint master) {
  (void)cls;
  struct termios t;
  if (tcgetattr(master, &t) < 0) {
    throw_io(env, "cannot read the pseudo-terminal's settings: %s", strerror(errno));
    return;
  }
  t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL | ISIG | IEXTEN);
  t.c_oflag &= ~(tcflag_t)OPOST;
  if (tcsetattr(master, TCSANOW, &t) < 0) {
    throw_io(env, "cannot change the pseudo-terminal's settings: %s", strerror(errno));
  }
}

JNIEXPORT void JNICALL Java_dev_berth_mom_os_Pty_wake(JNIEnv *env, jclass cls, jint wakeup) {
  (void)env;
  (void)cls;
  uint64_t one = 1;
  while (write(wakeup, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

JNIEXPORT void JNICALL Java_dev_berth_mom_os_Pty_release(JNIEnv *env, jclass cls, jint master,
                                                         jint wakeup) {
  (void)env;
  (void)cls;
  close(master);
  close(wakeup);
}
