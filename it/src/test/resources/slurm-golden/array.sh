#!/bin/bash
#SBATCH -J golden-array
#SBATCH --array=1-5:2%2 -t 5
#SBATCH -o golden-%x-%A_%a.out
env | grep '^SLURM_' | sort
echo "cwd=$(pwd)"
exit $((SLURM_ARRAY_TASK_ID == 5 ? 4 : 0))
