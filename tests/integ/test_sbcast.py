"""sbcast (issue 12 item 2): a file copied to every node of a running job,
with Slurm 22.05's messages and exit statuses (checked on its sbcast: 255
when the source cannot be read or the job cannot be used, else the errno of
a failed node, one `REQUEST_FILE_BCAST(NODE): TEXT` line per node). Both
nodes run on this host, so DEST holds %n (the node's name, docs/compat.md)
and each node's copy is checked on its own, also through each node's view
(`srun -N2`)."""

import os

from conftest import as_nobody_prefix, wait_for

SLEEPER = "#!/bin/bash\necho ready > ready.$SLURM_JOB_ID\nsleep 300\n"


def two_node_job(c):
    c.write("sleeper.sh", SLEEPER)
    jid = c.sbatch("-N2", "-o", "/dev/null", "sleeper.sh")
    wait_for(lambda: (c.work / f"ready.{jid}").exists(), 20, what="the job to start")
    return jid


def sbcast(c, jid, *args):
    env = dict(c.env, SLURM_JOB_ID=str(jid))
    return c.run("sbcast", *args, env=env)


def hidden(d):
    return sorted(n for n in os.listdir(d) if n.startswith("."))


def test_copies_to_every_node(cluster):
    c = cluster
    jid = two_node_job(c)
    out = c.work / "out"
    out.mkdir()
    src = c.work / "src.bin"
    data = os.urandom(5000)
    src.write_bytes(data)
    os.chmod(src, 0o640)
    os.utime(src, (1577934245, 1577934245))
    # several blocks (-s 1k), the source's mode kept; -p keeps its times
    assert sbcast(c, jid, "-s", "1k", "src.bin", "out/%n.copy") == (0, "", "")
    assert c.run("sbcast", "-j", str(jid), "-p", str(src), str(out / "%n.p")) == (0, "", "")
    for node in ("n1", "n2"):
        st = os.stat(out / f"{node}.copy")
        assert (out / f"{node}.copy").read_bytes() == data
        assert st.st_mode & 0o7777 == 0o640 and int(st.st_mtime) != 1577934245
        st = os.stat(out / f"{node}.p")
        assert st.st_mode & 0o7777 == 0o640 and int(st.st_mtime) == 1577934245
    assert hidden(out) == []
    # the default block size: a file of several blocks
    big = os.urandom(1536 * 1024 + 7)
    (c.work / "big").write_bytes(big)
    assert sbcast(c, jid, "big", "out/%n.big") == (0, "", "")
    assert all((out / f"{n}.big").read_bytes() == big for n in ("n1", "n2"))
    # each node sees its own copy
    rc, text, err = c.run("srun", f"--jobid={jid}", "--overlap", "-N2", "-n2", "-l", "bash", "-c",
                          f"cmp {out}/$SLURMD_NODENAME.copy {src} && echo same")
    assert (rc, sorted(text.splitlines()), err) == (0, ["0: same", "1: same"], "")
    # an existing DEST stays unless -f
    (out / "n1.copy").write_text("old\n")
    rc, text, err = sbcast(c, jid, "src.bin", "out/%n.copy")
    assert (rc, text) == (17, "")
    assert sorted(err.splitlines()) == [
        "sbcast: error: REQUEST_FILE_BCAST(n1): File exists",
        "sbcast: error: REQUEST_FILE_BCAST(n2): File exists"]
    assert (out / "n1.copy").read_text() == "old\n"
    assert sbcast(c, jid, "-f", "src.bin", "out/%n.copy") == (0, "", "")
    assert (out / "n1.copy").read_bytes() == data
    # one DEST for both nodes (one host): the first takes it, as Slurm's did
    rc, text, err = sbcast(c, jid, "src.bin", "out/same")
    assert (rc, text) == (17, "")
    assert err in ("sbcast: error: REQUEST_FILE_BCAST(n1): File exists\n",
                   "sbcast: error: REQUEST_FILE_BCAST(n2): File exists\n")
    assert (out / "same").read_bytes() == data and hidden(out) == []
    c.ok("scancel", str(jid))


def test_bad_input_changes_nothing(cluster):
    c = cluster
    jid = two_node_job(c)
    (c.work / "src.txt").write_text("hello\n")
    (c.work / "n1").mkdir()
    before = sorted(os.listdir(c.work))
    # the source
    assert sbcast(c, jid, "nosuch", "x") == (
        255, "", "sbcast: error: Can't open `nosuch`: No such file or directory\n")
    assert sbcast(c, jid, ".", "x") == (
        255, "", "sbcast: error: Can't mmap file `.`, No such device.\n")
    # the destination, on each node
    for dest, no, text in (("/nonexistent/d/x", 2, "No such file or directory"),
                           ("src.txt/x", 20, "Not a directory")):
        rc, out, err = sbcast(c, jid, "src.txt", dest)
        assert (rc, out) == (no, ""), err
        assert sorted(err.splitlines()) == [
            f"sbcast: error: REQUEST_FILE_BCAST({n}): {text}" for n in ("n1", "n2")]
    # one node fails mid-file: the other drops what it took
    (c.work / "big").write_bytes(os.urandom(4000))
    rc, out, err = sbcast(c, jid, "-s", "1k", "big", "%n/big")
    assert (rc, out, err) == (
        2, "", "sbcast: error: REQUEST_FILE_BCAST(n2): No such file or directory\n")
    assert os.listdir(c.work / "n1") == []
    assert sorted(os.listdir(c.work)) == sorted(before + ["big"])
    # the command line and the job
    assert sbcast(c, jid, "src.txt", "d/") == (
        1, "", "sbcast: error: Target filename cannot be a directory.\n")
    assert sbcast(c, jid, "src.txt") == (
        1, "", "Need two file names, have 1 names\n"
               "Try \"sbcast --help\" for more information\n")
    env = {k: v for k, v in c.env.items() if k != "SLURM_JOB_ID"}
    assert c.run("sbcast", "src.txt", "x", env=env) == (
        1, "", "sbcast: error: Need a job id to run this command.  Run from within "
               "a Slurm job or use the --jobid option.\n")
    assert c.run("sbcast", "-j", "999999", "src.txt", "x") == (
        255, "", "sbcast: error: Slurm job 999999 lookup error: Invalid job id specified\n")
    nobody = as_nobody_prefix() + [c.bin / "sbcast"]
    assert c.run(*nobody, "-j", str(jid), "/etc/hostname", "/tmp/x%n") == (
        255, "", f"sbcast: error: Slurm job {jid} lookup error: Access/permission denied\n")
    assert not os.path.exists("/tmp/xn1")
    held = c.sbatch("-H", "--wrap", "true")
    assert c.run("sbcast", "-j", str(held), "src.txt", "x") == (
        255, "", f"sbcast: error: Slurm job {held} lookup error: "
                 "Job is pending execution\n")
    c.ok("scancel", str(jid), str(held))
    c.wait_state(jid, "CANCELLED")
    assert c.run("sbcast", "-j", str(jid), "src.txt", "x") == (
        255, "", f"sbcast: error: Slurm job {jid} lookup error: "
                 "Job/step already completing or completed\n")
    assert sorted(os.listdir(c.work)) == sorted(before + ["big"])
