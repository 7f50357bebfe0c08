/*
 * berth-container: the container entry of berth-starter, run in the job process after it has
 * dropped root, so that every file the image, the cache and the mounts touch is touched with the
 * job owner's own permissions and the kernel's squashfs code never reads an image a user made.
 *
 * 1. The root file system: a named container's directory, used as it is (made from the image
 *    when missing); else the image unpacked once per owner and node into the owner's cache,
 *    CACHE/sha256/HEX, found again through CACHE/ids/<device-inode-size-ctime> of the image, so a
 *    second job on an unchanged image reads no byte of it. Unpacking (unsquashfs) and hashing
 *    (sha256sum) read the image through the descriptor opened here, so what is checked is what is
 *    unpacked; concurrent starters serialise on a lock file per image, and a killed unpack leaves
 *    only a .partial directory that the next one replaces.
 * 2. A user namespace mapping the owner to itself (or to root with remap_root) and a mount
 *    namespace of its own: every mount below is private to the job process and its children, and
 *    ends with them, so nothing is left mounted on the node.
 * 3. The root, bound onto itself (recursively: the mounts inherited into a new user namespace are
 *    locked, see the notes), or an overlay on it for a writable container; the host's /proc and
 *    /sys (network and process ids are the host's, as in enroot), a fresh /dev with the usual
 *    nodes, the job's GPUs, its own devpts and /dev/shm, a fresh /tmp, the host's /etc/hosts and
 *    /etc/resolv.conf, the mom's paths the job needs (its TMPDIR, the task manager), and the
 *    owner's mounts. pivot_root then leaves the host's tree behind, and the root is made
 *    read-only unless the container is writable. Capabilities in the new namespace last until
 *    exec, which drops them unless the owner is root inside.
 */
#define _GNU_SOURCE
#include "berth-container.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PATH_SIZE 4096

static int failed(char *error, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(error, size, fmt, ap);
  va_end(ap);
  return -1;
}

static int add(const char **list, int *n, const char *value) {
  if (*n == CONTAINER_MAX_ITEMS) return -1;
  list[(*n)++] = value;
  return 0;
}

int container_option(struct container *c, const char *flag, const char *value, char *error,
                     size_t size) {
  int full = 0;
  if (!strcmp(flag, "--container-image")) c->image = value;
  else if (!strcmp(flag, "--container-cache")) c->cache = value;
  else if (!strcmp(flag, "--container-named")) c->named = value;
  else if (!strcmp(flag, "--container-scratch")) c->scratch = value;
  else if (!strcmp(flag, "--container-workdir")) c->workdir = value;
  else if (!strcmp(flag, "--container-nvidia")) c->nvidia = value;
  else if (!strcmp(flag, "--container-mount")) full = add(c->mounts, &c->nmounts, value);
  else if (!strcmp(flag, "--container-bind")) full = add(c->binds, &c->nbinds, value);
  else if (!strcmp(flag, "--container-device")) full = add(c->devices, &c->ndevices, value);
  else if (!strcmp(flag, "--container-env")) full = add(c->host_env, &c->nhost_env, value);
  else return 0;
  if (full) return failed(error, size, "too many %s options", flag);
  if (!strcmp(flag, "--container-env")) {
    if (!value[0] || strchr(value, '='))
      return failed(error, size, "--container-env needs a variable's name, not %s", value);
    return 1;
  }
  if (value[0] != '/' && strcmp(flag, "--container-mount") && strcmp(flag, "--container-nvidia"))
    return failed(error, size, "%s needs an absolute path, not %s", flag, value);
  return 1;
}

int container_wanted(const struct container *c) { return c->image || c->named; }

/* ---- helpers that run programs as the owner ---- */

static const char *program(const char *name) {
  static char found[PATH_SIZE];
  const char *dirs[] = {"/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    snprintf(found, sizeof found, "%s/%s", dirs[i], name);
    if (access(found, X_OK) == 0) return found;
  }
  return NULL;
}

/*
 * Runs argv (argv[0] a full path) with a minimal environment, its output in out (the last
 * bytes that fit); returns its exit status, or -1 when it could not run or was killed.
 */
