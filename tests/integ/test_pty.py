"""srun --pty: task 0 on a real pseudo-terminal, driven from a real one.

The client side is a pty pair made here: srun's stdin, stdout and stderr
are its slave, the test types into and reads from its master, as a user's
terminal emulator does. Slurm 22.05's srun behaves the same: `tty` prints a
/dev/pts name, only task 0's output is shown, an `exit 3` is srun's 3."""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios

from conftest import wait_for

PS1 = "drv$ "


def up(make_cluster, nodes=1):
    c = make_cluster(nodes=nodes, start=False)
    c.up(extra=["--cpus", "2"])
    return c


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Terminal:
    """A local terminal running one command; collects all it prints."""

    def __init__(self, c, argv, rows=30, cols=100):
        self.master, self.slave = os.openpty()
        set_size(self.slave, rows, cols)
        self.mode_before = termios.tcgetattr(self.slave)
        env = dict(c.env, PS1=PS1, TERM="xterm")
        self.proc = subprocess.Popen(argv, stdin=self.slave, stdout=self.slave,
                                     stderr=self.slave, env=env, cwd=c.work,
                                     start_new_session=True)
        self.out = b""

    def read_some(self, timeout=0.2):
        r, _, _ = select.select([self.master], [], [], timeout)
        if r:
            try:
                self.out += os.read(self.master, 65536)
            except OSError:
                pass

    def expect(self, pattern, timeout=30, since=0):
        """Waits until pattern (bytes regex) shows in the output after since."""
        rx = re.compile(pattern)

        def seen():
            self.read_some()
            return rx.search(self.out, since)
        return wait_for(seen, timeout, interval=0, what=f"{pattern!r} in {self.out!r}")

    def type(self, text):
        os.write(self.master, text if isinstance(text, bytes) else text.encode())

    def command(self, text, pattern, timeout=30):
        mark = len(self.out)
        self.type(text + "\r")
        return self.expect(pattern, timeout, since=mark)

    def wait(self, timeout=30):
        def ended():
            self.read_some(0.05)
            return self.proc.poll() is not None
        wait_for(ended, timeout, interval=0, what=f"srun's end after {self.out!r}")
        self.read_some(0.05)
        return self.proc.returncode

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)
        os.close(self.slave)


def procs_running(cmd):
    """Pids of processes whose command line is cmd (a list)."""
    want = "\0".join(cmd) + "\0"
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline") as f:
                if f.read() == want:
                    found.append(int(pid))
        except OSError:
            pass
    return found


