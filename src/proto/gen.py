#!/usr/bin/env python3
"""gen.py — the protocol's code, from its one declaration (src/proto/*.schema).

Reads every schema file named on the command line and writes:
  proto_gen.h   one C struct per declared shape, its table, typed wrappers
  proto_gen.c   the tables (field names, types, bounds, defaults, offsets)
  proto_gen.md  the reference of every message and record (docs/schema.md)
  test_proto_gen.c  a round-trip unit test per shape (tests/unit)

The schema language (docs/schema.md explains it for readers):

  const NAME VALUE              a bound usable in ranges (integer expression)
  request TYPE  # doc           a message's body; TYPE is "job.submit" etc.
  reply TYPE    # doc           the body of the reply to request TYPE
  push TYPE     # doc           a message ctld pushes on a held connection
  object NAME   # doc           a shape used inside others (a field's type)
  record NAME   # doc           a stored or returned record (an object too)
    FIELD TYPE [req|opt|= JSON] [LO..HI] [len LO..HI] [FLAG...]  # doc

TYPE: i16 u16 i32 u32 i64 u64 int (= i64), bool, str, hex (64 hex digits),
enum(a|b|c), json (any value, kept as is), an object's NAME; any of these
followed by [] is an array of it. FLAG: stored (kept in the store), user
(returned to users), private (never returned), from=SIDE (who may set it).
No third-party modules: meson runs it with the Python it runs on.
"""
import argparse
import json
import os
import re
import sys

INT_TYPES = {
    "i16": ("int16_t", -(1 << 15), (1 << 15) - 1),
    "u16": ("uint16_t", 0, (1 << 16) - 1),
    "i32": ("int32_t", -(1 << 31), (1 << 31) - 1),
    "u32": ("uint32_t", 0, (1 << 32) - 1),
    "i64": ("int64_t", -(1 << 63), (1 << 63) - 1),
    "int": ("int64_t", -(1 << 63), (1 << 63) - 1),
    "u64": ("uint64_t", 0, (1 << 63) - 1),  # JSON integers are signed 64-bit
}
FLAGS = ("stored", "user", "private")
SIDES = ("client", "ctld", "noded", "authd", "shepherd")
C_KEYWORDS = {"default", "int", "char", "long", "short", "unsigned", "signed",
              "struct", "union", "enum", "const", "static", "register", "auto",
              "switch", "case", "for", "while", "do", "if", "else", "return",
              "goto", "break", "continue", "sizeof", "typedef", "void",
              "volatile", "extern", "float", "double", "inline", "restrict",
              "bool", "true", "false"}


class SchemaError(Exception):
    pass


class Field:
    def __init__(self, name, where):
        self.name = name
        self.where = where
        self.base = None      # int kind, bool, str, hex, enum, json, or object
        self.array = False
        self.ctype = None
        self.sub = None       # Shape, for objects
        self.req = False
        self.default = None   # JSON text
        self.lo = self.hi = None
        self.minlen = 0
        self.maxlen = 0
        self.choices = None
        self.flags = []
        self.side = None
        self.doc = ""

    @property
    def cname(self):
        return self.name + "_" if self.name in C_KEYWORDS else self.name

    @property
    def has_flag(self):
        """Whether the struct carries has_NAME: optional, no default, and a
        type whose absence the value itself cannot show."""
        if self.req or self.default is not None:
            return False
        return self.array or self.base in ("int", "bool", "object")


class Shape:
    def __init__(self, kind, name, where, doc):
        self.kind = kind
        self.name = name
        self.where = where
        self.doc = doc
        self.fields = []

    @property
    def cname(self):
        base = self.name.replace(".", "_").replace("-", "_")
        if self.kind == "reply":
            return base + "_reply"
        if self.kind in ("object", "record"):
            return "rec_" + base
        return base


