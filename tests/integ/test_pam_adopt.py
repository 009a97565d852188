"""ssh into a job's allocation (issue 14, item 4): with PrologFlags=Contain
a batch job's node holds the job's extern step (cgroup step_extern, made
before the script runs and removed at its end, and `sacct` shows
`ID.extern`), and pam_drover_adopt.so, Slurm's pam_slurm_adopt, admits a
user who has a job on the node, moving the login's process into that step,
and denies one who has none (action_no_jobs=deny|ignore).

Driven by PAM's own harness, Debian's `pamtester`, on a PAM service file
the test writes under /etc/pam.d/ (a unique name, removed after): our
module, then pam_exec running a script that records its cgroups and leaves
a `setsid` sleeper behind (as a login's shell would), then pam_permit.

Needs root, a writable cgroup memory controller, pamtester and the built
module; skipped elsewhere, with the reason."""

import json
import os
import pathlib
import shutil
import uuid

import pytest

from conftest import BIN, pid_alive, wait_for
from test_signals_cgroup import ROOT as CG_ROOT

MODULE = BIN / "pam_drover_adopt.so"
pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root"),
    pytest.mark.skipif(CG_ROOT is None,
                       reason="needs a writable cgroup memory controller"),
    pytest.mark.skipif(shutil.which("pamtester") is None,
                       reason="needs pamtester (scripts/install-deps)"),
    pytest.mark.skipif(not MODULE.exists(), reason=f"no {MODULE} (libpam0g-dev)"),
]

# What a login's session would do: say where it is, leave a process behind.
SESSION = """#!/bin/sh
cat /proc/$$/cgroup > {out}.tmp && mv {out}.tmp {out}
setsid sleep 300 < /dev/null > /dev/null 2>&1 &
echo $! > {pidfile}
"""


@pytest.fixture
def pam_service(tmp_path):
    """service(options) -> the name of a PAM service under /etc/pam.d that
    runs our module with options, then the session script."""
    made = []

    def make(c, options=""):
        name = f"drover-adopt-test-{uuid.uuid4().hex[:12]}"
        path = pathlib.Path("/etc/pam.d") / name
        script = c.work / "session.sh"
        script.write_text(SESSION.format(out=c.work / "session.cgroup",
                                         pidfile=c.work / "session.pid"))
        script.chmod(0o755)
        path.write_text(
            f"account requisite {MODULE} spool={c.dir}/spool/* {options}\n"
            f"account required pam_exec.so quiet {script}\n"
            "account required pam_permit.so\n")
        made.append(path)
        return name

    yield make
    for p in made:
        p.unlink(missing_ok=True)


def pamtester(c, service, user):
    return c.run("pamtester", "-v", service, user, "acct_mgmt")


def user_job(c, u, *args):
    d = c.dir / "home" / u.name
    d.mkdir(parents=True, exist_ok=True)
    os.chown(d, u.uid, u.gid)
    rc, out, err = c.run(*u.prefix, "sbatch", "--parsable", "-o", "/dev/null",
                         *args, cwd=d)
    assert rc == 0, f"sbatch as {u.name}: {err}"
    return int(out.strip().split(";")[0])


def extern_record(c, jid):
    """The job's DIR/extern, once its shepherd wrote it."""
    path = c.dir / "spool" / "n1" / f"job.{jid}" / "extern"
    return json.loads(wait_for(lambda: path.exists() and path.read_text(), 20,
                               what=f"{path}"))


def sacct_rows(c, jid):
    out = c.ok("sacct", "-j", str(jid), "-n", "-P", "-o", "JobID,JobName,State")
    return [line.split("|") for line in out.splitlines()]


def test_user_with_a_job_is_adopted_into_its_extern_step(make_cluster, test_users,
                                                         pam_service):
    u1, _ = test_users
    c = make_cluster(nodes=1, sets={"PrologFlags": "Contain", "KillWait": "2"})
    jid = user_job(c, u1, "--mem=50M", "--wrap", "sleep 300")
    c.wait_state(jid, "RUNNING")
    rec = extern_record(c, jid)
    assert (rec["job_id"], rec["uid"]) == (jid, u1.uid)
    step_dirs = [pathlib.Path(p).parent for p in rec["procs"]]
    assert step_dirs and all(d.name == "step_extern" and d.parent.name == f"job_{jid}"
                             and d.is_dir() for d in step_dirs), step_dirs
    # the job's limits: memory as its batch step's (v1 and v2 spellings)
    mem_dir = step_dirs[0]
    for limit in ("memory.limit_in_bytes", "memory.max"):
        if (mem_dir / limit).exists():
            assert (mem_dir / limit).read_text().strip() == str(50 << 20)
            assert ((mem_dir.parent / "step_batch" / limit).read_text().strip()
                    == str(50 << 20))
    # sacct shows the step as Slurm does with Contain
    assert [str(jid) + ".extern", "extern", "RUNNING"] in sacct_rows(c, jid)

    rc, out, err = pamtester(c, pam_service(c), u1.name)
    assert rc == 0, f"pamtester: rc={rc} {out} {err}"
    # pamtester's child (the session script) ran inside the extern step
    cgroups = (c.work / "session.cgroup").read_text()
    assert f"/job_{jid}/step_extern" in cgroups, cgroups
    sleeper = int((c.work / "session.pid").read_text())
    procs = pathlib.Path(rec["procs"][0]).read_text().split()
    assert str(sleeper) in procs

    # the job's end kills what the session left, and removes the step
    c.ok("scancel", str(jid))
    c.wait_done(jid)
    wait_for(lambda: not pid_alive(sleeper), 20, what="the session's sleeper to die")
    assert not any(d.exists() for d in step_dirs)
    assert not (c.dir / "spool" / "n1" / f"job.{jid}" / "extern").exists()
    assert [str(jid) + ".extern", "extern", "COMPLETED"] in sacct_rows(c, jid)
    # and with the job gone the user is let in no more
    rc, out, err = pamtester(c, pam_service(c), u1.name)
    assert rc != 0 and "you have no active jobs on this node" in err, (out, err)


