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

/*
 * TreeRemover.java: removing a file tree that a job's owner controls (its TMPDIR, its output
 * spool, an image it unpacked), as that owner and with a bounded number of open directories.
 *
 * The owner: for the length of one call the calling thread takes the owner's file-system identity
 * (fsuid, fsgid, and the owner's group as its only group), so whatever the owner arranged in the
 * tree, nothing is removed that the owner could not remove themselves; a change of fsuid from 0
 * also drops CAP_DAC_OVERRIDE, CAP_FOWNER and the other file capabilities for that thread. The
 * kernel keeps credentials per thread; the calls are raw system calls because glibc's setgroups()
 * sets every thread of the process (nptl(7)), and no Java code runs on the thread meanwhile, so
 * the JVM never sees the borrowed identity. A child process as the owner would do the same, but
 * the owner could stop it, trace it or kill it, and it costs a fork per tree.
 *
 * Bounded: no path is ever resolved and no link followed. Each directory is opened relative to
 * its open parent (O_NOFOLLOW), so a directory swapped for a link mid-way is removed as a link.
 * The walk holds at most TREE_LEVELS directories open (besides the tree's parent and the one it
 * is looking at); a directory found deeper is moved up to the top (renameat2 relative to both open
 * directories, never replacing anything) and removed from there in a later pass, so depth costs
 * neither descriptors nor stack, and the work stays linear in the entries. Each level reads TREE_BATCH
 * bytes of entries at a time, never a whole directory. A call stops after `budget` removals and
 * moves, and its caller decides when to go on.
 */
#include <dirent.h>
#include <sys/stat.h>

#define TREE_LEVELS 32
#define TREE_BATCH 8192
#define TREE_MESSAGE 256

enum { TREE_REMOVED = 0, TREE_MORE = 1, TREE_FAILED = 2 };

struct tree_dirent {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

struct tree_level {
  int fd;
  const char *name; /* this directory's name, in the level above's buffer */
  char *buf;
  long size, pos;
};

struct tree_walk {
  struct tree_level level[TREE_LEVELS];
  int depth;
  dev_t dev;
  uid_t as; /* the fsuid the walk runs as: directories of theirs may be opened up */
  long budget, removed, moved, errors;
  unsigned long names;
  int most_open;
  char message[TREE_MESSAGE];
};

/* Notes the pass's first error: what, where (how far below the top) and why; never a name. */
static void tree_error(struct tree_walk *w, const char *what, int err) {
  if (w->errors++ > 0) return;
  if (w->depth == 0) {
    snprintf(w->message, sizeof w->message, "cannot %s in it: %s", what, strerror(err));
  } else {
    snprintf(w->message, sizeof w->message, "cannot %s %d levels down: %s", what, w->depth,
             strerror(err));
  }
}

/* The next entry of a level other than . and .., or NULL at its end (or on an error, noted). */
static struct tree_dirent *tree_next(struct tree_walk *w, struct tree_level *l) {
  for (;;) {
    if (l->pos >= l->size) {
      long n = syscall(SYS_getdents64, l->fd, l->buf, TREE_BATCH);
      if (n <= 0) {
        if (n < 0) tree_error(w, "list a directory", errno);
        return NULL;
      }
      l->size = n;
      l->pos = 0;
    }
    struct tree_dirent *d = (struct tree_dirent *)(l->buf + l->pos);
    l->pos += d->d_reclen;
    if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0) return d;
  }
}

/*
 * A directory below `parent`, opened without following a link and only on the tree's own file
 * system (a mount point is left alone), and made rwx for the walk's identity if it owns it (a
 * directory its owner made mode 0 is still theirs to remove). -1 with errno otherwise.
 */
static int tree_open(struct tree_walk *w, int parent, const char *name) {
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat(parent, name, flags);
  if (fd < 0 && errno == EACCES && fchmodat(parent, name, 0700, AT_SYMLINK_NOFOLLOW) == 0) {
    fd = openat(parent, name, flags);
  }
  if (fd < 0) return -1;
  struct stat st;
  int err = fstat(fd, &st) < 0 ? errno : st.st_dev != w->dev ? EXDEV : 0;
  if (err != 0) {
    close(fd);
    errno = err;
    return -1;
  }
  if ((st.st_mode & 0700) != 0700 && st.st_uid == w->as) {
    (void)fchmod(fd, (st.st_mode & 07777) | 0700);
  }
  return fd;
}

/*
 * Moves directory `name` in `parent` up to the top under a name no entry has (a file system that
 * cannot refuse to replace gets a name checked first: the top is the owner's, so the worst a race
 * there can do is replace one of their own empty directories).
 */