def split_comment(line):
    """Splits 'code  # doc' outside quotes."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i], line[i + 1:].strip()
    return line, ""


def tokens(code):
    return re.findall(r'"(?:[^"\\]|\\.)*"|\[\]|\S+', code)


def eval_bound(text, consts, where):
    expr = text
    for name in sorted(consts, key=len, reverse=True):
        expr = re.sub(r"\b%s\b" % re.escape(name), "(%d)" % consts[name], expr)
    if not re.fullmatch(r"[0-9()+\-*<> ]+", expr):
        raise SchemaError("%s: bound '%s' is not an integer expression" % (where, text))
    try:
        return int(eval(expr, {"__builtins__": {}}))  # digits and operators only
    except Exception:
        raise SchemaError("%s: bound '%s' does not evaluate" % (where, text))


def parse_range(text, consts, where):
    lo, sep, hi = text.partition("..")
    if not sep:
        raise SchemaError("%s: '%s' is not a range LO..HI" % (where, text))
    return (eval_bound(lo, consts, where) if lo else None,
            eval_bound(hi, consts, where) if hi else None)


def parse_field(code, doc, where, consts):
    toks = tokens(code)
    if len(toks) < 2:
        raise SchemaError("%s: a field needs a name and a type" % where)
    f = Field(toks[0], where)
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", f.name):
        raise SchemaError("%s: field name '%s' is not lower_case" % (where, f.name))
    t = toks[1]
    if t.endswith("[]"):
        f.array, t = True, t[:-2]
    m = re.fullmatch(r"enum\(([^)]*)\)", t)
    if m:
        f.base, f.choices = "enum", m.group(1)
        f.maxlen = 64
    elif t in INT_TYPES:
        f.base = "int"
        f.ctype, f.lo, f.hi = INT_TYPES[t]
    elif t in ("bool", "str", "hex", "json"):
        f.base = t
    else:
        f.base, f.sub = "object", t  # resolved once every shape is read
    f.doc = doc
    i = 2
    while i < len(toks):
        tok = toks[i]
        if tok in ("req", "opt"):
            f.req = tok == "req"
        elif tok == "=":
            if i + 1 >= len(toks):
                raise SchemaError("%s: '=' needs a default value" % where)
            i += 1
            f.default = toks[i]
            try:
                json.loads(f.default)
            except ValueError:
                raise SchemaError("%s: default %s is not JSON" % (where, f.default))
        elif tok == "len":
            if i + 1 >= len(toks):
                raise SchemaError("%s: 'len' needs LO..HI" % where)
            i += 1
            lo, hi = parse_range(toks[i], consts, where)
            f.minlen, f.maxlen = lo or 0, hi or 0
        elif ".." in tok:
            lo, hi = parse_range(tok, consts, where)
            if f.base != "int":
                raise SchemaError("%s: a range needs an integer type" % where)
            tlo, thi = INT_TYPES[t][1], INT_TYPES[t][2]
            f.lo = tlo if lo is None else lo
            f.hi = thi if hi is None else hi
            if f.lo < tlo or f.hi > thi or f.lo > f.hi:
                raise SchemaError("%s: range %s does not fit %s" % (where, tok, t))
        elif tok in FLAGS:
            f.flags.append(tok)
        elif tok.startswith("from="):
            f.side = tok[5:]
            if f.side not in SIDES:
                raise SchemaError("%s: unknown side '%s'" % (where, f.side))
        else:
            raise SchemaError("%s: unexpected '%s'" % (where, tok))
        i += 1
    if f.req and f.default is not None:
        raise SchemaError("%s: a required field has no default" % where)
    return f


def parse_consts(paths):
    """Every file's consts first, so that files may come in any order."""
    consts = {}
    for path in paths:
        with open(path) as fh:
            for n, raw in enumerate(fh, 1):
                toks = tokens(split_comment(raw)[0])
                if toks and toks[0] == "const" and not raw[0].isspace():
                    if len(toks) != 3:
                        raise SchemaError("%s:%d: const NAME VALUE" % (path, n))
                    where = "%s:%d" % (os.path.basename(path), n)
                    consts[toks[1]] = eval_bound(toks[2], consts, where)
    return consts


