#!/bin/sh
# A host that is server and compute host at once, set up under systemd as docs/install.md says:
# the packages, the certificate authority, the units started with systemctl; then a job of an
# ordinary user with cgroup_enable, and the units stopped. Run by PackageIT in a guest booted with
# systemd (ops/vm run --systemd), as root. Prints what the test checks, as name=value lines.
#   $1: the folder with the .deb files   $2: a folder for the job's files and the logs
set -u
debs=$1
work=$2
# the packages' commands, not a checkout's linked into /usr/local/bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
say() { echo "$1=$2"; }
# wait SECONDS COMMAND...: until the command succeeds, at most that long
wait_for() {
  limit=$1
  shift
  start=$(date +%s)
  until "$@"; do
    [ $(($(date +%s) - start)) -lt "$limit" ] || return 1
    sleep 1
  done
}

# The guest has this host's root, where Slurm is installed: berth-client conflicts with Slurm's
# commands, as it would on a site's host. man-db's index, which each install would rebuild, is
# left alone (minutes under emulation).
dpkg --remove --force-depends slurm-client >"$work/remove.log" 2>&1
rm -f /var/lib/man-db/auto-update
dpkg -i "$debs"/berth-common_*.deb "$debs"/berth-client_*.deb "$debs"/berth-mom_*.deb \
  "$debs"/berth-server_*.deb >"$work/dpkg.log" 2>&1
say dpkg $?
berth ca create --home /var/lib/berth >"$work/ca.log" 2>&1
say ca $?
# One host: the mom joins the server on the loopback, each with a cluster port of its own.
sed -i 's/^--server .*/--server 127.0.0.1:2552/; s/^--port 2552/--port 2553/' /etc/berth/mom.conf
echo "--host 127.0.0.1" >>/etc/berth/server.conf
echo "--host 127.0.0.1" >>/etc/berth/mom.conf
# The daemons compile with C1 alone, as the host's test daemons do (it/src/test/bin/java-c1):
# under emulation C2's compiles would cost minutes. A drop-in, as a site would add one; the units
# stay as packaged.
for unit in berth-server berth-mom; do
  mkdir -p "/etc/systemd/system/$unit.service.d"
  printf '[Service]\nEnvironment=BERTH_JAVA_OPTS=-XX:TieredStopAtLevel=1\n' \
    >"/etc/systemd/system/$unit.service.d/c1.conf"
done
systemctl daemon-reload
started=$(date +%s)
systemctl start berth-server berth-mom
say start $?
node_free() { pbsnodes 2>/dev/null | grep -q "state = free"; }
journal() { journalctl -u berth-server -u berth-mom --no-pager >"$work/journal.log" 2>&1; }
if ! wait_for 600 node_free; then
  say node "$(pbsnodes 2>&1 | head -3)"
  journal
  exit 1
fi
say node free
say up_seconds $(($(date +%s) - started))
qmgr -c 'set server cgroup_enable = True'
say qmgr $?

mkdir -p "$work/job"
chown berth-alice "$work/job"
cat >"$work/job/job.sh" <<'JOB'
sed -n 's/^0:://p' /proc/self/cgroup > "$PBS_O_WORKDIR/cgroup"
until [ -e "$PBS_O_WORKDIR/go" ]; do sleep 0.2; done
JOB
chmod 644 "$work/job/job.sh"
id=$(cd "$work/job" && runuser -u berth-alice -- qsub -l nodes=1:ppn=1,mem=64mb job.sh)
say job "$id"
wait_for 300 test -s "$work/job/cgroup"
cgroup=$(cat "$work/job/cgroup")
say job_cgroup "$cgroup"
say job_memory_max "$(cat "/sys/fs/cgroup$cgroup/memory.max" 2>&1)"
service=/sys/fs/cgroup/system.slice/berth-mom.service
say service_procs "$(wc -l <"$service/cgroup.procs")"
mom=$(systemctl show -p MainPID --value berth-mom)
say mom_cgroup "$(sed -n 's/^0:://p' "/proc/$mom/cgroup")"
say delegate "$(systemctl show -p Delegate --value berth-mom)"
touch "$work/job/go"
ended() { qstat -f "$id" 2>/dev/null | grep -q "job_state = C"; }
wait_for 300 ended
say exit_status "$(qstat -f "$id" | sed -n 's/^ *exit_status = //p')"
job_cgroup_gone() { [ ! -e "/sys/fs/cgroup$cgroup" ]; }
wait_for 60 job_cgroup_gone
say job_cgroup_after "$([ -e "/sys/fs/cgroup$cgroup" ] && echo present || echo gone)"

systemctl stop berth-mom berth-server
say stop $?
say mom_after_stop "$(systemctl is-failed berth-mom)"
say server_after_stop "$(systemctl is-failed berth-server)"
say service_cgroup_after "$([ -e "$service" ] && echo present || echo gone)"
say berth_processes "$(pgrep -c -f dev.berth.daemon)"
journal
