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