def parse(paths):
    consts, shapes = parse_consts(paths), []
    cur = None
    for path in paths:
        with open(path) as fh:
            for n, raw in enumerate(fh, 1):
                where = "%s:%d" % (os.path.basename(path), n)
                code, doc = split_comment(raw.rstrip("\n"))
                if not code.strip():
                    if cur is not None and doc and not cur.fields and raw.startswith(" "):
                        cur.doc = (cur.doc + " " + doc).strip()
                    continue
                if not raw[0].isspace():
                    toks = tokens(code)
                    if toks[0] == "const" and len(toks) == 3:
                        cur = None
                    elif toks[0] in ("request", "reply", "push", "object", "record") \
                            and len(toks) == 2:
                        cur = Shape(toks[0], toks[1], where, doc)
                        shapes.append(cur)
                    else:
                        raise SchemaError("%s: expected const, request, reply, push, "
                                          "object or record" % where)
                    continue
                if cur is None:
                    raise SchemaError("%s: a field outside any shape" % where)
                f = parse_field(code, doc, where, consts)
                if any(g.name == f.name for g in cur.fields):
                    raise SchemaError("%s: field '%s' declared twice" % (where, f.name))
                cur.fields.append(f)
    names = {}
    for s in shapes:
        key = (s.kind if s.kind in ("reply",) else "obj" if s.kind in ("object", "record")
               else "msg", s.name)
        if key in names:
            raise SchemaError("%s: %s %s declared twice (first at %s)"
                              % (s.where, s.kind, s.name, names[key].where))
        names[key] = s
    objects = {s.name: s for s in shapes if s.kind in ("object", "record")}
    for s in shapes:
        for f in s.fields:
            if f.base == "object":
                if f.sub == "json":
                    continue
                if f.sub not in objects:
                    raise SchemaError("%s: unknown type '%s'" % (f.where, f.sub))
                f.sub = objects[f.sub]
    requests = {s.name for s in shapes if s.kind == "request"}
    for s in shapes:
        if s.kind == "reply" and s.name not in requests:
            raise SchemaError("%s: reply to undeclared request %s" % (s.where, s.name))
    return consts, order_objects(shapes)


def order_objects(shapes):
    """Objects before the shapes that embed them (C needs complete types)."""
    done, out = set(), []

    def visit(s, stack):
        if id(s) in done:
            return
        if id(s) in stack:
            raise SchemaError("%s: %s contains itself" % (s.where, s.name))
        for f in s.fields:
            if isinstance(f.sub, Shape):
                visit(f.sub, stack | {id(s)})
        done.add(id(s))
        out.append(s)

    for s in shapes:
        visit(s, set())
    return out


# --- C ----------------------------------------------------------------------

def c_member(f):
    if f.base == "int":
        t = f.ctype
    elif f.base == "bool":
        t = "bool"
    elif f.base in ("str", "hex", "enum"):
        t = "const char *"
    elif f.base == "json" or (f.base == "object" and not isinstance(f.sub, Shape)):
        t = "json_t *"
    else:
        t = "struct drv_%s " % f.sub.cname
    if f.array:
        if f.base == "json":
            t = "json_t *"
        lines = ["\t%s*%s;" % (t if t.endswith(("*", " ")) else t + " ", f.cname),
                 "\tsize_t n_%s;" % f.name]
    else:
        lines = ["\t%s%s;" % (t if t.endswith(("*", " ")) else t + " ", f.cname)]
    if f.has_flag:
        lines.append("\tbool has_%s;" % f.name)
    return lines


FTYPE = {"int": "DRV_F_INT", "bool": "DRV_F_BOOL", "str": "DRV_F_STR", "enum": "DRV_F_STR",
         "hex": "DRV_F_HEX", "json": "DRV_F_JSON", "object": "DRV_F_OBJ"}
CINT = {"int8_t": "DRV_C_I8", "int16_t": "DRV_C_I16", "uint16_t": "DRV_C_U16",
        "int32_t": "DRV_C_I32", "uint32_t": "DRV_C_U32", "int64_t": "DRV_C_I64",
        "uint64_t": "DRV_C_U64"}


def c_string(s):
    return json.dumps(s)


