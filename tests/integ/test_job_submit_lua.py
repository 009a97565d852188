"""JobSubmitPlugins=lua: the site's job_submit.lua beside drover.conf, called
as Slurm calls it. A script that rewrites the partition (the job runs
there), refuses a job with slurm.user_msg (sbatch's Slurm lines, no job),
sets a comment and an account, refuses an update; a broken script (refused
jobs, ctld alive, `drover-ctld -t` names file:line), a script edited live,
and an endless loop cut off."""

import os

from conftest import BIN, run, pid_alive, wait_for

POLICY = """
function slurm_job_submit(job_desc, part_list, submit_uid)
   if job_desc.name == "to-gpu" then
      if part_list["gpu"] == nil then return slurm.ERROR end
      job_desc.partition = "gpu"
   elseif job_desc.name == "refuse-me" then
      slurm.user_msg("jobs named refuse-me are not allowed here")
      slurm.log_user("ask %s for help", "the admins")
      return slurm.ERROR
   elseif job_desc.name == "bad-account" then
      slurm.user_msg("no such project")
      return slurm.ESLURM_INVALID_ACCOUNT
   elseif job_desc.name == "tagged" then
      job_desc.comment = "checked by " .. job_desc.user_name
      job_desc.account = "physics"
      slurm.user_msg("tagged for physics")
   elseif job_desc.name == "loop" then
      while true do end
   end
   slurm.log_info("job_submit: %s accepted", job_desc.name)
   return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
   if job_desc.time_limit ~= slurm.NO_VAL and job_desc.time_limit > 60 then
      slurm.log_user("job %d: time limits above 60 minutes need the admins",
                     job_rec.job_id)
      return slurm.ERROR
   end
   return slurm.SUCCESS
end

return slurm.SUCCESS
"""


def write_script(c, text):
    """Replaces job_submit.lua at once (a new inode), as an editor's save."""
    tmp = c.dir / "job_submit.lua.new"
    tmp.write_text(text)
    os.replace(tmp, c.dir / "job_submit.lua")


def lua_cluster(make_cluster, script=POLICY):
    """Two nodes: partition debug (n1, the default) and gpu (n2)."""
    c = make_cluster(start=False, sets={
        "PartitionName": "debug Nodes=n1 Default=YES MaxTime=INFINITE State=UP",
        "JobSubmitPlugins": "lua"})
    write_script(c, script)
    c.up(extra=["--set", "PartitionName=gpu Nodes=n2 MaxTime=INFINITE State=UP"])
    return c


def submit(c, name, *args):
    return c.run("sbatch", "-J", name, *args, "--wrap", "true")


def test_rewritten_partition_is_where_the_job_runs(make_cluster):
    c = lua_cluster(make_cluster)
    jid = c.sbatch("-J", "to-gpu", "--wrap", "sleep 30")
    job = c.wait_state(jid, "RUNNING")
    assert job["Partition"] == "gpu" and job["NodeList"] == "n2"
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%P %N").split() == ["gpu", "n2"]
    other = c.sbatch("-J", "plain", "--wrap", "true")
    assert c.show_job(other)["Partition"] == "debug"
    assert "lua: job_submit: plain accepted" in c.log()


def test_refusal_prints_the_users_message_and_creates_no_job(make_cluster):
    c = lua_cluster(make_cluster)
    rc, out, err = submit(c, "refuse-me")
    assert (rc, out) == (1, "")
    assert err == ("sbatch: error: jobs named refuse-me are not allowed here\n"
                   "sbatch: error: ask the admins for help\n"
                   "sbatch: error: Batch job submission failed: Unspecified error\n")
    rc, out, err = submit(c, "bad-account")
    assert rc == 1 and err == (
        "sbatch: error: no such project\n"
        "sbatch: error: Batch job submission failed: "
        "Invalid account or account/partition combination specified\n")
    rc, out, err = c.run("srun", "-J", "refuse-me", "true")
    assert rc == 1 and err.endswith(
        "srun: error: ask the admins for help\n"
        "srun: error: Unable to allocate resources: Unspecified error\n")
    assert c.ok("squeue", "-h") == ""
    assert c.job_ids() == []
    # the refusals took no id: the next job gets the first one
    assert c.sbatch("-J", "plain", "--wrap", "true") == 1


def test_comment_and_account_set_by_the_script(make_cluster):
    c = lua_cluster(make_cluster)
    rc, out, err = submit(c, "tagged", "--hold")  # held: squeue lists it
    assert rc == 0 and out.startswith("Submitted batch job ")
    assert err == "sbatch: tagged for physics\n"
    jid = int(out.split()[-1])
    job = c.show_job(jid)
    user = job["UserId"].split("(")[0]
    assert job["Account"] == "physics"
    assert f"Comment=checked by {user}" in c.ok("scontrol", "show", "job", str(jid))
    assert c.ok("squeue", "-h", "-j", str(jid), "-o", "%a").strip() == "physics"


