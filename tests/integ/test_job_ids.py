"""FirstJobId and MaxJobId: ids run from FirstJobId up to, not including,
MaxJobId (as Slurm's get_next_job_id issues them), then round again from
FirstJobId, skipping every id that still has a record in memory or in the
accounting history; with none left a submission fails with one clear line
and changes nothing; a ctld restart (kill -9) goes on from the persisted next
id and still skips the ids in use."""

import re

from conftest import wait_for
from test_acct_store import acct, forgotten_by_scontrol


def held(c):
    return c.sbatch("-H", "--wrap", "true")


def refused(c):
    before = c.job_ids()
    rc, out, err = c.run("sbatch", "-H", "--wrap", "true")
    assert rc != 0, out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Unable to allocate a job id" in lines[0], err
    assert c.job_ids() == before  # nothing changed
    return lines[0]


def purged(c, *jids):
    for jid in jids:
        c.ok("scancel", str(jid))
    wait_for(lambda: all(acct(c, job_ids=[j]) == [] for j in jids), 30,
             what=f"PurgeJobAfter to remove {jids} from the history")


def test_ids_go_round_skip_those_in_use_and_survive_a_crash(make_cluster):
    c = make_cluster(nodes=1, sets={"FirstJobId": "100", "MaxJobId": "104",
                                    "MinJobAge": "1", "PurgeJobAfter": "2seconds"})
    conf = c.ok("scontrol", "show", "config")
    assert re.search(r"^FirstJobId\s+= 100$", conf, re.M), conf
    assert re.search(r"^MaxJobId\s+= 104$", conf, re.M), conf

    assert [held(c) for _ in range(4)] == [100, 101, 102, 103]  # 104 never
    line = refused(c)
    assert "FirstJobId=100" in line and "MaxJobId=104" in line

    # 101 leaves memory and history: the round comes back to it, past 100
    purged(c, 101)
    assert held(c) == 101
    refused(c)

    # the next id (102) is stored with the jobs: after a crash the round goes
    # on from there, to 103, before it comes round to 100
    purged(c, 100, 103)
    c.kill9("ctld")
    c.up()  # restarts only ctld
    assert held(c) == 103
    assert held(c) == 100
    refused(c)
    assert c.job_ids() == [100, 101, 102, 103]


def test_an_id_in_the_history_is_not_issued_again(make_cluster):
    c = make_cluster(nodes=1, sets={"FirstJobId": "7", "MaxJobId": "9",
                                    "MinJobAge": "1"})
    ran = c.sbatch("--wrap", "true")
    assert ran == 7
    assert held(c) == 8
    wait_for(lambda: forgotten_by_scontrol(c, ran), 30,
             what="MinJobAge to drop the finished job from memory")
    assert [j["state"] for j in acct(c, job_ids=[ran])] == ["COMPLETED"]
    refused(c)  # sacct still reports on 7: it is not reissued
    assert [j["job_id"] for j in acct(c, job_ids=[7, 8])] == [7, 8]


def test_a_range_with_no_id_is_refused(make_cluster):
    c = make_cluster(sets={"FirstJobId": "5", "MaxJobId": "5"}, start=False)
    rc, out, err = c.drover("up", "--dir", c.dir, "--nodes", "1", "--set",
                            "FirstJobId=5", "--set", "MaxJobId=5")
    assert rc != 0
    assert "FirstJobId=5 must be below MaxJobId=5" in out + err
