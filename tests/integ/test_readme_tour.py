"""The README's tour, run verbatim: every ```sh block marked `<!-- tour -->`
in README.md is cut into its commands, which one bash runs in order from an
empty temp directory (the tour's own `cd "$(mktemp -d)"`, with TMPDIR set
to this test's temp dir) against the cluster the tour itself brings up.
Each command must exit 0 and do what its comment in the README says: every
command line of the tour has an entry in CHECKS (keyed by the whole line,
comment included), so a README edit that changes a claim, or adds a
command, fails here until the test says how to check it. Before some
commands the test waits (with a deadline) for what a reader would wait for
between typing them, e.g. a job to have started. The tour must write
nothing into the checkout."""

import os
import pathlib
import pwd
import re
import shutil
import subprocess
import tempfile
import time

from conftest import BIN, ROOT, TERMINAL, pid_alive, wait_for

README = ROOT / "README.md"


def tour_commands(text):
    """The tour's commands: (first line as written, whole command text)."""
    blocks = re.findall(r"^<!-- tour -->\n```sh\n(.*?)^```", text, re.S | re.M)
    assert blocks, "README.md has no <!-- tour --> blocks"
    cmds = []
    for block in blocks:
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.strip() or line.lstrip().startswith("#"):
                i += 1
                continue
            body = [line]
            here = re.search(r"<<-?\s*'?(\w+)'?", line)
            if here:
                while lines[i] != here.group(1):
                    i += 1
                    body.append(lines[i])
            while body[-1].endswith("\\"):
                i += 1
                body.append(lines[i])
            cmds.append((line.strip(), "\n".join(body)))
            i += 1
    return cmds