def proc_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_interactive_shell_on_a_pty(make_cluster):
    c = up(make_cluster)
    t = Terminal(c, [str(c.bin / "srun"), "--pty", "bash", "--norc", "--noprofile"])
    try:
        t.expect(re.escape(PS1.encode()))
        # srun's terminal is raw while the step runs: keys travel as bytes
        # (cfmakeraw's, as Slurm 22.05's srun sets it)
        raw = termios.tcgetattr(t.slave)
        assert not raw[3] & (termios.ICANON | termios.ECHO | termios.ISIG)
        assert not raw[0] & (termios.ICRNL | termios.IXON)
        assert not raw[1] & termios.OPOST
        assert (raw[6][termios.VMIN], raw[6][termios.VTIME]) == (1, 0)
        # the task's stdin is a terminal, its own pseudo-terminal
        t.command("tty", rb"[\r\n]/dev/pts/\d+\r\n")
        t.command("test -t 0 && test -t 1 && echo T$((6*7))", rb"T42\r\n")
        t.command("echo E$((1+1)) $SLURM_PTY_PORT", rb"E2 \d+\r\n")
        t.command("echo W$SLURM_PTY_WIN_ROW.$SLURM_PTY_WIN_COL", rb"W30\.100\r\n")
        # the size srun's terminal had, then the new one after SIGWINCH
        t.command("stty size | sed s/^/SZ/", rb"SZ30 100\r\n")
        set_size(t.slave, 40, 120)
        t.proc.send_signal(signal.SIGWINCH)
        wait_for(lambda: t.command("stty size | sed s/^/SZ/", rb"SZ(\d+) (\d+)\r\n")
                 .group(0) == b"SZ40 120\r\n", 20, what="the new size")
        # ^C typed here interrupts the remote foreground job, not the shell
        t.type("sleep 4242\r")
        pids = wait_for(lambda: procs_running(["sleep", "4242"]), 20,
                        what="the remote sleep")
        t.type(b"\x03")
        wait_for(lambda: not any(proc_state(p) not in (None, "Z") for p in pids),
                 20, what="the sleep interrupted")
        t.command("echo ALIVE$((2+3))", rb"ALIVE5\r\n")
        # ^Z stops it, as a terminal's job control does
        t.type("sleep 4343\r")
        pids = wait_for(lambda: procs_running(["sleep", "4343"]), 20,
                        what="the second sleep")
        t.type(b"\x1a")
        wait_for(lambda: proc_state(pids[0]) == "T", 20, what="the sleep stopped")
        t.expect(rb"Stopped")
        t.command("kill -9 %1; echo K$((3+4))", rb"K7\r\n")
        # reaped by the shell: then it has no stopped job to refuse exit for
        wait_for(lambda: proc_state(pids[0]) is None, 20, what="the sleep reaped")
        # the shell's exit code is srun's
        t.type("exit 3\r")
        assert t.wait() == 3, t.out
        # and the local terminal is as it was before srun
        assert termios.tcgetattr(t.slave) == t.mode_before
    finally:
        t.close()


def test_terminal_restored_when_srun_is_hung_up(make_cluster):
    """A hang-up (the user's terminal closed) makes srun end the step, as
    Slurm's does ("forcing job termination", the task killed, exit 137),
    and leave the terminal as it found it. (Not an interactive bash: its
    readline can miss a signal that comes just before it waits for a
    key.)"""
    c = up(make_cluster)
    t = Terminal(c, [str(c.bin / "srun"), "--pty", "sleep", "4545"])
    try:
        wait_for(lambda: procs_running(["sleep", "4545"]), 20, what="the sleep")
        assert termios.tcgetattr(t.slave) != t.mode_before  # raw now
        t.proc.send_signal(signal.SIGHUP)
        assert t.wait() == 137, t.out
        assert t.out.startswith(b"srun: forcing job termination\n"), t.out
        assert termios.tcgetattr(t.slave) == t.mode_before
    finally:
        t.close()


def test_only_task_zero_on_the_pty(make_cluster):
    """-n2: task 0 on the terminal; the other task's output is dropped, as
    Slurm sends it to /dev/null."""
    c = up(make_cluster)
    t = Terminal(c, [str(c.bin / "srun"), "--pty", "-n2", "bash", "-c",
                     "echo T$SLURM_PROCID; tty; test -t 0 || echo NOTTY; "
                     "[ $SLURM_PROCID = 0 ] && exit 5; exit 0"])
    try:
        assert t.wait() == 5, t.out
        assert re.search(rb"T0\r\n/dev/pts/\d+\r\n", t.out), t.out
        assert b"T1" not in t.out and b"NOTTY" not in t.out, t.out
        # srun's line ends with CR LF on the raw terminal, as Slurm's
        assert t.out.endswith(b"srun: error: n1: task 0: Exited with exit code 5\r\n")
        assert termios.tcgetattr(t.slave) == t.mode_before
    finally:
        t.close()


def test_pty_from_salloc(make_cluster):
    c = up(make_cluster)
    t = Terminal(c, [str(c.bin / "salloc"), "-N1", str(c.bin / "srun"), "--pty",
                     "bash", "--norc", "--noprofile"])
    try:
        t.expect(re.escape(PS1.encode()))
        t.command("tty; echo J$SLURM_JOB_ID", rb"/dev/pts/\d+\r\nJ\d+\r\n")
        t.type("exit 3\r")
        assert t.wait() == 3, t.out
        assert b"Relinquishing job allocation" in t.out
        assert termios.tcgetattr(t.slave) == t.mode_before
    finally:
        t.close()


