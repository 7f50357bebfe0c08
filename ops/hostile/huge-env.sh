#!/bin/bash
# Hostile job: an environment near the limits, tasks spawned with it through the task manager,
# and, from inside the job, a held array whose subjobs carry large -v values, shown in full with
# qstat -f -t and then deleted.
#PBS -N hostile-huge-env
#PBS -l walltime=00:10:00
#PBS -j oe
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) kib=225 subjobs=10000 ;;
  *) kib=64 subjobs=$((50 + RANDOM % 100)) ;;
esac
value=$(head -c $((kib * 1024 / 4)) /dev/zero | tr '\0' v)
export HOSTILE_A=$value HOSTILE_B=$value HOSTILE_C=$value HOSTILE_D=$value
for _ in 1 2 3; do
  pbsdsh -c 1 /bin/true || echo "pbsdsh with $kib KiB of environment: exit $?"
done
unset HOSTILE_A HOSTILE_B HOSTILE_C HOSTILE_D
[ -n "${HOSTILE_BIN:-}" ] || { echo "no HOSTILE_BIN: not submitting"; exit 0; }
export BERTH_SERVER=${HOSTILE_SERVER:-}
script=$TMPDIR/subjob.sh
printf '#!/bin/sh\ntrue\n' > "$script"
vars=""
for i in 1 2 3 4; do
  vars="$vars${vars:+,}HOSTILE_V$i=$(head -c $((kib * 1024 / 4 - 64)) /dev/zero | tr '\0' w)"
done
id=$("$HOSTILE_BIN/qsub" -h -t "0-$((subjobs - 1))" -v "$vars" "$script") || {
  echo "qsub of the array refused: exit $?"
  exit 0
}
bytes=$("$HOSTILE_BIN/qstat" -f -t "$id" 2>&1 | wc -c)
echo "array $id of $subjobs subjobs with $kib KiB of -v; qstat -f -t gave $bytes bytes"
"$HOSTILE_BIN/qdel" "$id"