def c_field(s, f):
    sub = f.sub if isinstance(f.sub, Shape) else None
    ftype = "DRV_F_JSON" if f.base == "object" and not sub else FTYPE[f.base]
    parts = [".name = %s" % c_string(f.name), ".type = %s" % ftype,
             ".off = offsetof(struct drv_%s, %s)" % (s.cname, f.cname)]
    if f.array:
        parts.append(".array = true")
        parts.append(".n_off = offsetof(struct drv_%s, n_%s)" % (s.cname, f.name))
    if f.has_flag:
        parts.append(".has_off = offsetof(struct drv_%s, has_%s) + 1" % (s.cname, f.name))
    if f.req:
        parts.append(".req = true")
    if f.base == "int":
        parts.append(".cint = %s" % CINT[f.ctype])
        parts.append(".min = %dLL" % f.lo if f.lo != -(1 << 63) else ".min = INT64_MIN")
        parts.append(".max = %dLL" % f.hi)
    if f.minlen:
        parts.append(".minlen = %d" % f.minlen)
    if f.maxlen:
        parts.append(".maxlen = %d" % f.maxlen)
    if f.choices:
        parts.append(".choices = %s" % c_string(f.choices))
    if sub:
        parts.append(".sub = &drv_shape_%s" % sub.cname)
    if f.default is not None:
        parts.append(".def = %s" % c_string(f.default))
        v = json.loads(f.default)
        if isinstance(v, bool):
            parts.append(".def_int = %d" % int(v))
        elif isinstance(v, int):
            parts.append(".def_int = %dLL" % v)
        elif isinstance(v, str):
            parts.append(".def_str = %s" % c_string(v))
        elif v != []:
            raise SchemaError("%s: a default is a number, a bool, a string or []"
                              % f.where)
    flags = ["DRV_FL_" + x.upper() for x in f.flags]
    if flags:
        parts.append(".flags = " + " | ".join(flags))
    return "\t{" + ", ".join(parts) + "},"


def gen_header(shapes):
    out = ["/* proto_gen.h — generated by src/proto/gen.py from the src/proto schema files.",
           " * Do not edit: change the schema. One struct per declared shape; decoded",
           " * strings and json_t members are borrowed from the decoded tree, arrays",
           " * are owned (drv_*_free releases them). */",
           "#ifndef DRV_PROTO_GEN_H", "#define DRV_PROTO_GEN_H", "",
           "#include <jansson.h>", "#include <stdbool.h>", "#include <stddef.h>",
           "#include <stdint.h>", "", '#include "common/schema.h"', ""]
    for s in shapes:
        out.append("/* %s %s%s */" % (s.kind, s.name, (": " + s.doc) if s.doc else ""))
        out.append("struct drv_%s {" % s.cname)
        for f in s.fields:
            out.extend(c_member(f))
        if not s.fields:
            out.append("\tchar unused_; /* no fields: C wants one */")
        out.append("};")
        out.append("extern const struct drv_shape drv_shape_%s;" % s.cname)
        n = s.cname
        if s.fields:
            # each field's index in the table: drv_shape_X.fields[DRV_X__F].name
            out.append("enum {")
            out.extend("\tDRV_%s__%s," % (n.upper(), f.name.upper()) for f in s.fields)
            out.append("};")
        out.append("static inline int drv_%s_decode(json_t *j, struct drv_%s *out,"
                   " struct drv_error *err)" % (n, n))
        out.append("{\n\treturn drv_shape_decode(&drv_shape_%s, j, out, err);\n}" % n)
        out.append("static inline json_t *drv_%s_encode(const struct drv_%s *in)" % (n, n))
        out.append("{\n\treturn drv_shape_encode(&drv_shape_%s, in, 0);\n}" % n)
        out.append("static inline void drv_%s_free(struct drv_%s *m)" % (n, n))
        out.append("{\n\tdrv_shape_free(&drv_shape_%s, m);\n}" % n)
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def gen_source(shapes):
    out = ["/* proto_gen.c — generated by src/proto/gen.py from the src/proto schema files.",
           " * Do not edit: change the schema. */",
           "#include <stddef.h>", "#include <stdint.h>", "",
           '#include "common/proto_gen.h"', ""]
    for s in shapes:
        if s.fields:
            out.append("static const struct drv_field fields_%s[] = {" % s.cname)
            out.extend(c_field(s, f) for f in s.fields)
            out.append("};")
        out.append("const struct drv_shape drv_shape_%s = {" % s.cname)
        out.append("\t.name = %s, .kind = %s, .size = sizeof(struct drv_%s)," % (
            c_string(s.name), c_string(s.kind), s.cname))
        if s.fields:
            out.append("\t.fields = fields_%s, .n_fields = %d," % (s.cname, len(s.fields)))
        out.append("};")
        out.append("")
    replies = {s.name: s for s in shapes if s.kind == "reply"}
    out.append("const struct drv_msg_decl drv_msg_decls[] = {")
    for s in shapes:
        if s.kind not in ("request", "push"):
            continue
        r = replies.get(s.name)
        out.append("\t{%s, %s, &drv_shape_%s, %s}," % (
            c_string(s.name), "DRV_MSG_PUSH" if s.kind == "push" else "DRV_MSG_REQUEST",
            s.cname, "&drv_shape_%s" % r.cname if r else "NULL"))
    out.append("};")
    out.append("const size_t drv_n_msg_decls = sizeof(drv_msg_decls) / sizeof(drv_msg_decls[0]);")
    out.append("")
    out.append("const struct drv_shape *const drv_all_shapes[] = {")
    for s in shapes:
        out.append("\t&drv_shape_%s," % s.cname)
    out.append("};")
    out.append("const size_t drv_n_all_shapes = sizeof(drv_all_shapes) / sizeof(drv_all_shapes[0]);")
    return "\n".join(out) + "\n"


