#!/bin/bash
# Hostile job: standard output and error of many bytes; standard error as one line without a
# newline.
#PBS -N hostile-big-output
#PBS -l walltime=00:20:00
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) mib=5120 ;;
  *) mib=$((48 + RANDOM % 32)) ;;
esac
yes 'hostile output line' | head -c $((mib * 1024 * 1024))
head -c $((mib * 1024 * 1024 / 4)) /dev/zero | tr '\0' e >&2
