"""Placement: -w, -x, -C with node Features= ([a|b], a&b, a|b), --tmp with
TmpDisk=, --mincpus; refusals at submit with Slurm's texts and nothing
submitted; the fields scontrol, squeue and sinfo show."""
import re

from conftest import wait_for


def featured(make_cluster):
    """n1: CPUs=1 Features=ib,a TmpDisk=100; n2: Features=gpu,b TmpDisk=5000
    (ctld restarted on the edited config)."""
    c = make_cluster(nodes=2)
    conf = c.conf.read_text()
    conf = re.sub(r"^(NodeName=n1 .*?)CPUs=\d+", r"\1CPUs=1", conf, flags=re.M)
    conf = re.sub(r"^(NodeName=n1 .*)$", r"\1 Features=ib,a TmpDisk=100", conf,
                  flags=re.M)
    conf = re.sub(r"^(NodeName=n2 .*)$", r"\1 Features=gpu,b TmpDisk=5000", conf,
                  flags=re.M)
    c.conf.write_text(conf)
    c.kill9("ctld")
    c.up()
    wait_for(lambda: all("IDLE" in c.show_node(n)["State"] for n in ("n1", "n2")), 20,
             what="both nodes up")
    return c


def ran_on(c, *args):
    jid = c.sbatch(*args, "--wrap", "true")
    job = c.wait_done(jid)
    assert job["JobState"] == "COMPLETED", job
    return job["NodeList"]


def test_nodes_features_tmp_and_mincpus_choose_the_node(make_cluster):
    c = featured(make_cluster)
    node = c.show_node("n2")
    assert node["AvailableFeatures"] == "gpu,b" and node["ActiveFeatures"] == "gpu,b"
    assert node["TmpDisk"] == "5000", node
    sinfo = c.ok("sinfo", "-N", "-h", "-o", "%N %f %d")
    assert sinfo.splitlines() == ["n1 ib,a 100", "n2 gpu,b 5000"], sinfo
    assert ran_on(c, "-w", "n2") == "n2"
    assert ran_on(c, "-x", "n1") == "n2"
    assert ran_on(c, "-C", "ib") == "n1"
    assert ran_on(c, "-C", "gpu&b") == "n2"
    assert ran_on(c, "-C", "a&ib") == "n1"
    assert ran_on(c, "-C", "[a|b]", "-x", "n1") == "n2"
    assert ran_on(c, "-N", "2", "-C", "a|b") == "n[1-2]"
    assert ran_on(c, "-C", "[a|b]") == "n1"
    assert ran_on(c, "-C", "b*1") == "n2"  # a count: that many nodes with it
    assert ran_on(c, "-N", "2", "-C", "ib*1") == "n[1-2]"
    assert ran_on(c, "--tmp=1000") == "n2"
    assert ran_on(c, "--tmp=100") == "n1"
    assert ran_on(c, "--mincpus=2") == "n2"
    assert ran_on(c, "-w", "n[1-2]") == "n[1-2]"  # -w nodes count toward -N


def test_request_fields_shown_and_kept_across_restart(make_cluster):
    c = featured(make_cluster)
    jid = c.sbatch("-H", "-w", "n2", "-x", "n1", "-C", "gpu&b", "--mincpus=2",
                   "--tmp=1G", "--wrap", "true")
    job = c.show_job(jid)
    want = {"ReqNodeList": "n2", "ExcNodeList": "n1", "Features": "gpu&b",
            "MinCPUsNode": "2", "MinTmpDiskNode": "1G"}
    assert {k: job[k] for k in want} == want, job
    sq = c.ok("squeue", "-h", "-j", str(jid), "-o", "%f|%n|%x|%d|%c")
    assert sq == "gpu&b|n2|n1|1G|2\n"
    plain = c.sbatch("-H", "--wrap", "true")
    job = c.show_job(plain)
    assert (job["ReqNodeList"], job["ExcNodeList"], job["Features"],
            job["MinTmpDiskNode"]) == ("(null)", "(null)", "(null)", "0")
    assert c.ok("squeue", "-h", "-j", str(plain), "-o", "%f|%n|%x|%d") == "(null)|||0\n"
    c.kill9("ctld")
    c.up()
    job = c.show_job(jid)
    assert {k: job[k] for k in want} == want, job
    c.ok("scontrol", "release", str(jid))
    job = c.wait_done(jid)
    assert (job["JobState"], job["NodeList"]) == ("COMPLETED", "n2"), job
    # sacct: Constraints on the job's line, blank on its steps
    out = c.ok("sacct", "-j", str(jid), "-n", "-P", "-o", "JobID,Constraints")
    assert out == f"{jid}|gpu&b\n{jid}.batch|\n", out


