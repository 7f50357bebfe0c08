#!/bin/bash
#SBATCH -J golden-env
#SBATCH -n 2 -t 5
#SBATCH -o golden-%x-%j.out
env | grep '^SLURM_' | sort
echo "cwd=$(pwd)"
srun -l sh -c 'echo task=$SLURM_PROCID local=$SLURM_LOCALID node=$SLURM_NODEID of=$SLURM_NTASKS'
exit 3