def test_modify_refuses_an_update(make_cluster):
    c = lua_cluster(make_cluster)
    jid = c.sbatch("-J", "held", "--hold", "-t", "5", "--wrap", "true")
    rc, out, err = c.run("scontrol", "update", f"JobId={jid}", "TimeLimit=120")
    assert (rc, out) == (1, "")
    assert err == (f"scontrol: error: job {jid}: time limits above 60 minutes "
                   f"need the admins\nUnspecified error for job {jid}\n")
    assert c.show_job(jid)["TimeLimit"] == "00:05:00"
    c.ok("scontrol", "update", f"JobId={jid}", "TimeLimit=30")
    assert c.show_job(jid)["TimeLimit"] == "00:30:00"


def test_syntax_error_refuses_jobs_and_ctld_stays_up(make_cluster):
    c = lua_cluster(make_cluster, "function slurm_job_submit(d, p, u)\n  x = = 1\nend\n")
    rc, out, err = submit(c, "plain")
    assert rc == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 2 and lines[0].startswith("sbatch: error: job_submit/lua: ")
    assert "job_submit.lua:2: unexpected symbol near '='" in lines[0]
    assert lines[1] == "sbatch: error: Batch job submission failed: Unspecified error"
    assert c.job_ids() == []
    assert pid_alive(c.pid("ctld"))
    assert c.ok("scontrol", "ping").count("UP") >= 1
    errors = [l for l in c.log().splitlines() if "error: job_submit/lua" in l]
    assert len(errors) == 1 and "job_submit.lua:2:" in errors[0]
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", c.conf])
    assert rc == 1 and "job_submit.lua:2: unexpected symbol near '='" in err
    write_script(c, POLICY)
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", c.conf])
    assert (rc, err) == (0, "")
    assert c.sbatch("-J", "plain", "--wrap", "true") >= 1


def test_missing_script_or_function_refuses(make_cluster):
    c = lua_cluster(make_cluster, "function slurm_job_submit(d, p, u) return 0 end\n")
    rc, out, err = submit(c, "plain")
    assert rc == 1 and "missing required function slurm_job_modify" in err
    os.unlink(c.dir / "job_submit.lua")
    rc, out, err = submit(c, "plain")
    assert rc == 1 and "cannot read" in err and "job_submit.lua" in err
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", c.conf])
    assert rc == 1 and "cannot read" in err
    assert c.job_ids() == []
    # a plugin Drover does not have is refused, never skipped
    bad = c.dir / "throttle.conf"
    good = c.conf.read_text()
    bad.write_text(good + "JobSubmitPlugins=lua,throttle\n")
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", bad])
    assert rc == 1
    assert f"{bad}:{len(good.splitlines()) + 1}" in err
    assert "JobSubmitPlugins: 'throttle' is not supported; Drover has lua" in err


def test_script_edited_live_is_reloaded(make_cluster):
    version = """
function slurm_job_submit(d, p, u) d.comment = "%s" return slurm.SUCCESS end
function slurm_job_modify(d, r, p, u) return slurm.SUCCESS end
"""
    c = lua_cluster(make_cluster, version % "first")
    first = c.sbatch("-J", "a", "--hold", "--wrap", "true")
    write_script(c, version % "second")
    second = c.sbatch("-J", "b", "--hold", "--wrap", "true")
    show = lambda jid: c.ok("scontrol", "show", "job", str(jid))
    assert "Comment=first" in show(first) and "Comment=second" in show(second)
    write_script(c, "this is not lua")
    rc, out, err = submit(c, "c")
    assert rc == 1 and "job_submit.lua:1:" in err
    write_script(c, version % "third")
    assert "Comment=third" in show(c.sbatch("-J", "d", "--hold", "--wrap", "true"))
    loads = [l for l in c.log().splitlines() if "job_submit/lua: loaded" in l]
    assert len(loads) == 3


def test_endless_loop_is_cut_off(make_cluster):
    c = lua_cluster(make_cluster)
    rc, out, err = submit(c, "loop")
    assert rc == 1
    assert "job_submit.lua:" in err and "ran past its limit of 20000000 Lua instructions" in err
    assert err.endswith("sbatch: error: Batch job submission failed: Unspecified error\n")
    assert c.job_ids() == []
    jid = c.sbatch("-J", "plain", "--wrap", "true")
    c.wait_done(jid)
    assert c.state(jid) == "COMPLETED"