def test_a_listed_busy_node_is_waited_for(make_cluster):
    c = featured(make_cluster)
    hog = c.sbatch("-w", "n2", "--exclusive", "--wrap", "sleep 300")
    c.wait_state(hog, "RUNNING")
    jid = c.sbatch("-w", "n2", "--wrap", "true")
    job = wait_for(lambda: (j := c.show_job(jid))["Reason"] != "None" and j, 10,
                   what="a reason")
    assert (job["JobState"], job["Reason"]) == ("PENDING", "Resources"), job
    # the same on features: only n2 has gpu (and the partition is blocked
    # behind the first, as with Slurm's builtin scheduler)
    gpu = c.sbatch("-C", "gpu", "--wrap", "true")
    job = wait_for(lambda: (j := c.show_job(gpu))["Reason"] != "None" and j, 10,
                   what="a reason")
    assert (job["JobState"], job["Reason"]) == ("PENDING", "Priority"), job
    c.ok("scancel", str(hog))
    assert c.wait_done(jid)["NodeList"] == "n2"
    assert c.wait_done(gpu)["NodeList"] == "n2"


def test_impossible_requests_are_refused_at_submit(make_cluster):
    c = featured(make_cluster)
    before = c.ok("squeue", "-h", "-o", "%i")
    fail = "sbatch: error: Batch job submission failed: "
    cases = [
        (["-w", "n9"], fail + "Invalid node name specified\n"),
        (["-w", "n[1"], fail + "Invalid node name specified\n"),
        (["-x", "n9"], fail + "Invalid node name specified\n"),
        (["-w", "n1", "-x", "n1"], fail + "Invalid node name specified\n"),
        (["-C", "nosuch"], fail + "Invalid feature specification\n"),
        (["-C", "a&&b"], fail + "Invalid feature specification\n"),
        (["-C", "[a|b"], fail + "Invalid feature specification\n"),
        (["-C", "ib|nosuch"], fail + "Invalid feature specification\n"),
        (["-x", "n1,n2"], fail + "Requested node configuration is not available\n"),
        (["-C", "a&b"], fail + "Requested node configuration is not available\n"),
        (["-N", "2", "-C", "[a|b]"],
         fail + "Requested node configuration is not available\n"),
        (["-C", "b*2"], fail + "Requested node configuration is not available\n"),
        (["-w", "n1", "-C", "gpu"],
         fail + "Requested node configuration is not available\n"),
        (["--tmp=6000"], "sbatch: error: Temporary disk specification can not be "
         "satisfied\n" + fail + "Requested node configuration is not available\n"),
        (["--mincpus=999"], "sbatch: error: CPU count per node can not be satisfied\n"
         + fail + "Requested node configuration is not available\n"),
    ]
    for args, err in cases:
        rc, out, got = c.run("sbatch", *args, "--wrap", "true")
        assert (rc, out, got) == (1, "", err), args
    for args, err in [(["--tmp=abc"], "Invalid --tmp specification"),
                      (["--mincpus=x"], 'Invalid numeric value "x" for --mincpus.')]:
        rc, out, got = c.run("sbatch", *args, "--wrap", "true")
        assert got == f"sbatch: error: {err}\n" and out == "", args
        assert rc == (255 if "tmp" in args[0] else 1), args
    assert c.ok("squeue", "-h", "-o", "%i") == before