static int tree_move_up(struct tree_walk *w, int parent, const char *name) {
  char fresh[64];
  int err = EEXIST;
  for (int tries = 0; tries < 64 && err == EEXIST; tries++) {
    snprintf(fresh, sizeof fresh, ".berth-up-%lu", w->names++);
    int moved = renameat2(parent, name, w->level[0].fd, fresh, RENAME_NOREPLACE);
    if (moved < 0 && errno == EINVAL) {
      struct stat st;
      moved = fstatat(w->level[0].fd, fresh, &st, AT_SYMLINK_NOFOLLOW) == 0
                  ? (errno = EEXIST, -1)
                  : renameat(parent, name, w->level[0].fd, fresh);
    }
    err = moved == 0 ? 0 : errno;
  }
  if (err != 0) tree_error(w, "move a directory up", err);
  return err == 0 ? 0 : -1;
}

/* Removes `name` in level `l`, which is not a directory: 1 if it went, -1 if it is one now. */
static int tree_unlink(struct tree_walk *w, struct tree_level *l, const char *name) {
  if (unlinkat(l->fd, name, 0) == 0) return 1;
  if (errno == EISDIR) return -1;
  if (errno != ENOENT) tree_error(w, "remove a file", errno);
  return 0;
}

/*
 * One pass over the tree from the top: returns how many entries the top held (0: it is empty), or
 * -1 when the budget ran out; *progress counts what went.
 */
