#!/bin/sh
#SBATCH -J heldjob
true
