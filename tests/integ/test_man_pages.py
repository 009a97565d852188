"""Man pages, bash completions and what `make install` places: every program
the build makes has a man page (man1 for commands, man8 for daemons and
`drover`) and drover.conf(5) exists; each renders with `man -l` without
warnings and lists every option of the program's own getopt_long table
(read here from the program's sources, which `meson introspect` names, with
a plain regex, not with the generator); completion offers the options, the
partitions and the job ids of a running cluster; `meson install --destdir`
puts everything under share/ and lib/systemd/system."""

import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import BIN, ROOT, run

ROW = re.compile(r'\{\{?"([A-Za-z][\w-]*)",\s*(?:no|required|optional)_argument[^}]*\}'
                 r'(?:,\s*([SAB])\})?')


def programs():
    """{name: [source paths]} of every installed executable in the build."""
    rc, out, err = run(["meson", "introspect", "--targets", BIN])
    assert rc == 0, err
    progs = {}
    for t in json.loads(out):
        if t["type"] == "executable" and t["installed"] and t["subproject"] is None:
            srcs = [s for g in t["target_sources"] for s in g["sources"]]
            progs[t["name"]] = [pathlib.Path(s) for s in srcs if s.endswith(".c")]
    return progs


def table_options(name, sources):
    """The long options in the program's struct option tables."""
    want = {"srun": "SB", "salloc": "AB"}.get(name)
    opts = set()
    for src in sources:
        text = src.read_text(errors="replace")
        if "struct option" not in text:
            continue
        # src/cli holds every command: a command's own files are named after
        # it, and salloc shares srun's table
        if src.parent.name == "cli" and not (
                src.name.startswith(name) or (want and src.name == "srun_opts.c")):
            continue
        for m in ROW.finditer(text):
            if m.group(2) and want and m.group(2) not in want:
                continue
            opts.add("--" + m.group(1))
    return opts


def page(name):
    section = "8" if name.startswith("drover") else "1"
    return BIN / "man" / f"{name}.{section}"


def render(path):
    """The page as man prints it (wide, so lines are not justified), and the
    warnings groff gives at a terminal's usual 80 columns."""
    out = {}
    for width in ("80", "200"):
        env = dict(os.environ, MANWIDTH=width, MAN_KEEP_FORMATTING="0")
        p = subprocess.run(["man", "--warnings", "-l", str(path)], capture_output=True,
                           text=True, env=env, timeout=60)
        assert p.returncode == 0, p.stderr
        out[width] = (p.stdout, p.stderr)
    text = re.sub(r".\x08", "", out["200"][0])
    return text.replace("\u2010", "-").replace("\u2212", "-"), out["80"][1]


PROGS = programs() if (BIN / "build.ninja").exists() else {}


def test_every_program_has_a_page():
    assert {"sbatch", "srun", "salloc", "squeue", "scancel", "scontrol", "sinfo", "sacct",
            "sacctmgr", "sshare", "sprio", "drover-ctld", "drover-noded", "drover-shepherd",
            "drover-authd", "drover"} <= set(PROGS)
    missing = [n for n in PROGS if not page(n).exists()]
    assert not missing, f"no man page for {missing}"
    assert (BIN / "man" / "drover.conf.5").exists()


