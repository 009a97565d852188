"""srun --pty: task 0 on a real pseudo-terminal, driven from a real one.

The client side is a pty pair made here: srun's stdin, stdout and stderr
are its slave, the test types into and reads from its master, as a user's
terminal emulator does. Slurm 22.05's srun behaves the same: `tty` prints a
/dev/pts name, only task 0's output is shown, an `exit 3` is srun's 3."""
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time

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
        wait_for(ended, timeout, interval=0, what="srun's end")
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
        raw = termios.tcgetattr(t.slave)
        assert not raw[3] & termios.ICANON and not raw[3] & termios.ECHO
        # the task's stdin is a terminal, its own pseudo-terminal
        t.command("tty", rb"[\r\n]/dev/pts/\d+\r\n")
        t.command("test -t 0 && test -t 1 && echo T$((6*7))", rb"T42\r\n")
        t.command("echo E$((1+1)) $SLURM_PTY_PORT", rb"E2 \d+\r\n")
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
        # the shell's exit code is srun's
        t.type("exit 3\r")
        assert t.wait() == 3, t.out
        # and the local terminal is as it was before srun
        assert termios.tcgetattr(t.slave) == t.mode_before
    finally:
        t.close()


def test_terminal_restored_when_srun_is_hung_up(make_cluster):
    """A hang-up (the user's terminal closed) reaches the remote shell,
    which ends; srun exits 128+1 and leaves the terminal as it found it."""
    c = up(make_cluster)
    t = Terminal(c, [str(c.bin / "srun"), "--pty", "bash", "--norc", "--noprofile"])
    try:
        t.expect(re.escape(PS1.encode()))
        assert termios.tcgetattr(t.slave) != t.mode_before  # raw now
        t.proc.send_signal(signal.SIGHUP)
        assert t.wait() == 129, t.out
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


def test_pty_without_a_local_terminal(make_cluster):
    """stdin a pipe: no raw mode to set, the task still gets a terminal."""
    c = up(make_cluster)
    rc, out, err = c.run("srun", "--pty", "bash", "--norc", "--noprofile",
                         input="tty; test -t 0 && echo T$((6*7)); exit 4\n")
    assert rc == 4, (out, err)
    # (text mode: the remote terminal's CR LF reads as one newline)
    assert re.search(r"\n/dev/pts/\d+\nT42\n", out), out