def gen_test(shapes):
    out = ["/* test_proto_gen.c — generated by src/proto/gen.py: a round-trip test of",
           " * every declared shape (tests/unit/schema_roundtrip.h does the work). */",
           '#include "common/proto_gen.h"', '#include "schema_roundtrip.h"', ""]
    for s in shapes:
        out.append("static void test_%s(void **state)\n{\n\t(void)state;\n"
                   "\tschema_roundtrip(&drv_shape_%s);\n}" % (s.cname, s.cname))
    out.append("")
    out.append("int main(void)\n{\n\tconst struct CMUnitTest tests[] = {")
    for s in shapes:
        out.append("\t    cmocka_unit_test(test_%s)," % s.cname)
    out.append("\t};\n\treturn cmocka_run_group_tests(tests, NULL, NULL);\n}")
    return "\n".join(out) + "\n"


# --- docs -------------------------------------------------------------------

def md_type(f):
    if f.base == "int":
        t = [k for k, v in INT_TYPES.items() if v[0] == f.ctype and k != "int"][0]
    elif f.base == "enum":
        t = "`" + f.choices.replace("|", "`\\|`") + "`"
    elif f.base == "object":
        t = ("[%s](#%s)" % (f.sub.name, f.sub.name.replace("_", "-"))
             if isinstance(f.sub, Shape) else "object")
    else:
        t = f.base
    return ("[%s]" % t) if f.array else t


def md_bounds(f):
    if f.base == "int":
        _, lo, hi = INT_TYPES[md_type(f).strip("[]")]
        if f.lo == lo and f.hi == hi:
            return ""
        return "%d..%d" % (f.lo, f.hi)
    if f.base == "str" and (f.minlen or f.maxlen):
        return "%d..%s bytes" % (f.minlen, f.maxlen or "")
    return ""


