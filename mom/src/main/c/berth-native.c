/*
 * berth-native: the one thing the mom needs from the kernel that Java's API does not give: the
 * process id behind a Unix socket connection (SO_PEERCRED). Java's own SO_PEERCRED option gives
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
