"""SLURM_TIME_FORMAT: every command prints its dates with it, as Slurm's
slurm_make_time_str does (strftime formats, "relative", "standard")."""

import re

from conftest import parse_fields


def test_every_command_prints_dates_with_slurm_time_format(cluster):
    c = cluster
    jid = c.sbatch("-H", "--wrap", "true")
    standard = c.show_job(jid)["SubmitTime"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", standard), standard

    env = dict(c.env, SLURM_TIME_FORMAT="%s")
    epoch = parse_fields(c.ok("scontrol", "show", "job", str(jid), env=env))["SubmitTime"]
    assert epoch.isdigit(), epoch
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%V", env=env).strip() == epoch
    assert c.ok("sacct", "-n", "-P", "-X", "-o", "Submit", "-j", str(jid),
                env=env).strip() == epoch

    # "relative": a date of today is its time of day alone
    env = dict(c.env, SLURM_TIME_FORMAT="relative")
    today = parse_fields(c.ok("scontrol", "show", "job", str(jid), env=env))["SubmitTime"]
    assert today == standard.split("T")[1]
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%V", env=env).strip() == today
    c.ok("scancel", str(jid))