@pytest.mark.parametrize("name", sorted(PROGS))
def test_page_renders_and_lists_every_option(name):
    text, warnings = render(page(name))
    assert not warnings.strip(), warnings
    assert re.search(rf"^NAME\n\s+{re.escape(name)} - \S", text, re.M), text[:400]
    assert "SYNOPSIS" in text and "OPTIONS" in text
    opts = table_options(name, PROGS[name])
    assert opts, f"no option table found for {name}"
    listed = set(re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", text))
    assert opts <= listed, f"{name}(man) lacks {sorted(opts - listed)}"


def test_sbatch_page_keeps_help_words():
    text, _ = render(page("sbatch"))
    assert re.search(r"-J, --job-name=jobname\n\s+name of job", text)
    assert re.search(r"--wait-all-nodes=\S+\n\s+Accepted for compatibility with Slurm", text)


def test_drover_conf_page_lists_every_key():
    text, warnings = render(BIN / "man" / "drover.conf.5")
    assert not warnings.strip(), warnings
    keys = set()
    for f in ("src/common/conf_keys.c", "src/common/conf_part.c"):
        src = (ROOT / f).read_text()
        keys |= set(re.findall(r'\{"(\w+)", CONF_\w+', src))
        keys |= set(re.findall(r'\b(?:OTHER|PRIO|ONLY|NEVER)\("(\w+)"', src))
    assert {"SlurmdTimeout", "NodeName", "PartitionName", "PriorityType"} <= keys
    words = set(re.findall(r"^\s{7}(\w+)\b", text, re.M))
    assert keys <= words, f"drover.conf(5) lacks {sorted(keys - words)}"
    assert re.search(r"SlurmdTimeout\n\s+Value: an integer. Range 0 to 65533. Default: 300. "
                     r"Takes effect on reconfigure.", text)
    assert re.search(r"TaskPlugin\n\s+A slurm.conf key Drover does not act on; accepted "
                     r"with the values\s+harmless under Drover: task/affinity,\s+task/cgroup,"
                     r"\s+task/none\.", text), text


def complete(line, env):
    """What bash completion offers for line (cursor at its end)."""
    words = line.split(" ")
    name = words[0]
    script = (f'source {BIN}/man/{name}\n'
              f'COMP_WORDS=({" ".join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n'
              f'COMP_LINE={line!r}; COMP_POINT={len(line)}\n'
              f'_drover_{name.replace("-", "_")}\nprintf "%s\\n" "${{COMPREPLY[@]}}"\n')
    p = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True,
                       env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_completion_options_partitions_and_jobs(cluster):
    env = dict(cluster.env, PATH=f"{BIN}:{os.environ.get('PATH', '')}")
    assert {"--parsable", "--partition="} <= set(complete("sbatch --par", env))
    assert "--pty" in complete("srun --pt", env)
    assert complete("sbatch -p ", env) == ["debug"]
    assert complete("sbatch --partition=de", env) == ["--partition=debug"]
    jid = cluster.sbatch("--hold", "--wrap", "true")
    assert str(jid) in complete("scancel ", env)
    assert str(jid) in complete("squeue -j ", env)
    # scontrol: its commands, show's entities, then ids, nodes, partitions
    assert {"show", "update", "requeue", "top"} <= set(complete("scontrol ", env))
    assert complete("scontrol sh", env) == ["show"]
    assert {"jobs", "nodes", "partitions"} <= set(complete("scontrol show ", env))
    assert complete("scontrol show job ", env) == [str(jid)]
    assert complete("scontrol show node ", env) == ["n1", "n2"]
    assert complete("scontrol -d show partition ", env) == ["debug"]
    assert complete("scontrol release ", env) == [str(jid)]
    assert complete("scontrol update ", env) == ["JobId=", "NodeName=", "PartitionName="]
    # sacctmgr: its commands, then the entities
    assert {"add", "show", "modify", "delete"} <= set(complete("sacctmgr ", env))
    assert {"account", "user", "qos"} <= set(complete("sacctmgr -i add ", env))
    assert complete("sacctmgr show us", env) == ["user"]
    assert complete("sacctmgr show user ", env) == []


def test_man_finds_the_build_pages_after_drover_up(cluster):
    # `eval "$(drover up)"` from a build exports MANPATH=build/man:
    assert cluster.env.get("MANPATH", "").startswith(f"{BIN}/man:"), cluster.up_out
    for page, path in (("sbatch", "man1/sbatch.1"), ("drover.conf", "man5/drover.conf.5"),
                       ("drover-ctld", "man8/drover-ctld.8")):
        p = subprocess.run(["man", "-w", page], capture_output=True, text=True,
                           env=cluster.env, timeout=30)
        assert p.stdout.strip() == f"{BIN}/man/{path}", (page, p.stdout, p.stderr)


def test_scontrol_page_lists_its_commands():
    text, _ = render(page("scontrol"))
    commands = text[text.index("\nCOMMANDS\n"):text.index("\nFILES\n")]
    src = (ROOT / "src/cli/scontrol.c").read_text()
    words = set(re.findall(r'sctl_is_cmd\(cmd, "(\w+)"', src))
    assert {"show", "update", "requeue"} <= words
    for w in words:
        assert re.search(rf"^\s+{w}\b", commands, re.M), w
    assert re.search(r"suspend\n\s+JOBID\[,JOBID...\]: freeze \(suspend\)", commands)


def test_make_install_places_everything(tmp_path):
    """`make install DESTDIR=...`, with the build dir's own prefix kept."""
    rc, out, err = run(["meson", "introspect", "--buildoptions", BIN])
    prefix = next(o["value"] for o in json.loads(out) if o["name"] == "prefix")
    dest = tmp_path / "dest"
    rc, out, err = run(["make", "-C", ROOT, "install", f"BUILD={BIN}", f"PREFIX={prefix}",
                        f"DESTDIR={dest}"], timeout=600)
    assert rc == 0, out + err
    assert (dest / prefix.lstrip("/") / "bin" / "sbatch").exists()
    found = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}

    def has(suffix):
        return any(f.endswith(suffix) for f in found)

    for name in PROGS:
        section = "8" if name.startswith("drover") else "1"
        assert has(f"/share/man/man{section}/{name}.{section}"), name
        assert has(f"/share/bash-completion/completions/{name}"), name
        assert has(f"/bin/{name}"), name
    assert has("/share/man/man5/drover.conf.5")
    if (BIN / "pam_drover_adopt.so").exists():  # built where libpam is
        assert has("/security/pam_drover_adopt.so")
    assert has("/share/drover/drover.conf.example")
    for unit in ("drover-ctld.service", "drover-noded@.service", "drover-authd.service"):
        assert has(f"/lib/systemd/system/{unit}"), unit
    example = next(dest.rglob("drover.conf.example")).read_text()
    assert "#SlurmdTimeout=300" in example and "NodeName=n[1-2]" in example


def test_example_conf_loads(tmp_path):
    """The example drover.conf is a config drover-ctld -t accepts (with a key)."""
    key = tmp_path / "drover.key"
    rc, out, err = run([BIN / "drover", "keygen", key])
    assert rc == 0, err
    text = (BIN / "man" / "drover.conf.example").read_text()
    assert "key=/etc/drover/drover.key" in text
    conf = tmp_path / "drover.conf"
    conf.write_text(text.replace("key=/etc/drover/drover.key", f"key={key}"))
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", conf])
    assert rc == 0, out + err
    bad = tmp_path / "bad.conf"
    bad.write_text(conf.read_text().replace("CPUs=4", "CPUs=0"))
    rc, out, err = run([BIN / "drover-ctld", "-t", "-f", bad])
    assert rc != 0 and "CPUs" in err
