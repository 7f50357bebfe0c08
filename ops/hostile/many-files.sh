#!/bin/bash
# Hostile job: many empty files in one directory and many small directories, left in $TMPDIR.
#PBS -N hostile-many-files
#PBS -l walltime=00:20:00
#PBS -j oe
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) files=1000000 dirs=20000 ;;
  *) files=$((20000 + RANDOM % 10000)) dirs=$((500 + RANDOM % 500)) ;;
esac
cd "$TMPDIR" || exit 1
perl -e '
  my ($files, $dirs) = @ARGV;
  mkdir "wide" or die "mkdir wide: $!\n";
  for my $i (1 .. $files) {
    open(my $f, ">", "wide/f$i") or die "file $i: $!\n";
    close $f;
  }
  for my $i (1 .. $dirs) {
    mkdir "d$i" or die "mkdir d$i: $!\n";
    open(my $f, ">", "d$i/f") or die "file in d$i: $!\n";
    close $f;
  }' "$files" "$dirs" || exit 1
echo "left $files files and $dirs directories in $TMPDIR"