static int run(char *const argv[], char *out, size_t size) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) < 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(pipe_fds[1], 1) < 0 || dup2(pipe_fds[1], 2) < 0)
      _exit(127);
    char *env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};
    execve(argv[0], argv, env);
    _exit(127);
  }
  close(pipe_fds[1]);
  size_t have = 0;
  char chunk[4096];
  ssize_t got;
  while ((got = read(pipe_fds[0], chunk, sizeof chunk)) != 0) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (ssize_t i = 0; i < got; i++) {
      if (have == size - 1) { /* keep the end, where the reason is */
        memmove(out, out + size / 2, have - size / 2);
        have -= size / 2;
      }
      out[have++] = chunk[i];
    }
  }
  out[have] = 0;
  close(pipe_fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void last_line(char *text) {
  size_t n = strlen(text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = 0;
  char *nl = strrchr(text, '\n');
  if (nl) memmove(text, nl + 1, strlen(nl + 1) + 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

static void remove_tree(const char *path) { nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS); }

static int make_dirs(const char *path, mode_t mode) {
  char copy[PATH_SIZE];
  snprintf(copy, sizeof copy, "%s", path);
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(copy, mode) < 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(copy, mode) < 0 && errno != EEXIST ? -1 : 0;
}

/* ---- the root file system ---- */

/* The image, opened as the owner and checked to be a squashfs file system. */
static int open_image(const char *image, struct stat *st, char *error, size_t size) {
  int fd = open(image, O_RDONLY | O_NOCTTY); /* inherited by unsquashfs and sha256sum */
  if (fd < 0) return failed(error, size, "cannot read the image %s: %s", image, strerror(errno));
  unsigned char sb[96];
  if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
    close(fd);
    return failed(error, size, "the image %s is not a regular file", image);
  }
  uint64_t used = 0;
  if (pread(fd, sb, sizeof sb, 0) != (ssize_t)sizeof sb || memcmp(sb, "hsqs", 4) != 0 ||
      sb[28] != 4 || sb[29] != 0) {
    close(fd);
    return failed(error, size, "the image %s is not a squashfs image (version 4)", image);
  }
  for (int i = 7; i >= 0; i--) used = used << 8 | sb[40 + i];
  if (used > (uint64_t)st->st_size) {
    close(fd);
    return failed(error, size, "the image %s is cut short (%llu of %llu bytes)", image,
                  (unsigned long long)st->st_size, (unsigned long long)used);
  }
  return fd;
}

static int unpack(int fd, const char *into, const char *image, char *error, size_t size) {
  const char *unsquashfs = program("unsquashfs");
  if (!unsquashfs) return failed(error, size, "unsquashfs is not installed on this node");
  char source[64], out[1024];
  snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
  remove_tree(into); /* a killed unpack's leftovers */
  char *argv[] = {(char *)unsquashfs, "-no-xattrs", "-n", "-d", (char *)into, source, NULL};
  if (run(argv, out, sizeof out) != 0) {
    remove_tree(into);
    last_line(out);
    return failed(error, size, "cannot unpack the image %s: %s", image, out);
  }
  return 0;
}

/* The image's SHA-256 as 64 hex digits, read through fd. */
static int digest(int fd, char hex[65], const char *image, char *error, size_t size) {
  const char *sha256sum = program("sha256sum");
  if (!sha256sum) return failed(error, size, "sha256sum is not installed on this node");
  char source[64], out[512];
  snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
  char *argv[] = {(char *)sha256sum, source, NULL};
  if (run(argv, out, sizeof out) != 0 || strspn(out, "0123456789abcdef") < 64)
    return failed(error, size, "cannot read the image %s to its end", image);
  memcpy(hex, out, 64);
  hex[64] = 0;
  return 0;
}

/*
 * An open file description lock on the whole file, waiting for it: it belongs to the descriptor,
 * so forked and exec'd processes of the job keep holding it, and it conflicts with the record
 * lock the mom (Java's FileChannel.tryLock) takes to evict, as flock(2) would not.
 */
static int ofd_lock(int fd, short type) {
  struct flock l = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  while (fcntl(fd, F_OFD_SETLKW, &l) < 0)
    if (errno != EINTR) return -1;
  return 0;
}

static int unpacked(const char *dir) {
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Takes lock (a file beside the entry) shared and keeps it while dir is in use; unpacks into dir
 * unless it is there. The entry's lock is only ever taken shared by its users, as every process of
 * a job holds it until it ends: another process of the owner's on the node (a task of the same job,
 * another job of the same image) waiting to hold it alone would wait for all of them to end. Two
 * that find it missing at once take turns on a second lock, held only while one unpacks.
 */
static int unpack_once(int fd, const char *dir, const char *image, int *lock, char *error,
                       size_t size) {
  char path[PATH_SIZE], partial[PATH_SIZE];
  snprintf(path, sizeof path, "%s.lock", dir);
  /* left open in the job's processes: the shared lock lasts as long as any of them, and the mom
     evicts only entries it can lock alone */
  *lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
  if (*lock < 0 || ofd_lock(*lock, F_RDLCK) < 0)
    return failed(error, size, "cannot lock %s: %s", path, strerror(errno));
  if (unpacked(dir)) return 0;
  snprintf(path, sizeof path, "%s.unpacking", dir);
  int turn = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (turn < 0 || ofd_lock(turn, F_WRLCK) < 0) {
    if (turn >= 0) close(turn);
    return failed(error, size, "cannot lock %s: %s", path, strerror(errno));
  }
  int result = 0;
  if (!unpacked(dir)) {
    snprintf(partial, sizeof partial, "%s.partial", dir);
    if (unpack(fd, partial, image, error, size) < 0) {
      result = -1;
    } else if (rename(partial, dir) < 0) {
      result = failed(error, size, "cannot put %s in place: %s", dir, strerror(errno));
    }
  }
  close(turn); /* the next one in turn finds it there */
  return result;
}

/* The root directory to enter: named, cached, or unpacked now. */
static int find_root(const struct container *c, char *root, int *lock, char *error,
                     size_t size) {
  struct stat st;
  if (c->named && stat(c->named, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(root, PATH_SIZE, "%s", c->named);
    return 0;
  }
  if (!c->image)
    return failed(error, size, "there is no container %s, and no image to make it from",
                  c->named);
  int fd = open_image(c->image, &st, error, size);
  if (fd < 0) return -1;
  int result = -1;
  char path[PATH_SIZE], dir[PATH_SIZE];
  if (c->named) {
    snprintf(dir, sizeof dir, "%s", c->named);
    if (make_dirs(dirname(dir), 0700) < 0) {
      failed(error, size, "cannot make %s: %s", dir, strerror(errno));
    } else if (unpack_once(fd, c->named, c->image, lock, error, size) == 0) {
      snprintf(root, PATH_SIZE, "%s", c->named);
      result = 0;
    }
    close(fd);
    return result;
  }
  if (!c->cache) {
    close(fd);
    return failed(error, size, "this node keeps no container cache");
  }
  char id[160], hex[65] = {0};
  snprintf(id, sizeof id, "%llx-%llx-%lld-%lld.%09ld", (unsigned long long)st.st_dev,
           (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_ctim.tv_sec,
           st.st_ctim.tv_nsec);
  snprintf(path, sizeof path, "%s/ids/%s", c->cache, id);
  /* an image seen before names its digest: an unchanged file has unchanged content */
  if (readlink(path, hex, sizeof hex - 1) != 64 || strspn(hex, "0123456789abcdef") != 64) {
    snprintf(dir, sizeof dir, "%s/ids", c->cache);
    char sha[PATH_SIZE];
    snprintf(sha, sizeof sha, "%s/sha256", c->cache);
    if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || (mkdir(sha, 0700) < 0 && errno != EEXIST)) {
      close(fd);
      return failed(error, size, "cannot use the cache %s: %s", c->cache, strerror(errno));
    }
    if (digest(fd, hex, c->image, error, size) < 0) {
      close(fd);
      return -1;
    }
    unlink(path);
    if (symlink(hex, path) < 0 && errno != EEXIST) {
      close(fd);
      return failed(error, size, "cannot write %s: %s", path, strerror(errno));
    }
  }
  snprintf(dir, sizeof dir, "%s/sha256/%s", c->cache, hex);
  if (unpack_once(fd, dir, c->image, lock, error, size) == 0) {
    snprintf(root, PATH_SIZE, "%s", dir);
    utimensat(AT_FDCWD, dir, NULL, 0); /* its last use, for the mom's eviction */
    result = 0;
  }
  close(fd);
  return result;
}

/* ---- the namespaces and mounts ---- */

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int namespaces(int remap_root, char *error, size_t size) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  /* Dropping root made the process undumpable, which leaves /proc/self/uid_map root's to
     write; the process holds nothing of root's any more, so the owner may have it. */
  if (prctl(PR_SET_DUMPABLE, 1) < 0)
    return failed(error, size, "cannot make the process the owner's: %s", strerror(errno));
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
    return failed(error, size,
                  "cannot make the container's user and mount namespaces: %s (are user "
                  "namespaces allowed? sysctl user.max_user_namespaces)",
                  strerror(errno));
  char map[64];
  if (write_file("/proc/self/setgroups", "deny") < 0)
    return failed(error, size, "cannot write setgroups: %s", strerror(errno));
  snprintf(map, sizeof map, "%u %u 1\n", remap_root ? 0u : (unsigned)uid, (unsigned)uid);
  if (write_file("/proc/self/uid_map", map) < 0)
    return failed(error, size, "cannot map the user: %s", strerror(errno));
  snprintf(map, sizeof map, "%u %u 1\n", remap_root ? 0u : (unsigned)gid, (unsigned)gid);
  if (write_file("/proc/self/gid_map", map) < 0)
    return failed(error, size, "cannot map the group: %s", strerror(errno));
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    return failed(error, size, "cannot make the mounts private: %s", strerror(errno));
  return 0;
}

/* The flags a bind remount must keep (the kernel refuses to drop locked ones). */
static unsigned long kept_flags(const char *path) {
  struct statvfs s;
  unsigned long flags = 0;
  if (statvfs(path, &s) < 0) return 0;
  if (s.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

static int read_only(const char *path) {
  return mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | kept_flags(path), NULL);
}

/* A mount point for source at root+target: a directory, or an empty file for a file. */
static int mount_point(const char *root, const char *target, int directory, char *at) {
  snprintf(at, PATH_SIZE, "%s%s", root, target);
  if (directory) return make_dirs(at, 0755);
  char parent[PATH_SIZE];
  snprintf(parent, sizeof parent, "%s", at);
  if (make_dirs(dirname(parent), 0755) < 0) return -1;
  int fd = open(at, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && errno != EISDIR) return -1;
  if (fd >= 0) close(fd);
  return 0;
}

static int bind(const char *root, const char *source, const char *target, int ro, char *error,
                size_t size) {
  struct stat st;
  char at[PATH_SIZE];
  if (stat(source, &st) < 0)
    return failed(error, size, "cannot mount %s: %s", source, strerror(errno));
  if (mount_point(root, target, S_ISDIR(st.st_mode), at) < 0)
    return failed(error, size, "cannot make the mount point %s in the container: %s", target,
                  strerror(errno));
  if (mount(source, at, NULL, MS_BIND | MS_REC, NULL) < 0)
    return failed(error, size, "cannot mount %s at %s: %s", source, target, strerror(errno));
  if (ro && read_only(at) < 0)
    return failed(error, size, "cannot make %s read-only: %s", target, strerror(errno));
  return 0;
}

static int fresh(const char *root, const char *target, const char *type, const char *options,
                 char *error, size_t size) {
  char at[PATH_SIZE];
  if (mount_point(root, target, 1, at) < 0 ||
      mount(type, at, type, MS_NOSUID | MS_NODEV, options) < 0)
    return failed(error, size, "cannot mount %s at %s: %s", type, target, strerror(errno));
  return 0;
}

static int dev(const struct container *c, const char *root, char *error, size_t size) {
  if (fresh(root, "/dev", "tmpfs", "mode=0755,size=1m", error, size) < 0) return -1;
  const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  char source[PATH_SIZE], target[PATH_SIZE];
  for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
    snprintf(source, sizeof source, "/dev/%s", nodes[i]);
    snprintf(target, sizeof target, "/dev/%s", nodes[i]);
    if (bind(root, source, target, 0, error, size) < 0) return -1;
  }
  for (int i = 0; i < c->ndevices; i++) {
    snprintf(source, sizeof source, "%s", c->devices[i]);
    snprintf(target, sizeof target, "/dev/%s", basename(source));
    if (bind(root, c->devices[i], target, 0, error, size) < 0) return -1;
  }
  if (fresh(root, "/dev/pts", "devpts", "newinstance,ptmxmode=0666,mode=0620", error, size) < 0 ||
      fresh(root, "/dev/shm", "tmpfs", "mode=1777", error, size) < 0)
    return -1;
  /* the job script reaches its shell as /dev/fd/N */
  const char *links[][2] = {{"ptmx", "pts/ptmx"},           {"fd", "/proc/self/fd"},
                            {"stdin", "/proc/self/fd/0"},  {"stdout", "/proc/self/fd/1"},
                            {"stderr", "/proc/self/fd/2"}};
  for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
    char link[PATH_SIZE + 16];
    snprintf(link, sizeof link, "%s/dev/%s", root, links[i][0]);
    if (symlink(links[i][1], link) < 0)
      return failed(error, size, "cannot make /dev/%s: %s", links[i][0], strerror(errno));
  }
  return 0;
}

/* The root to pivot into: the directory bound onto itself, or an overlay for changes. */
static int root_mount(const struct container *c, const char *dir, char *root, char *error,
                      size_t size) {
  /* the driver's files go into a layer of the job's own, not into the cached image */
  if ((!c->writable && !c->nvidia) || c->named) {
    snprintf(root, PATH_SIZE, "%s", dir);
    if (mount(dir, dir, NULL, MS_BIND | MS_REC, NULL) < 0)
      return failed(error, size, "cannot bind the root %s: %s", dir, strerror(errno));
    return 0;
  }
  if (!c->scratch) return failed(error, size, "a writable container needs a scratch directory");
  char upper[PATH_SIZE], work[PATH_SIZE], options[3 * PATH_SIZE + 64];
  snprintf(root, PATH_SIZE, "%s/.container-%d/root", c->scratch, (int)getpid());
  snprintf(upper, sizeof upper, "%s/.container-%d/upper", c->scratch, (int)getpid());
  snprintf(work, sizeof work, "%s/.container-%d/work", c->scratch, (int)getpid());
  if (make_dirs(root, 0700) < 0 || make_dirs(upper, 0755) < 0 || make_dirs(work, 0700) < 0)
    return failed(error, size, "cannot make %s: %s", root, strerror(errno));
  snprintf(options, sizeof options, "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", dir, upper,
           work);
  if (mount("overlay", root, "overlay", 0, options) < 0)
    return failed(error, size, "cannot make the writable root: %s", strerror(errno));
  return 0;
}

static int mounts(const struct container *c, const char *root, char *error, size_t size) {
  if (bind(root, "/proc", "/proc", 0, error, size) < 0 ||
      bind(root, "/sys", "/sys", 0, error, size) < 0 || dev(c, root, error, size) < 0 ||
      fresh(root, "/tmp", "tmpfs", "mode=1777", error, size) < 0)
    return -1;
  const char *host_files[] = {"/etc/hosts", "/etc/resolv.conf"};
  for (size_t i = 0; i < sizeof host_files / sizeof *host_files; i++)
    if (access(host_files[i], R_OK) == 0 &&
        bind(root, host_files[i], host_files[i], 1, error, size) < 0)
      return -1;
  for (int i = 0; i < c->nbinds; i++)
    if (bind(root, c->binds[i], c->binds[i], 0, error, size) < 0) return -1;
  for (int i = 0; i < c->nmounts; i++) {
    char spec[PATH_SIZE];
    snprintf(spec, sizeof spec, "%s", c->mounts[i]);
    char *target = strchr(spec, ':');
    if (!target) return failed(error, size, "the mount %s has no target", spec);
    *target++ = 0;
    char *mode = strchr(target, ':');
    if (mode) *mode++ = 0;
    /* a bind needs only the path: the owner must be able to read what they ask for */
    struct stat st;
    if (stat(spec, &st) == 0 && access(spec, S_ISDIR(st.st_mode) ? R_OK | X_OK : R_OK) < 0)
      return failed(error, size, "cannot mount %s: %s", spec, strerror(errno));
    if (bind(root, spec, target, mode && !strcmp(mode, "ro"), error, size) < 0) return -1;
  }
  return 0;
}

/*
 * The NVIDIA driver's libraries and programs in the container, as enroot's NVIDIA hook puts them
 * there: libnvidia-container's CLI, as the owner (--user) in the container's namespaces, binds
 * those of the job's GPUs' driver into the root and runs ldconfig there. The devices cgroup, not
 * this, keeps the job from other GPUs (--no-cgroups, as enroot leaves it to the resource manager).
 */
static int nvidia(const struct container *c, const char *root, char *error, size_t size) {
  const char *cli = program("nvidia-container-cli");
  if (!cli)
    return failed(error, size,
                  "this node has GPUs but no nvidia-container-cli (libnvidia-container), which "
                  "makes the driver's libraries available in containers");
  const char *ldconfig = program("ldconfig.real");
  if (!ldconfig) ldconfig = program("ldconfig");
  char ldconfig_option[PATH_SIZE + 16], devices[4096], out[2048];
  snprintf(ldconfig_option, sizeof ldconfig_option, "--ldconfig=@%s", ldconfig ? ldconfig : "/sbin/ldconfig");
  snprintf(devices, sizeof devices, "--device=%s", c->nvidia);
  char *argv[] = {(char *)cli, "--user", "configure", "--no-cgroups", ldconfig_option, devices,
                  "--compute", "--utility", (char *)root, NULL};
  if (run(argv, out, sizeof out) != 0) {
    last_line(out);
    return failed(error, size, "nvidia-container-cli could not set up the GPUs: %s", out);
  }
  return 0;
}

static int pivot(const char *root, int writable, char *error, size_t size) {
  if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
      chdir("/") < 0)
    return failed(error, size, "cannot enter the container's root: %s", strerror(errno));
  if (!writable && read_only("/") < 0)
    return failed(error, size, "cannot make the container's root read-only: %s", strerror(errno));
  return 0;
}