def test_salloc_shell_then_srun_pty(make_cluster):
    """The everyday way: salloc's interactive shell on the user's terminal
    (its controlling one), `srun --pty bash` typed in it, then back."""
    c = up(make_cluster)
    env = dict(c.env, TERM="xterm")
    pid, master = pty.fork()
    if pid == 0:
        os.chdir(c.work)
        os.execve(str(c.bin / "salloc"), ["salloc", "-N1"], env)
    out = b""

    def expect(pattern, since):
        def seen():
            nonlocal out
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    pass
            return re.search(pattern, out[since:])
        try:
            return wait_for(seen, 30, interval=0, what=repr(pattern))
        except AssertionError as e:
            raise AssertionError(f"{e} in {out!r}") from None

    def command(text, pattern):
        mark = len(out)
        os.write(master, text.encode() + b"\r")
        return expect(pattern, mark)
    try:
        expect(rb"salloc: Granted job allocation \d+\r\n", 0)
        # the user's own shell (salloc runs it): a prompt of ours first
        prompt = rb"(\n|\r|\x1b\[\?2004h)OUTER\$ "
        command("PS1='OUTER$ '", prompt)
        command("PS1='INNER$ ' srun --pty bash --norc --noprofile",
                rb"(\n|\r|\x1b\[\?2004h)INNER\$ ")
        command("tty; echo X$((1+2))", rb"[\r\n]/dev/pts/\d+\r\nX3\r\n")
        os.write(master, b"sleep 4646\r")
        pids = wait_for(lambda: procs_running(["sleep", "4646"]), 20, what="the sleep")
        os.write(master, b"\x03")
        wait_for(lambda: all(proc_state(p) in (None, "Z") for p in pids), 20,
                 what="the sleep interrupted")
        command("exit 3", rb"srun: error: n1: task 0: Exited with exit code 3\r\n"
                rb"(.|\n)*" + prompt)
        command("echo rc=$?", rb"rc=3\r\n")
        command("exit", rb"salloc: Relinquishing job allocation \d+\r\n")
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        pid = 0
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(master)


def test_pty_with_stdin_not_a_terminal(make_cluster):
    """stdin /dev/null, stdout a terminal: the task still gets a pty (of
    stdout's size); srun's terminal is left in its mode, so its output
    processing turns the remote CR LF into CR CR LF, and srun's own line
    to stderr (a pipe here) ends in CR LF, as with Slurm's."""
    c = up(make_cluster)
    master, slave = os.openpty()
    set_size(slave, 30, 100)
    before = termios.tcgetattr(slave)
    try:
        p = subprocess.Popen([str(c.bin / "srun"), "--pty", "bash", "-c",
                              "tty; stty size; exit 4"], stdin=subprocess.DEVNULL,
                             stdout=slave, stderr=subprocess.PIPE, env=c.env,
                             cwd=c.work, start_new_session=True)
        out = b""

        def ended():
            nonlocal out
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                out += os.read(master, 65536)
            return p.poll() is not None and not r
        wait_for(ended, 30, interval=0, what="srun's end")
        assert p.returncode == 4, out
        assert re.fullmatch(rb"/dev/pts/\d+\r\r\n30 100\r\r\n", out), out
        assert p.stderr.read() == b"srun: error: n1: task 0: Exited with exit code 4\r\n"
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_pty_disregarded_without_a_terminal(make_cluster):
    """stdout not a terminal: Slurm's two lines, and the step runs without
    a pty."""
    c = up(make_cluster)
    rc, out, err = c.run("srun", "--pty", "bash", "-c", "tty; exit 4")
    assert rc == 4, (out, err)
    assert out == "not a tty\n"
    assert err == ("srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\n"
                   "srun: error: Not using a pseudo-terminal, disregarding --pty option\n"
                   "srun: error: n1: task 0: Exited with exit code 4\n")