def gen_doc(shapes):
    out = ["# Protocol schema",
           "",
           "Generated by `src/proto/gen.py` from `src/proto/*.schema`; do not edit",
           "(`make schema-doc` rewrites it, and a unit test fails when it is stale).",
           "Every message body, reply body, pushed message and record is declared",
           "there once; the C structs, decoders, encoders, the validation of every",
           "inbound message (requests on the receiver, replies on the client) and",
           "round-trip tests come from the same declaration. [protocol.md](protocol.md)",
           "says what the messages mean.",
           "",
           "Rules for every shape: a field not declared is ignored (a newer peer may",
           "send it); an optional field sent as `null` counts as absent; a field with",
           "a default takes it when absent; an error names the field and the rule,",
           "e.g. `job.submit: field 'nodes': must be 1..100000`.",
           ""]
    kinds = [("request", "Requests"), ("reply", "Replies"), ("push", "Pushed messages"),
             ("record", "Records"), ("object", "Objects")]
    for kind, title in kinds:
        group = sorted([s for s in shapes if s.kind == kind], key=lambda s: s.name)
        if not group:
            continue
        out += ["## " + title, ""]
        for s in group:
            out.append("### %s" % s.name)
            out.append("")
            if s.doc:
                out += [s.doc, ""]
            if not s.fields:
                out += ["No fields: `{}`.", ""]
                continue
            out.append("| field | type | | bounds | default | notes |")
            out.append("|---|---|---|---|---|---|")
            for f in s.fields:
                need = "required" if f.req else "optional"
                notes = f.doc
                extra = [x for x in f.flags] + (["from " + f.side] if f.side else [])
                if extra:
                    notes = (notes + " " if notes else "") + "(" + ", ".join(extra) + ")"
                out.append("| `%s` | %s | %s | %s | %s | %s |" % (
                    f.name, md_type(f), need, md_bounds(f),
                    "`%s`" % f.default if f.default is not None else "",
                    notes.replace("|", "\\|")))
            out.append("")
    return "\n".join(out)


def check_protocol(shapes, text):
    """What docs/protocol.md leaves out: every message type must appear in
    it as `type`, and every field that travels on the wire (of a shape a
    message carries, not flagged private) as `name` or "name". The store's
    own records and fields are for store.md and schema.md. Returns the
    list of what is missing."""
    wire, todo = set(), [s for s in shapes if s.kind in ("request", "reply", "push")]
    while todo:
        s = todo.pop()
        if id(s) in wire:
            continue
        wire.add(id(s))
        todo.extend(f.sub for f in s.fields
                    if isinstance(f.sub, Shape) and "private" not in f.flags)
    missing = []
    for s in shapes:
        if s.kind in ("request", "push") and ("`%s`" % s.name) not in text:
            missing.append("%s %s" % (s.kind, s.name))
        if id(s) not in wire:
            continue
        for f in s.fields:
            if "private" in f.flags:
                continue
            if not re.search(r'[`"]%s[`"]' % re.escape(f.name), text):
                missing.append("field %s of %s %s" % (f.name, s.kind, s.name))
    return missing


def write_if_changed(path, text):
    try:
        with open(path) as fh:
            if fh.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as fh:
        fh.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--header")
    ap.add_argument("--source")
    ap.add_argument("--doc")
    ap.add_argument("--test")
    ap.add_argument("--check-doc", help="fail unless this file is what --doc would write")
    ap.add_argument("--check-protocol",
                    help="fail when this prose reference leaves a type or field out")
    ap.add_argument("schemas", nargs="+")
    a = ap.parse_args()
    try:
        _, shapes = parse(a.schemas)
    except SchemaError as e:
        sys.stderr.write("gen.py: %s\n" % e)
        return 1
    if a.header:
        write_if_changed(a.header, gen_header(shapes))
    if a.source:
        write_if_changed(a.source, gen_source(shapes))
    if a.test:
        write_if_changed(a.test, gen_test(shapes))
    doc = gen_doc(shapes) + "\n"
    if a.doc:
        write_if_changed(a.doc, doc)
    if a.check_protocol:
        with open(a.check_protocol) as fh:
            missing = check_protocol(shapes, fh.read())
        for m in missing:
            sys.stderr.write("gen.py: %s does not mention the %s\n" % (a.check_protocol, m))
        if missing:
            return 1
    if a.check_doc:
        with open(a.check_doc) as fh:
            if fh.read() != doc:
                sys.stderr.write("gen.py: %s is stale: run make schema-doc\n" % a.check_doc)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
