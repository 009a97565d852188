#!/usr/bin/env bash
# bench/profile.sh — where Drover's time goes on the paths bench/throughput
# measures: one sbatch (client syscalls, ctld fsyncs), sequential submits
# (perf of ctld, authd and the whole machine), squeue at PENDING held jobs.
# Prints evidence only; asserts nothing. Brings up its own cluster in a temp
# dir and stops it with `drover down` (never kills by name).
#
# Knobs: BUILD=build  N=300 (sbatch for the perf phases)  PENDING=5000
#        OUTDIR=/tmp/drover-profile (perf data and reports)
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}; [[ $BUILD == /* ]] || BUILD=$REPO/$BUILD
N=${N:-300}; PENDING=${PENDING:-5000}
OUTDIR=${OUTDIR:-/tmp/drover-profile}; mkdir -p "$OUTDIR"
DIR=$(mktemp -d /tmp/drover-prof.XXXXXX)
cleanup() { "$BUILD/drover" down --dir "$DIR" >/dev/null 2>&1; rm -rf "$DIR"; }
trap cleanup EXIT
eval "$("$BUILD/drover" up --dir "$DIR" --nodes 4 --cpus 8 --mem 8192 --gpus 4 2>/dev/null)"
cd "$DIR" || exit 1
CTLD=$(cat "$DIR/run/ctld.pid"); AUTHD=$(cat "$DIR/run/authd.pid")
say() { printf '\n== %s\n' "$*"; }

say "one sbatch: wall and CPU (perf stat), 20 runs"
perf stat -r 20 -e task-clock,context-switches,page-faults \
  sbatch -Q -o /dev/null --wrap=true 2>&1 >/dev/null | grep -E "task-clock|elapsed|faults|switches"
say "baseline: a process start (/bin/true), 20 runs"
perf stat -r 20 -e task-clock /bin/true 2>&1 | grep -E "task-clock|elapsed"

say "one sbatch: client syscalls (strace -c -f)"
strace -c -f -o "$OUTDIR/sbatch.strace-c" sbatch -Q -o /dev/null --wrap=true >/dev/null
head -25 "$OUTDIR/sbatch.strace-c"
say "one sbatch: client timeline (strace -f -r -T, network and blocking calls)"
strace -f -r -T -e trace=connect,sendto,recvfrom,poll,read,write,openat,execve \
  -o "$OUTDIR/sbatch.strace" sbatch -Q -o /dev/null --wrap=true >/dev/null
grep -E "connect|poll|execve" "$OUTDIR/sbatch.strace" | head -30

say "ctld during $N sequential sbatch: fsync-family calls (strace -c -f -p ctld)"
strace -c -f -p "$CTLD" -o "$OUTDIR/ctld.strace-c" & SP=$!
sleep 0.5
t0=$(date +%s.%N)
for i in $(seq 1 "$N"); do sbatch -Q -o /dev/null --wrap=true >/dev/null; done
t1=$(date +%s.%N)
kill -INT "$SP"; wait "$SP" 2>/dev/null
echo "submit rate under strace: $(awk "BEGIN{print $N/($t1-$t0)}")/s"
head -25 "$OUTDIR/ctld.strace-c"
sleep 3
say "fsync latency in ctld (strace -T, 50 sbatch)"
strace -f -T -e trace=fsync,fdatasync -p "$CTLD" -o "$OUTDIR/ctld.fsync" & SP=$!
sleep 0.5
for i in $(seq 1 50); do sbatch -Q -o /dev/null --wrap=true >/dev/null; done
kill -INT "$SP"; wait "$SP" 2>/dev/null
awk -F'<' '/fsync|fdatasync/{n++; s+=$NF+0} END{printf "%d fsync-family calls, mean %.2f ms, total %.0f ms\n", n, s/n*1000, s*1000}' "$OUTDIR/ctld.fsync"
sleep 3

say "system-wide perf during $N sequential sbatch (jobs run meanwhile)"
perf record -a -g -o "$OUTDIR/seq.perf" -- bash -c \
  "for i in \$(seq 1 $N); do sbatch -Q -o /dev/null --wrap=true >/dev/null; done" 2>/dev/null
perf report -i "$OUTDIR/seq.perf" --no-children --sort comm --stdio -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -15
say "ctld's own symbols"
perf report -i "$OUTDIR/seq.perf" --no-children --comm drover-ctld --sort dso,sym --stdio -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20
say "sbatch's own symbols"
perf report -i "$OUTDIR/seq.perf" --no-children --comm sbatch --sort dso,sym --stdio -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20
# let the jobs finish
for _ in $(seq 1 300); do [[ -z $(squeue -h -o %i) ]] && break; sleep 0.2; done

say "squeue with $PENDING held jobs"
seq 1 "$PENDING" | xargs -P 8 -I{} sbatch -Q -H -J h{} -o /dev/null --wrap=true >/dev/null
echo "pending: $(squeue -h -t PD -o %i | wc -l); ctld VmRSS $(awk '/VmRSS/{print $2" kB"}' /proc/"$CTLD"/status)"
perf stat -r 3 -e task-clock squeue 2>&1 >/dev/null | grep -E "task-clock|elapsed"
squeue >/dev/null
perf record -g -o "$OUTDIR/squeue-client.perf" squeue >/dev/null 2>&1
perf report -i "$OUTDIR/squeue-client.perf" --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20
say "ctld while answering squeue (perf -p ctld,authd, 3 squeue)"
perf record -g -p "$CTLD,$AUTHD" -o "$OUTDIR/squeue-ctld.perf" -- bash -c "squeue >/dev/null; squeue >/dev/null; squeue > /dev/null" 2>/dev/null
perf report -i "$OUTDIR/squeue-ctld.perf" --no-children --sort comm,dso,sym --stdio -g none 2>/dev/null | grep -v "^#" | grep -v "^$" | head -20
say "reply size"
strace -f -e trace=recvfrom,read -o "$OUTDIR/squeue.strace" squeue >/dev/null
awk '{for(i=1;i<=NF;i++) if($i=="=") s+=$(i+1)} END{print s" bytes read by squeue"}' "$OUTDIR/squeue.strace"
scancel -u root --state=PENDING