/*
 * The image's environment (berth image import writes it to /etc/berth/environment, one
 * NAME=VALUE a line) over the job's, as pyxis gives the image's values precedence; the job's
 * own PBS_ and BERTH_ variables, TMPDIR, the owner's HOME, USER and LOGNAME, and the names the
 * job keeps from the host (pyxis's --container-env) stay. A PATH of the image keeps the
 * directories of the job's PATH that were bound in (Berth's tools).
 */
static void image_environment(const struct container *c) {
  FILE *f = fopen("/etc/berth/environment", "re");
  if (!f) return;
  const char *kept[] = {"TMPDIR", "HOME", "USER", "LOGNAME"};
  char line[8192];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *eq = strchr(line, '=');
    if (!eq || eq == line) continue;
    *eq = 0;
    int keep = !strncmp(line, "PBS_", 4) || !strncmp(line, "BERTH_", 6);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) keep |= !strcmp(line, kept[i]);
    for (int i = 0; i < c->nhost_env; i++) keep |= !strcmp(line, c->host_env[i]);
    if (keep) continue;
    if (!strcmp(line, "PATH")) {
      char path[8192];
      snprintf(path, sizeof path, "%s", eq + 1);
      const char *job = getenv("PATH");
      for (int i = 0; job && i < c->nbinds; i++) {
        size_t n = strlen(c->binds[i]);
        const char *at = strstr(job, c->binds[i]);
        if (at && (at == job || at[-1] == ':') && (at[n] == 0 || at[n] == ':'))
          snprintf(path + strlen(path), sizeof path - strlen(path), ":%s", c->binds[i]);
      }
      setenv("PATH", path, 1);
    } else {
      setenv(line, eq + 1, 1);
    }
  }
  fclose(f);
}

