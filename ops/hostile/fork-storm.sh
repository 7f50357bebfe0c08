#!/bin/bash
# Hostile job: loops that fork as fast as they can inside the job's cgroup, and processes that
# leave the job's session and process group to outlive it. The mom must end every one of them
# when the job ends.
#PBS -N hostile-fork-storm
#PBS -l walltime=00:05:00
#PBS -j oe
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) loops=512 seconds=60 ;;
  *) loops=$((16 + RANDOM % 16)) seconds=5 ;;
esac
for _ in 1 2 3; do
  setsid -f sleep 100000 </dev/null >/dev/null 2>&1
  (trap '' HUP TERM; exec sleep 100000) </dev/null >/dev/null 2>&1 &
done
for _ in $(seq "$loops"); do
  (while :; do /bin/true; done) &
done
sleep "$seconds"
echo "forked in $loops loops for $seconds s"