def test_user_without_a_job_is_denied_unless_action_no_jobs_ignore(
        make_cluster, test_users, pam_service):
    u1, u2 = test_users
    c = make_cluster(nodes=1, sets={"PrologFlags": "Contain"})
    jid = user_job(c, u1, "--wrap", "sleep 300")  # someone else's job
    c.wait_state(jid, "RUNNING")
    extern_record(c, jid)
    rc, out, err = pamtester(c, pam_service(c), u2.name)
    assert rc != 0, out
    assert ("Access denied by pam_drover_adopt: you have no active jobs on this "
            "node") in err
    assert not (c.work / "session.pid").exists()  # the stack stopped at us
    # a bad option is logged and changes nothing: still denied
    rc, out, err = pamtester(c, pam_service(c, "action_no_jobs=maybe bogus"),
                             u2.name)
    assert rc != 0 and "no active jobs" in err
    # ignore: the rest of the stack decides (pam_permit lets in), no adoption
    rc, out, err = pamtester(c, pam_service(c, "action_no_jobs=ignore"), u2.name)
    assert rc == 0, err
    assert "step_extern" not in (c.work / "session.cgroup").read_text()
    os.kill(int((c.work / "session.pid").read_text()), 9)
    # root is never held back
    rc, out, err = pamtester(c, pam_service(c), "root")
    assert rc == 0, err
    os.kill(int((c.work / "session.pid").read_text()), 9)


def test_without_contain_there_is_no_extern_step(make_cluster, test_users,
                                                 pam_service):
    u1, _ = test_users
    c = make_cluster(nodes=1)
    jid = user_job(c, u1, "--wrap", "sleep 300")
    c.wait_state(jid, "RUNNING")
    job_dir = c.dir / "spool" / "n1" / f"job.{jid}"
    wait_for(lambda: (job_dir / "shepherd.pid").exists(), 20, what="the shepherd")
    assert not (job_dir / "extern").exists()
    assert all(row[0] != f"{jid}.extern" for row in sacct_rows(c, jid))
    # nothing to adopt into: the user is denied as one without a job
    rc, out, err = pamtester(c, pam_service(c), u1.name)
    assert rc != 0 and "no active jobs" in err


def test_newest_job_and_action_unknown(make_cluster, test_users, pam_service):
    """Several jobs of the user on the node: newest (the default) adopts into
    the one that started last; action_unknown=deny refuses, allow admits
    without adopting."""
    u1, _ = test_users
    c = make_cluster(nodes=1, sets={"PrologFlags": "Contain"})
    old = user_job(c, u1, "--wrap", "sleep 300")
    c.wait_state(old, "RUNNING")
    extern_record(c, old)
    new = user_job(c, u1, "--wrap", "sleep 300")
    c.wait_state(new, "RUNNING")
    extern_record(c, new)
    rc, out, err = pamtester(c, pam_service(c), u1.name)
    assert rc == 0, err
    cgroups = (c.work / "session.cgroup").read_text()
    assert f"/job_{new}/step_extern" in cgroups, cgroups
    os.kill(int((c.work / "session.pid").read_text()), 9)
    rc, out, err = pamtester(c, pam_service(c, "action_unknown=deny"), u1.name)
    assert rc != 0 and "cannot tell which of your jobs" in err, err
    rc, out, err = pamtester(c, pam_service(c, "action_unknown=allow"), u1.name)
    assert rc == 0, err
    assert "step_extern" not in (c.work / "session.cgroup").read_text()
    os.kill(int((c.work / "session.pid").read_text()), 9)


def test_records_a_user_could_touch_are_not_trusted(make_cluster, test_users,
                                                    pam_service):
    """DIR/extern must be root's and writable by root alone, and its job's
    shepherd alive (holding DIR/lock); else the job does not count."""
    u1, _ = test_users
    c = make_cluster(nodes=1, sets={"PrologFlags": "Contain"})
    jid = user_job(c, u1, "--wrap", "sleep 300")
    c.wait_state(jid, "RUNNING")
    extern_record(c, jid)
    rec = c.dir / "spool" / "n1" / f"job.{jid}" / "extern"
    service = pam_service(c)
    for bad in ("group-writable", "user's"):
        if bad == "user's":
            os.chown(rec, u1.uid, u1.gid)
        else:
            rec.chmod(0o620)
        rc, out, err = pamtester(c, service, u1.name)
        assert rc != 0 and "no active jobs" in err, (bad, err)
        os.chown(rec, 0, 0)
        rec.chmod(0o600)
    # a record whose paths are not a step_extern's cgroup.procs
    good = rec.read_text()
    forged = json.loads(good)
    forged["procs"] = ["/etc/passwd"]
    rec.write_text(json.dumps(forged))
    rc, out, err = pamtester(c, service, u1.name)
    assert rc != 0 and "no active jobs" in err, err
    rec.write_text(good)
    rc, out, err = pamtester(c, service, u1.name)
    assert rc == 0, err