def test_nodelist_against_node_and_task_counts(make_cluster):
    c = featured(make_cluster)
    rc, out, err = c.run("sbatch", "-N", "1", "-w", "n[1-2]", "--wrap", "true")
    assert (rc, out, err) == (1, "", "sbatch: error: invalid number of nodes (-N 2-1)\n")
    rc, out, err = c.run("sbatch", "-H", "--parsable", "-n", "1", "-w", "n[1-2]",
                         "--wrap", "true")
    assert rc == 0 and err == ("sbatch: Warning: can't run 1 processes on 2 nodes, "
                               "setting nnodes to 1\n"), err
    job = c.show_job(int(out))
    assert (job["ReqNodeList"], job["NumNodes"]) == ("n1", "1-1"), job
    jid = c.sbatch("-H", "-w", "n2,n1,n2", "--wrap", "true")
    job = c.show_job(jid)
    assert (job["ReqNodeList"], job["NumNodes"], job["NumTasks"]) == ("n[1-2]", "2", "2")
    # -N ranges show as asked while pending, as Slurm's scontrol
    shown = {}
    for args in (["-N", "1-2", "-n", "3"], ["-N", "2", "--ntasks-per-node=1"], []):
        job = c.show_job(c.sbatch("-H", *args, "--wrap", "true"))
        shown[" ".join(args)] = (job["NumNodes"], job["NumTasks"])
    assert shown == {"-N 1-2 -n 3": ("1-2", "3"), "-N 2 --ntasks-per-node=1": ("2-2", "2"),
                     "": ("1", "1")}, shown


def test_tasks_without_a_node_count_span_nodes(make_cluster):
    c = featured(make_cluster)
    cpus = int(c.show_node("n2")["CPUTot"])
    # n1 has 1 CPU and n2 the rest: one task more than n2 holds needs both
    assert ran_on(c, "-n", str(cpus + 1)) == "n[1-2]"
    rc, out, err = c.run("sbatch", "-n", str(cpus + 2), "--wrap", "true")
    assert (rc, err) == (1, "sbatch: error: Batch job submission failed: "
                            "Requested node configuration is not available\n")


def test_a_listed_node_down_is_req_node_not_avail(make_cluster):
    c = featured(make_cluster)
    c.ok("scontrol", "update", "NodeName=n2", "State=DRAIN", "Reason=maint")
    jid = c.sbatch("-w", "n2", "--wrap", "true")
    job = wait_for(lambda: (j := c.show_job(jid))["Reason"] != "None" and j, 10,
                   what="a reason")
    assert (job["JobState"], job["Reason"]) == (
        "PENDING", "ReqNodeNotAvail,_UnavailableNodes:n2"), job
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%R") == (
        "(ReqNodeNotAvail, UnavailableNodes:n2)\n")
    # It waits for an admin: later jobs of the partition are not held up.
    other = c.sbatch("--wrap", "true")
    assert c.wait_done(other)["NodeList"] == "n1"
    c.ok("scontrol", "update", "NodeName=n2", "State=RESUME")
    job = c.wait_done(jid)
    assert (job["JobState"], job["NodeList"]) == ("COMPLETED", "n2"), job


def test_node_files(make_cluster):
    c = featured(make_cluster)
    c.write("one", "n2\n", mode=0o644)
    c.write("two", "n2 n1\n", mode=0o644)
    assert ran_on(c, "-w", "./one") == "n2"
    assert ran_on(c, "-F", "two") == "n[1-2]"
    rc, out, err = c.run("sbatch", "-F", "/nonexistent", "--wrap", "true")
    assert (rc, out, err) == (255, "", "sbatch: error: slurm_allocate_resources error "
                              "opening file /nonexistent, No such file or directory\n"
                              "sbatch: error: Invalid --nodefile node file\n")
    rc, out, err = c.run("sbatch", "-w", "/nonexistent", "--wrap", "true")
    assert (rc, out, err) == (1, "", "sbatch: error: slurm_allocate_resources error "
                              "opening file /nonexistent, No such file or directory\n")
