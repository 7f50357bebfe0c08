#!/bin/bash
# Hostile job: connections to the mom's task manager socket and to the server's client socket,
# each announcing a 4 MiB frame and then sending a byte at a time, held open for a while. A daemon
# may cut them (a frame over its limit is refused at once): the writes that find them cut are
# counted, not fatal.
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
  $SIG{PIPE} = "IGNORE";
  my (@open, %refused);
  my $cut = 0;
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
    my @kept;
    for my $s (@open) {
      my $n = syswrite($s, "x");
      if (defined $n || $!{EAGAIN}) { push @kept, $s; } else { $cut++; close $s; }
    }
    @open = @kept;
    sleep 1;
  }
  printf "held %d connections to the end, %d cut; refused: %s\n", scalar @open, $cut,
    join(", ", map { "$_ $refused{$_}" } sort keys %refused) || "none";
' "$connections" "$seconds" "${BERTH_TM_SOCKET:-}" "${HOSTILE_SERVER:-}"