class Tour:
    """One bash, fed the tour's commands one by one."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.cap = tmp / "capture"
        self.cap.mkdir()
        self.work = tmp / "work"
        self.work.mkdir()
        env = dict(os.environ)
        env.update(PATH=f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}", TMPDIR=str(self.work),
                   HOME=str(tmp))
        env.setdefault("USER", pwd.getpwuid(os.getuid()).pw_name)
        env.pop("DROVER_CONF", None)
        env.pop("SLURM_CONF", None)
        self.env = env
        self.sh = subprocess.Popen(["bash", "--norc", "--noprofile"], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, cwd=tmp, env=env)
        self.n = 0
        self.dir = None  # the tour's working directory, once it has cd'd
        self.conf = ""
        self.confs = []  # every cluster the tour brought up

    def do(self, body, timeout=180):
        self.n += 1
        n, cap = self.n, self.cap
        script = (f"{{ {body}\n}} </dev/null >{cap}/out.{n} 2>{cap}/err.{n}; "
                  f"echo \"__rc {n} $? $PWD ${{DROVER_CONF:-}}\"\n")
        self.sh.stdin.write(script)
        self.sh.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            line = self.sh.stdout.readline()
            assert line, f"the tour's shell died at {body!r}"
            m = re.match(rf"__rc {n} (\d+) (\S+) ?(\S*)$", line.rstrip("\n"))
            if m:
                break
            assert time.monotonic() < deadline, f"{body!r} ran past {timeout}s"
        self.dir = pathlib.Path(m.group(2))
        self.conf = m.group(3)
        if self.conf and self.conf not in self.confs:
            self.confs.append(self.conf)
        return (int(m.group(1)), (cap / f"out.{n}").read_text(),
                (cap / f"err.{n}").read_text())

    def cmd(self, *args):
        """Runs a command beside the tour, in its directory and cluster."""
        env = dict(self.env, DROVER_CONF=self.conf)
        p = subprocess.run([str(a) for a in args], cwd=self.dir, env=env, text=True,
                           capture_output=True, timeout=60)
        return p.stdout

    def job(self, jid):
        return self.cmd(BIN / "scontrol", "show", "job", str(jid))

    def state(self, jid):
        m = re.search(r"JobState=(\S+)", self.job(jid))
        return m.group(1) if m else None

    def file(self, name):
        p = self.dir / name
        return p.read_text() if p.exists() else ""

    def running(self, jid):
        out = self.cmd(BIN / "squeue", "-h", "-t", "R", "-j", str(jid), "-o", "%i")
        return [ln for ln in out.split() if ln]

    @staticmethod
    def pidfiles(cluster):
        return [pf for pf in (cluster / "run").glob("*.pid") if pf.read_text().split()]

    def down(self, cluster):
        return not any(pid_alive(int(pf.read_text().split()[0]))
                       for pf in self.pidfiles(self.dir / cluster))

    def close(self):
        for c in self.confs:
            conf = pathlib.Path(c)
            subprocess.run([BIN / "drover", "down", "--dir", conf.parent], capture_output=True,
                           timeout=90)
            for pf in self.pidfiles(conf.parent):
                try:
                    pid = int(pf.read_text().split()[0])
                except (OSError, ValueError, IndexError):
                    continue
                if pid_alive(pid):
                    os.kill(pid, 9)
        self.sh.stdin.close()
        self.sh.wait(timeout=30)


def submitted(n):
    return lambda t, out, err: out == f"Submitted batch job {n}\n"


def contains(*words):
    return lambda t, out, err: all(w in out for w in words)


def matches(rx):
    return lambda t, out, err: re.search(rx, out, re.M)


def ok(t, out, err):
    return True


def node_idle(t):
    return "State=IDLE" in t.cmd(BIN / "scontrol", "show", "node", "n1") \
        and not t.cmd(BIN / "squeue", "-h", "-t", "R")


def uid_line(t, out, err):
    return out == f"1|CANCELLED by {os.getuid()}\n"


def srun_lines(t, out, err):
    return sorted(out.splitlines()) == ["0: n1", "1: n1", "2: n2", "3: n2"]


def array_running(t):
    """Four tasks at once (never more): the %4 limit on nodes with room."""
    run = t.running(7)
    assert len(run) <= 4, run
    return len(run) == 4


def array_squeue(t, out, err):
    run = re.findall(r"^\s*7_\d+\s.*\sR\s", out, re.M)
    return re.search(r"^\s*7_\[\d-9%4\]\s.*\sPD\s.*\(JobArrayTaskLimit\)", out, re.M) \
        and 1 <= len(run) <= 4


def array_done(t):
    return not t.cmd(BIN / "squeue", "-h", "-j", "7")


def steps_19(t, out, err):
    ids = [ln.split()[0] for ln in out.splitlines()[2:] if ln.strip()]
    return ids[:4] == ["19", "19.batch", "19.0", "19.1"]


def step_19_1_running(t):
    return "19.1" in t.cmd(BIN / "squeue", "-h", "-s", "-o", "%i")


# command line as written -> (wait before it, or None; check of its output)
CHECKS = {
    'cd "$(mktemp -d)"                # a new, empty directory for the tour':
        (None, lambda t, out, err: t.dir.parent == t.work and not out),
    'eval "$(drover up --dir cluster)"   # sets DROVER_CONF and puts the commands on PATH':
        (None, lambda t, out, err: t.conf == str(t.dir / "cluster" / "drover.conf")),
    "cat > job.sh <<'JOB'": (None, lambda t, out, err: "#SBATCH -J hello" in t.file("job.sh")),
    "sbatch job.sh                    # Submitted batch job 1": (None, submitted(1)),
    "squeue                           # JOBID PARTITION NAME USER ST TIME NODES "
    "NODELIST(REASON)":
        (None, matches(r"^\s+JOBID PARTITION\s+NAME\s+USER ST\s+TIME\s+NODES "
                       r"NODELIST\(REASON\)\n\s+1\s+debug\s+hello\s")),
    "cat slurm-1.out                  # job 1 on n1 (once it has started)":
        (lambda t: t.file("slurm-1.out"), lambda t, out, err: out == "job 1 on n1\n"),
    "sbatch --wrap 'hostname'         # Submitted batch job 2: a one-liner, no script file":
        (None, submitted(2)),
    "scancel 1                        # ends CANCELLED; its processes are gone":
        (None, lambda t, out, err: wait_for(lambda: t.state(1) == "CANCELLED")),
    "scontrol show job 1              # JobState=CANCELLED ... ExitCode=0:15":
        (lambda t: "ExitCode=0:15" in t.job(1),
         contains("JobId=1 JobName=hello", "JobState=CANCELLED", "ExitCode=0:15")),
    "sacct                            # today's jobs and their .batch steps, kept after":
        # sacct's default window ends now, and takes jobs eligible before it
        # (as Slurm's does): job 2 shows from the second after its submission
        (lambda t: re.search(r"^2\.batch .* COMPLETED ", t.cmd(BIN / "sacct"), re.M),
         matches(r"^1\s+hello .*CANCELLED.*\n1\.batch\s+batch .*\n2\s+wrap .*COMPLETED")),
    "sacct -P -n -X -o JobID,State -j 1   # 1|CANCELLED by UID (yours): what workflow tools "
    "poll": (None, uid_line),
    "scontrol show node n1            # State=IDLE ...": (node_idle, contains("State=IDLE")),
    "scontrol update NodeName=n1 State=DRAIN Reason=maintenance":
        (None, lambda t, out, err: "State=IDLE+DRAIN" in t.cmd(BIN / "scontrol", "show",
                                                               "node", "n1")),
    "sinfo -R                         # the reason, who set it and when":
        (None, matches(r"^REASON\s+USER\s+TIMESTAMP\s+NODELIST\nmaintenance\s+\S+\s+"
                       r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d n1$")),
    "scontrol update NodeName=n1 State=RESUME":
        (None, lambda t, out, err: "State=IDLE " in t.cmd(BIN / "scontrol", "show", "node",
                                                          "n1")),
    "sinfo                            # PARTITION AVAIL TIMELIMIT NODES STATE NODELIST":
        (None, matches(r"^PARTITION AVAIL\s+TIMELIMIT\s+NODES\s+STATE NODELIST\n"
                       r"debug\*\s+up\s+infinite\s+2\s+idle n\[1-2\]$")),
    "sinfo -N -l                      # one line per node: CPUs, memory, state, reason":
        (None, matches(r"^n1\s+1\s+debug\*\s+idle\s+\d+\s+\S+\s+4096 .*\nn2\s")),
    "sbatch -c 2 --mem=1G --wrap 'echo $SLURM_CPUS_PER_TASK'   # job 3; slurm-3.out: 2":
        (None, submitted(3)),
    "sbatch --dependency=afterok:3 --wrap 'echo after 3'       # job 4 runs once 3 completed":
        (None, submitted(4)),
    "sbatch --begin=now+60 -w n2 --wrap 'echo later, on n2'    # job 5 PENDING (BeginTime)":
        (None, lambda t, out, err: out == "Submitted batch job 5\n"
         and "Reason=BeginTime" in t.job(5) and t.state(5) == "PENDING"),
    "printf '#!/bin/bash\\ntrap \"echo USR1: checkpoint\" USR1\\nsleep 300 & wait\\n' > "
    "ckpt.sh": (None, lambda t, out, err: t.file("ckpt.sh").startswith("#!/bin/bash\ntrap")),
    "sbatch -t 1 --signal=B:USR1@50 ckpt.sh   # job 6 gets USR1 fifty seconds before its limit":
        (None, submitted(6)),
    "scontrol requeue 3               # back to PENDING (Restarts=1): SLURM_RESTART_COUNT=1 "
    "next run":
        (lambda t: t.state(3) == "COMPLETED" and t.file("slurm-3.out") == "2\n",
         lambda t, out, err: t.state(3) == "PENDING" and "Restarts=1" in t.job(3)),
    "sacct -D -j 3                    # the earlier run as a REQUEUED row":
        (None, matches(r"^3\s+wrap .*REQUEUED ")),
    "sbatch --array=0-9%4 -o 'out-%A_%a' --wrap 'sleep 5; echo $SLURM_ARRAY_TASK_ID'   # job 7":
        # job 6 has had its USR1 and ended (so the array has every CPU: the
        # reader has waited for the checkpoint line), job 4 has run
        (lambda t: "USR1: checkpoint" in t.file("slurm-6.out") and t.state(6) in TERMINAL
         and t.state(4) == "COMPLETED", submitted(7)),
    "squeue                           # 7_[4-9%4] pending, four tasks running (%4)":
        (array_running, array_squeue),
    "srun -N2 -n4 -l printenv SLURMD_NODENAME   # 0: n1, 1: n1, 2: n2, 3: n2 (job 17)":
        (array_done, lambda t, out, err: srun_lines(t, out, err) and "JobId=17 " in t.job(17)),
    "salloc -N2 srun printenv SLURM_JOB_ID      # an allocation, a step in it: 18 18":
        (None, lambda t, out, err: out == "18\n18\n"),
    "printf 'import os\\nprint(\"task\", os.environ[\"SLURM_PROCID\"])\\n' > train.py":
        (None, lambda t, out, err: "SLURM_PROCID" in t.file("train.py")),
    "sbatch -N2 --ntasks-per-node=2 --wrap 'srun python3 train.py; srun sleep 60; echo done'":
        (None, submitted(19)),
    "sacct -j 19                      # 19, 19.batch, 19.0, 19.1 with their own exit codes":
        (step_19_1_running, steps_19),
    "sstat -a -j 19 -o JobID,MaxRSS,AveCPU   # the running steps' usage, sampled every "
    "JobAcctGatherFrequency s":
        (step_19_1_running,
         lambda t, out, err: out.split()[:3] == ["JobID", "MaxRSS", "AveCPU"]
         and re.search(r"^\s*19\.1\s", out, re.M) and not re.search(r"^\s*19\.0\s", out, re.M)),
    "scancel 19.1                     # one step; the batch script goes on and prints done":
        (None, lambda t, out, err: wait_for(lambda: t.state(19) == "COMPLETED", 60)
         and t.file("slurm-19.out").endswith("done\n")
         and sorted(re.findall(r"task \d", t.file("slurm-19.out"))) ==
         ["task 0", "task 1", "task 2", "task 3"]),
    "drover status                    # each daemon, its pid, running/stopped (exit 3 if one "
    "is down)":
        (lambda t: "USR1: checkpoint" in t.file("slurm-6.out"),
         lambda t, out, err: len(re.findall(r"^(authd|ctld|noded n[12])\s+\d+\s+running$", out,
                                            re.M)) == 4),
    "drover up                        # starts only what is missing (e.g. after a crash)":
        (None, lambda t, out, err: "started" not in err and err.count("already running") == 4),
    "drover down                      # stops jobs, nodes, controller and authd":
        (None, lambda t, out, err: t.down("cluster")),
    # the second cluster
    'eval "$(drover up --dir second --gpus 4 --set PriorityType=priority/multifactor \\':
        (None, lambda t, out, err: t.conf == str(t.dir / "second" / "drover.conf")
         and "Gres=gpu:4" in t.cmd(BIN / "scontrol", "show", "node", "n2")),
    "sacctmgr -i add account physics,chem":
        (None, matches(r"^ Adding Account\(s\)\n  physics\n  chem$")),
    "sacctmgr -i add user $USER account=physics,chem":
        (None, lambda t, out, err: {f"chem|{t.env['USER']}", f"physics|{t.env['USER']}"} <=
         set(t.cmd(BIN / "sacctmgr", "-n", "-P", "show", "assoc",
                   "format=Account,User").split())),
    "sacctmgr show assoc tree         # root, then chem and physics, you under each":
        (None, lambda t, out, err: re.search(
            r"^\s+drover root\s.*\n(?:.*\n)*\s+drover  chem\s.*\n\s+drover   chem\s+%s\s"
            r"(?:.*\n)*\s+drover  physics\s.*\n\s+drover   physics\s+%s\s"
            % (t.env["USER"], t.env["USER"]), out, re.M)),
    "sbatch -t 2 --gpus=2 --wrap 'echo $CUDA_VISIBLE_DEVICES; sleep 90'   # job 1; "
    "slurm-1.out: 0,1": (None, submitted(1)),
    "sbatch -t 2 --gres=gpu:2 --wrap 'echo $SLURM_JOB_GPUS; sleep 90'     # job 2 beside it: "
    "2,3": (None, submitted(2)),
    "scontrol show node n1            # Gres=gpu:4 ... AllocTRES=...,gres/gpu=4":
        (lambda t: t.file("slurm-1.out") == "0,1\n" and t.file("slurm-2.out") == "2,3\n",
         matches(r"^   Gres=gpu:4$(?:.*\n)*^   AllocTRES=\S*gres/gpu=4$")),
    "scontrol create PartitionName=gpu Nodes=n[1-2] PriorityTier=2 MaxTime=4:00:00":
        (None, lambda t, out, err: "PriorityTier=2" in t.cmd(BIN / "scontrol", "show",
                                                            "partition", "gpu")),
    "sbatch -p debug,gpu job.sh       # job 3 starts in whichever partition can run it first":
        (None, lambda t, out, err: out == "Submitted batch job 3\n" and wait_for(
            lambda: re.search(r"JobState=RUNNING .*\n(?:.*\n)*\s+Partition=(debug|gpu) ",
                              t.job(3)))),
    "sbatch -N2 --exclusive -t 5:00 --wrap 'sleep 5'   # job 4 waits for both nodes (Resources)":
        (None, lambda t, out, err: out == "Submitted batch job 4\n" and wait_for(
            lambda: "Reason=Resources" in t.job(4))),
    "sbatch -N2 --exclusive -t 5:00 --wrap 'sleep 5'   # job 5 waits behind it (Priority)":
        (None, lambda t, out, err: out == "Submitted batch job 5\n" and wait_for(
            lambda: "Reason=Priority" in t.job(5))),
    "sprio -l                         # each pending job's factors, weighted":
        (None, matches(r"^\s+JOBID PARTITION\s+USER\s+PRIORITY .* FAIRSHARE .*\n"
                       r"\s+4 debug\s+\S+\s+\d+\s.*\n\s+5 debug\s")),
    "sshare -a -l                     # RawUsage, NormShares, EffectvUsage, FairShare, LevelFS":
        (None, matches(r"^Account\s+User\s+RawShares\s+NormShares\s+RawUsage\s+NormUsage\s+"
                       r"EffectvUsage\s+FairShare\s+LevelFS\s")),
    "scontrol top 5                   # your job 5 first among your own: 5 (Resources), 4 "
    "(Priority)":
        (None, lambda t, out, err: wait_for(
            lambda: t.cmd(BIN / "squeue", "-h", "-t", "PD", "-o", "%i %r").split("\n")[:2] ==
            ["5 Resources", "4 Priority"])),
    "scontrol update JobId=4 Nice=100     # or Priority=N (an administrator's, kept)":
        (None, lambda t, out, err: "Nice=100" in t.job(4)),
    "squeue --start                   # pending jobs' expected START_TIME and SCHEDNODES":
        (lambda t: re.search(r"^\s+5\s+debug\s.*\s\d{4}-\d\d-\d\dT",
                             t.cmd(BIN / "squeue", "--start"), re.M),
         matches(r"^\s+JOBID PARTITION\s+NAME\s+USER ST\s+START_TIME\s+NODES SCHEDNODES\s+"
                 r"NODELIST\(REASON\)\n(?:.*\n)*\s+5\s+debug\s+wrap\s+\S+ PD \d{4}-\S+\s+2 "
                 r"n\[1-2\]\s+\(Resources\)")),
    "scontrol show job 5              # Reason=Resources Lacks=cpu,mem, StartTime= the plan":
        (None, lambda t, out, err: "JobState=PENDING Reason=Resources" in out and
         re.search(r"Lacks=cpu,mem", out) and re.search(r"StartTime=\d{4}-", out)),
    "sbatch --test-only -c 1 -t 30:00 job.sh  # \"sbatch: Job 6 to start at TIME using 1 "
    "processors on nodes ...\"":
        (None, lambda t, out, err: re.fullmatch(
            r"sbatch: Job 6 to start at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d using 1 processors on "
            r"nodes n[12] in partition debug\n", err)),
    "sbatch -L matlab:2 job.sh        # job 6 holds two of the four licenses when it runs":
        (None, lambda t, out, err: out == "Submitted batch job 6\n"
         and "Licenses=matlab:2" in t.job(6)),
    "scontrol show licenses           # LicenseName=matlab Total=4 ...":
        (None, matches(r"^LicenseName=matlab\n\s+Total=4 ")),
    "sacctmgr -i modify qos normal set MaxJobsPerUser=4": (None, ok),
    "sacctmgr show qos normal format=Name,MaxJobsPU   # normal 4":
        (None, matches(r"^\s+normal\s+4 ?$")),
    "drover down": (None, lambda t, out, err: t.down("second")),
}


def untracked():
    p = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=all"],
                       capture_output=True, text=True)
    # new files only: tracked ones may be edited while the test runs
    return {ln for ln in p.stdout.splitlines() if ln.startswith("??")} \
        if p.returncode == 0 else set()


def test_readme_tour():
    cmds = tour_commands(README.read_text())
    missing = [line for line, _ in cmds if line not in CHECKS]
    assert not missing, f"README tour commands without a check here: {missing}"
    before = untracked()
    # short: authd's socket under the tour's cluster dir must fit in sun_path
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="tour-", dir="/tmp"))
    tour = Tour(tmp_path)
    try:
        for line, body in cmds:
            wait, check = CHECKS[line]
            if wait:
                wait_for(lambda: wait(tour), timeout=150, interval=0.3, what=f"before {line!r}")
            rc, out, err = tour.do(body)
            assert rc == 0, f"{line!r} exited {rc}\nstdout:\n{out}\nstderr:\n{err}"
            assert check(tour, out, err), f"{line!r} did not do what README says:\n" \
                f"stdout:\n{out}\nstderr:\n{err}"
        # what the tour's jobs wrote, in the tour's own directory
        assert tour.file("slurm-4.out") == "after 3\n"
        for i in range(10):
            assert tour.file(f"out-7_{i}") == f"{i}\n"
        assert tour.dir.is_relative_to(tmp_path)
    finally:
        tour.close()
    assert untracked() == before, "the tour wrote into the checkout"
    shutil.rmtree(tmp_path, ignore_errors=True)