static long tree_pass(struct tree_walk *w, long *progress) {
  struct tree_level *top = &w->level[0];
  long seen = 0;
  lseek(top->fd, 0, SEEK_SET);
  top->size = top->pos = 0;
  w->depth = 0;
  w->errors = 0;
  while (w->removed + w->moved < w->budget) {
    struct tree_level *l = &w->level[w->depth];
    struct tree_dirent *d = tree_next(w, l);
    if (d == NULL) {
      if (w->depth == 0) return seen;
      close(l->fd);
      w->depth--;
      if (unlinkat(w->level[w->depth].fd, l->name, AT_REMOVEDIR) == 0) {
        w->removed++;
        (*progress)++;
      } else if (errno != ENOENT) {
        tree_error(w, "remove a directory", errno);
      }
      continue;
    }
    if (w->depth == 0) seen++;
    int directory = d->d_type == DT_DIR;
    if (d->d_type == DT_UNKNOWN) {
      struct stat st;
      directory = fstatat(l->fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    int gone = directory ? -1 : tree_unlink(w, l, d->d_name);
    int fd = gone < 0 ? tree_open(w, l->fd, d->d_name) : -1;
    if (gone < 0 && fd < 0) {
      if (errno == ENOTDIR || errno == ELOOP) {
        gone = tree_unlink(w, l, d->d_name); /* swapped for a file or a link meanwhile */
      } else if (errno != ENOENT) {
        tree_error(w, errno == EXDEV ? "enter a mount point" : "open a directory", errno);
      }
    }
    if (gone > 0) {
      w->removed++;
      (*progress)++;
    }
    if (fd < 0) continue;
    if (w->depth + 2 > w->most_open) w->most_open = w->depth + 2;
    if (w->depth + 1 == TREE_LEVELS) {
      close(fd);
      if (tree_move_up(w, l->fd, d->d_name) == 0) {
        w->moved++;
        (*progress)++;
      }
      continue;
    }
    w->depth++;
    w->level[w->depth] = (struct tree_level){.fd = fd, .name = d->d_name,
                                             .buf = w->level[w->depth].buf};
  }
  while (w->depth > 0) close(w->level[w->depth--].fd);
  return -1;
}

/* Empties the open top directory: passes until it is empty, the budget is spent or none helps. */
static int tree_empty(struct tree_walk *w) {
  for (;;) {
    long progress = 0;
    long seen = tree_pass(w, &progress);
    if (seen < 0) return TREE_MORE;
    if (seen == 0) return TREE_REMOVED;
    if (progress == 0) {
      if (w->errors == 0) snprintf(w->message, sizeof w->message, "nothing in it could be removed");
      return TREE_FAILED;
    }
  }
}

struct tree_identity {
  uid_t fsuid;
  gid_t fsgid;
  int count;
  gid_t *groups;
};

/* The calling thread takes uid and gid for file access; its own are kept in `saved`. */
static int tree_become(uid_t uid, gid_t gid, struct tree_identity *saved) {
  saved->count = getgroups(0, NULL);
  saved->groups = saved->count < 0 ? NULL : calloc((size_t)saved->count + 1, sizeof(gid_t));
  if (saved->groups == NULL || getgroups(saved->count, saved->groups) < 0) {
    free(saved->groups);
    return -1;
  }
  if (syscall(SYS_setgroups, 1, &gid) < 0) {
    free(saved->groups);
    return -1;
  }
  /* each returns the previous value; setfs*id(-1) changes nothing and returns the current one */
  saved->fsgid = (gid_t)syscall(SYS_setfsgid, gid);
  saved->fsuid = (uid_t)syscall(SYS_setfsuid, uid);
  return 0;
}

/*
 * Gives the thread its own identity back. A thread that kept an owner's identity would let Java
 * code run as them: that cannot happen while the process holds CAP_SETUID and CAP_SETGID (setting
 * the identity needed them), and if it ever did the process must not go on.
 */
static void tree_restore(struct tree_identity *saved) {
  syscall(SYS_setfsuid, saved->fsuid);
  syscall(SYS_setfsgid, saved->fsgid);
  long groups = syscall(SYS_setgroups, saved->count, saved->groups);
  free(saved->groups);
  if (groups < 0 || (uid_t)syscall(SYS_setfsuid, -1) != saved->fsuid ||
      (gid_t)syscall(SYS_setfsgid, -1) != saved->fsgid) {
    fputs("berth-native: cannot restore a thread's identity after removing a tree\n", stderr);
    abort();
  }
}

/* Removes `name` in the directory `parent` (whose path the mom controls); see above. */
static int tree_remove(const char *parent, const char *name, int uid, int gid,
                       struct tree_walk *w) {
  int dir = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    if (errno == ENOENT) return TREE_REMOVED;
    snprintf(w->message, sizeof w->message, "cannot open its directory: %s", strerror(errno));
    return TREE_FAILED;
  }
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int top = openat(dir, name, flags);
  if (top < 0 && errno == EACCES && fchmodat(dir, name, 0700, AT_SYMLINK_NOFOLLOW) == 0) {
    top = openat(dir, name, flags); /* a non-root mom's own job made it mode 0 */
  }
  int status = TREE_FAILED;
  struct stat st;
  if (top < 0 || fstat(top, &st) < 0) {
    if (errno == ENOENT) {
      status = TREE_REMOVED;
    } else if (errno == ENOTDIR || errno == ELOOP) { /* not a directory: the name goes */
      status = unlinkat(dir, name, 0) == 0 || errno == ENOENT ? TREE_REMOVED : TREE_FAILED;
    }
    if (status == TREE_FAILED) {
      snprintf(w->message, sizeof w->message, "cannot open it: %s", strerror(errno));
    }
    if (top >= 0) close(top);
    close(dir);
    return status;
  }
  struct tree_identity saved;
  int borrowed = uid >= 0 && (uid_t)uid != geteuid();
  if (borrowed && tree_become((uid_t)uid, (gid_t)gid, &saved) < 0) {
    snprintf(w->message, sizeof w->message, "cannot take its owner's identity: %s",
             strerror(errno));
  } else {
    w->dev = st.st_dev;
    w->as = borrowed ? (uid_t)uid : geteuid();
    if ((st.st_mode & 0700) != 0700 && st.st_uid == w->as) {
      (void)fchmod(top, (st.st_mode & 07777) | 0700);
    }
    w->level[0].fd = top;
    w->most_open = 1;
    status = tree_empty(w);
    if (borrowed) tree_restore(&saved);
  }
  close(top);
  /* the emptied top goes as the caller: its directory is the mom's, not the owner's */
  if (status == TREE_REMOVED && unlinkat(dir, name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
    snprintf(w->message, sizeof w->message, "cannot remove it once empty: %s", strerror(errno));
    status = TREE_FAILED;
  }
  close(dir);
  return status;
}

/*
 * Returns "" or what went wrong; counts gets {status (0 removed, 1 more to do, 2 failed), entries
 * removed, directories moved up, most directories open at once (the parent's included)}.
 */
JNIEXPORT jstring JNICALL Java_dev_berth_mom_os_TreeRemover_removeAs(
    JNIEnv *env, jclass cls, jstring parent, jstring name, jint uid, jint gid, jlong budget,
    jlongArray counts) {
  (void)cls;
  struct tree_walk *w = calloc(1, sizeof *w);
  char *buffers = malloc((size_t)TREE_LEVELS * TREE_BATCH);
  const char *p = (*env)->GetStringUTFChars(env, parent, NULL);
  const char *n = p == NULL ? NULL : (*env)->GetStringUTFChars(env, name, NULL);
  jstring result = NULL;
  if (w == NULL || buffers == NULL) {
    throw_io(env, "out of memory for removing a tree");
  } else if (n != NULL) {
    for (int i = 0; i < TREE_LEVELS; i++) w->level[i].buf = buffers + (size_t)i * TREE_BATCH;
    w->budget = budget;
    int status = tree_remove(p, n, uid, gid, w);
    jlong values[4] = {status, w->removed, w->moved, w->most_open + 1};
    (*env)->SetLongArrayRegion(env, counts, 0, 4, values);
    result = (*env)->NewStringUTF(env, status == TREE_FAILED ? w->message : "");
  }
  if (n != NULL) (*env)->ReleaseStringUTFChars(env, name, n);
  if (p != NULL) (*env)->ReleaseStringUTFChars(env, parent, p);
  free(buffers);
  free(w);
  return result;
}