/* The directory to start in: asked for, else the job's own, else the image's, else /. */
static int workdir(const struct container *c, const char *job_cwd, char *error, size_t size) {
  if (c->workdir) {
    if (chdir(c->workdir) < 0)
      return failed(error, size, "the container has no working directory %s: %s", c->workdir,
                    strerror(errno));
    return 0;
  }
  if (job_cwd && chdir(job_cwd) == 0) return 0;
  char image[PATH_SIZE] = {0};
  FILE *f = fopen("/etc/berth/workdir", "re");
  if (f) {
    if (fgets(image, sizeof image, f)) image[strcspn(image, "\n")] = 0;
    fclose(f);
  }
  if (image[0] == '/' && chdir(image) == 0) return 0;
  if (chdir("/") < 0) return failed(error, size, "cannot change to /: %s", strerror(errno));
  return 0;
}

int container_enter(const struct container *c, const char *job_cwd, char *error, size_t size) {
  char dir[PATH_SIZE], root[PATH_SIZE];
  int lock = -1;
  int result = find_root(c, dir, &lock, error, size);
  if (result == 0) result = namespaces(c->remap_root, error, size);
  if (result == 0) result = root_mount(c, dir, root, error, size);
  if (result == 0) result = mounts(c, root, error, size);
  if (result == 0 && c->nvidia) result = nvidia(c, root, error, size);
  if (result == 0) result = pivot(root, c->writable, error, size);
  if (result < 0) {
    if (lock >= 0) close(lock);
    return -1;
  }
  image_environment(c);
  return workdir(c, job_cwd, error, size);
}
