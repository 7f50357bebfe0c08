#!/bin/bash
# Hostile job: a directory chain deeper than any recursive removal survives, left in $TMPDIR for
# the mom to remove, with a directory half-way down that the owner made unwritable.
#PBS -N hostile-deep-tree
#PBS -l walltime=00:10:00
#PBS -j oe
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) depth=$((30000 + RANDOM % 5000)) ;;
  *) depth=$((1500 + RANDOM % 1000)) ;;
esac
cd "$TMPDIR" || exit 1
perl -e '
  my ($depth) = @ARGV;
  for my $level (1 .. $depth) {
    mkdir "d" or die "mkdir at level $level: $!\n";
    chdir "d" or die "chdir at level $level: $!\n";
    if ($level == int($depth / 2)) {
      mkdir "locked" or die "mkdir locked: $!\n";
      open(my $f, ">", "locked/file") or die "locked/file: $!\n";
      close $f;
      chmod 0500, "locked" or die "chmod locked: $!\n";
    }
  }' "$depth" || exit 1
echo "left a tree of $depth levels in $TMPDIR"
