"""test_gen.py — the protocol generator refuses a bad declaration with one
line naming the file, the line and what is wrong (meson runs it as a unit
test, with the Python meson runs on)."""
import os
import subprocess
import sys
import tempfile
import unittest

GEN = os.path.join(os.path.dirname(__file__), "..", "..", "src", "proto", "gen.py")


def run(text):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.schema")
        with open(path, "w") as fh:
            fh.write(text)
        out = os.path.join(d, "out.h")
        p = subprocess.run([sys.executable, GEN, "--header", out, path],
                           capture_output=True, text=True)
        return p.returncode, p.stderr, os.path.exists(out)


class BadSchema(unittest.TestCase):
    def refused(self, text, want):
        rc, err, wrote = run(text)
        self.assertEqual(rc, 1, err)
        self.assertFalse(wrote, "wrote output for a bad schema")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn(want, err)

    def test_good_one_passes(self):
        rc, err, wrote = run("object a\n  x u32 req 1..10\n")
        self.assertEqual((rc, err, wrote), (0, "", True))

    def test_unknown_type(self):
        self.refused("object a\n  x nosuch req\n", "bad.schema:2: unknown type 'nosuch'")

    def test_range_outside_c_type(self):
        self.refused("object a\n  x u16 req 0..70000\n", "bad.schema:2: range 0..70000 does not fit u16")

    def test_default_not_json(self):
        self.refused("object a\n  x str = ALL\n", "bad.schema:2: default ALL is not JSON")

    def test_required_with_default(self):
        self.refused("object a\n  x u32 req = 1\n", "bad.schema:2: a required field has no default")

    def test_field_twice(self):
        self.refused("object a\n  x u32 req\n  x u32 opt\n", "bad.schema:3: field 'x' declared twice")

    def test_shape_twice(self):
        self.refused("object a\n  x u32 req\nobject a\n  y u32 req\n",
                     "bad.schema:3: object a declared twice")

    def test_reply_without_request(self):
        self.refused("reply job.nope\n  x u32 req\n", "bad.schema:1: reply to undeclared request job.nope")

    def test_self_containing(self):
        self.refused("object a\n  b a opt\n", "bad.schema:1: a contains itself")

    def test_bound_not_integer(self):
        self.refused("object a\n  x u32 req 0..__import__\n", "bad.schema:2: bound '__import__' is not an integer expression")

    def test_field_outside_shape(self):
        self.refused("  x u32 req\n", "bad.schema:1: a field outside any shape")

    def test_unexpected_token(self):
        self.refused("object a\n  x u32 req sometimes\n", "bad.schema:2: unexpected 'sometimes'")

    def test_bad_header(self):
        self.refused("message a\n", "bad.schema:1: expected const, request, reply, push, object or record")


if __name__ == "__main__":
    unittest.main()
