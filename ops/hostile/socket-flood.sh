#!/bin/bash
# Hostile job: connections to the mom's task manager socket and to the server's client socket,
# each announcing the largest frame and then sending a byte at a time, held open for a while.
#PBS -N hostile-socket-flood
#PBS -l walltime=00:05:00
#PBS -j oe
RANDOM=${HOSTILE_SEED:-1}
case ${HOSTILE_SIZE:-small} in
  full) connections=1024 seconds=60 ;;
  *) connections=64 seconds=$((3 + RANDOM % 3)) ;;
esac
perl -MIO::Socket::UNIX -MSocket -e '
  my ($connections, $seconds, @paths) = @ARGV;
  # A frame of 4 MiB announced as a protobuf varint length, then one byte of it.
  my $announce = pack("C*", 0x80, 0x80, 0x80, 0x02) . "x";
  my (@open, %refused);
  for my $path (@paths) {
    next unless length $path;
    for (1 .. $connections) {
      my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Peer => $path);
      if (!$s) { $refused{$path}++; next; }
      $s->blocking(0);
      syswrite($s, $announce);
      push @open, $s;
    }
  }
  my $end = time + $seconds;
  while (time < $end) {
    syswrite($_, "x") for @open;
    sleep 1;
  }
  printf "held %d connections; refused: %s\n", scalar @open,
    join(", ", map { "$_ $refused{$_}" } sort keys %refused) || "none";
' "$connections" "$seconds" "${BERTH_TM_SOCKET:-}" "${HOSTILE_SERVER:-}"
