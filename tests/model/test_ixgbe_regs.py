"""Independent register cross-check: every IXGBE_ name in drivers/nic/ixgbe_regs.h against Linux.

ixgbe_regs.h is written by hand from the 82599 datasheet. This test reads Linux's
drivers/net/ethernet/intel/ixgbe/ixgbe_type.h out of Debian's linux-source-6.1 tarball at test
time (tools/setup installs the package; nothing of Linux is copied into the repository),
evaluates both definitions of each name - constants, and per-queue macros at several indices -
and fails naming every register or bit whose value differs or that Linux does not define.

C expressions are evaluated by a small parser below (literals with U/L suffixes, BIT(n), casts,
unary and binary operators, ?:, calls of function-like macros), never by eval().

Run alone: python3 -m pytest -q -rA tests/system/test_ixgbe_regs.py   (-rA shows the summary)
"""
import re
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OUR_HEADER = REPO / "drivers/nic/ixgbe_regs.h"
LINUX_TARBALL = Path("/usr/src/linux-source-6.1.tar.xz")
LINUX_MEMBER = "linux-source-6.1/drivers/net/ethernet/intel/ixgbe/ixgbe_type.h"

# Indices at which per-queue (function-like) macros are compared: both ends of each range the
# 82599 splits its registers at (queues 0-15 / 16-63 / 64-127, EITR 0-23 / 24-63, EIMS_EX 0/1).
INDICES = (0, 1, 2, 7, 15, 16, 23, 24, 31, 32, 63, 64, 65, 127)

# Where our name (the datasheet's mnemonic) and Linux's differ for the same register or bit.
ALIASES = {
    "IXGBE_CTRL_LRST": "IXGBE_CTRL_LNK_RST",  # CTRL bit 3 is "LRST" in the datasheet
    "IXGBE_EEC": "IXGBE_EEC_8259X",  # Linux's IXGBE_EEC(hw) picks per MAC; 8259X = 82599
    "IXGBE_I2CCTL": "IXGBE_I2CCTL_8259X",  # likewise for I2CCTL and its bits
    "IXGBE_I2C_CLK_IN": "IXGBE_I2C_CLK_IN_8259X",
    "IXGBE_I2C_CLK_OUT": "IXGBE_I2C_CLK_OUT_8259X",
    "IXGBE_I2C_DATA_IN": "IXGBE_I2C_DATA_IN_8259X",
    "IXGBE_I2C_DATA_OUT": "IXGBE_I2C_DATA_OUT_8259X",
    "IXGBE_SWSM": "IXGBE_SWSM_8259X",
}

# Registers whose entries 0-15 also answer at an 82598-compatible address, which Linux uses for
# them. There Linux must give exactly that alias; from 16 on it must give our 82599 address.
LOW_ALIAS = {
    "IXGBE_SRRCTL": lambda n: 0x02100 + 4 * n,
    "IXGBE_DCA_RXCTRL": lambda n: 0x02200 + 4 * n,
    "IXGBE_RAL": lambda n: 0x05400 + 8 * n,
    "IXGBE_RAH": lambda n: 0x05404 + 8 * n,
}
LOW_ALIAS_LAST = 15

# Our constants that Linux has no name for. This list only excuses "Linux does not define it";
# test_allow_lists_are_minimal fails if Linux starts defining one (then it is compared). Names
# ending in _US (times in microseconds: timeouts, delays, limits) are ours by rule.
OWN = {
    "IXGBE_EIMC_ALL_CAUSES": "EICR cause bits 30:0 (Linux writes 0xFFFF0000 plus EIMC_EX)",
    "IXGBE_EITR_ITR_INT_SHIFT": "position of ITR_INTERVAL (Linux keeps intervals pre-shifted)",
    "IXGBE_RETA_REGS": "count of RETA registers (Linux: a comment)",
    "IXGBE_RSSRK_REGS": "count of RSSRK registers (Linux: a comment)",
    "IXGBE_QSTAT_SETS": "count of per-queue statistics sets (Linux: a comment)",
    "IXGBE_PACKET_BUFFERS": "count of MPC/RNBC instances (Linux: a comment)",
    "IXGBE_DCA_RXCTRL_BIT12": "the bit datasheet 4.6.7 says to clear; Linux has no name",
    "IXGBE_TXDCTL_PTHRESH_SHIFT": "TXDCTL field position; Linux writes it as a literal",
    "IXGBE_TXDCTL_HTHRESH_SHIFT": "TXDCTL field position; Linux writes it as a literal",
    "IXGBE_STAT36_HIGH_MASK": "bits 35:32 of a 36-bit octet counter (Linux drops them)",
    "IXGBE_ESDP_SDP3_DIR": "SDP3's direction bit (Linux leaves it as the NVM set it)",
    "IXGBE_GSSR_FW_SHIFT": "firmware bits sit 5 above software's (Linux: a literal 5)",
}

MASK64 = (1 << 64) - 1


# --- a small C preprocessor-expression evaluator -------------------------------------------

class EvalError(Exception):
    pass


def parse_defines(text):
    """{name: (params or None, body)} for every #define (first definition wins)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = text.replace("\\\n", " ")
    defs = {}
    for line in text.splitlines():
        m = re.match(r"\s*#\s*define\s+(\w+)(\(([^)]*)\))?(.*)$", line)
        if m and m.group(1) not in defs:
            params = None
            if m.group(2) is not None:
                params = [p.strip() for p in m.group(3).split(",") if p.strip()]
            defs[m.group(1)] = (params, m.group(4).strip())
    return defs


TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|"
                   r"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^~!?:(),<>]))")
CAST_TYPES = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "unsigned", "signed",
              "int", "long", "short", "char"}
BINARY = {  # operator: (precedence, function); all left-associative
    "||": (4, lambda a, b: int(bool(a) or bool(b))),
    "&&": (5, lambda a, b: int(bool(a) and bool(b))),
    "|": (6, lambda a, b: a | b), "^": (7, lambda a, b: a ^ b), "&": (8, lambda a, b: a & b),
    "==": (9, lambda a, b: int(a == b)), "!=": (9, lambda a, b: int(a != b)),
    "<": (10, lambda a, b: int(a < b)), "<=": (10, lambda a, b: int(a <= b)),
    ">": (10, lambda a, b: int(a > b)), ">=": (10, lambda a, b: int(a >= b)),
    "<<": (11, lambda a, b: (a << b) & MASK64), ">>": (11, lambda a, b: a >> b),
    "+": (12, lambda a, b: (a + b) & MASK64), "-": (12, lambda a, b: (a - b) & MASK64),
    "*": (13, lambda a, b: (a * b) & MASK64), "/": (13, lambda a, b: a // b),
    "%": (13, lambda a, b: a % b),
}


def tokenize(s):
    out, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise EvalError(f"cannot tokenize {s[pos:]!r}")
        num, ident, op = m.groups()
        out.append(("num", int(num, 0) if not re.fullmatch(r"0\d+", num) else int(num, 8))
                   if num else ("id", ident) if ident else ("op", op))
        pos = m.end()
    return out


class Evaluator:
    """Evaluates macro bodies from one header's defines; params bind function-like macros."""

    def __init__(self, defs):
        self.defs = defs

    def value(self, name, args=(), depth=0):
        if depth > 40:
            raise EvalError(f"{name}: macro recursion too deep")
        if name not in self.defs:
            raise EvalError(f"{name} is not defined")
        params, body = self.defs[name]
        if (params is None) != (not args and params is None) or \
                (params is not None and len(params) != len(args)):
            raise EvalError(f"{name}: called with {len(args)} arguments, takes {params}")
        if not body:
            raise EvalError(f"{name} has an empty body")
        env = dict(zip(params or [], args))
        return _Parser(tokenize(body), env, self, depth + 1).parse()


class _Parser:
    def __init__(self, toks, env, ev, depth):
        self.toks, self.i, self.env, self.ev, self.depth = toks, 0, env, ev, depth

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", None)

    def take(self, kind=None, val=None):
        t = self.peek()
        if (kind and t[0] != kind) or (val is not None and t[1] != val):
            raise EvalError(f"expected {val or kind}, found {t[1]!r}")
        self.i += 1
        return t

    def parse(self):
        v = self.ternary()
        if self.peek()[0] != "end":
            raise EvalError(f"trailing tokens from {self.peek()[1]!r}")
        return v

    def ternary(self):
        cond = self.binary(4)
        if self.peek() == ("op", "?"):
            self.take()
            a = self.ternary()
            self.take("op", ":")
            b = self.ternary()
            return a if cond else b
        return cond

    def binary(self, min_prec):
        left = self.unary()
        while True:
            t = self.peek()
            if t[0] != "op" or t[1] not in BINARY or BINARY[t[1]][0] < min_prec:
                return left
            self.take()
            prec, fn = BINARY[t[1]]
            left = fn(left, self.binary(prec + 1))

    def unary(self):
        t = self.peek()
        if t[0] == "op" and t[1] in "-~!+":
            self.take()
            v = self.unary()
            return {"-": (-v) & MASK64, "~": (~v) & MASK64, "!": int(not v), "+": v}[t[1]]
        if t == ("op", "(") and self.is_cast():
            while self.take()[1] != ")":
                pass
            return self.unary()
        return self.primary()

    def is_cast(self):
        j = self.i + 1
        while j < len(self.toks) and self.toks[j][0] == "id" and self.toks[j][1] in CAST_TYPES:
            j += 1
        return j > self.i + 1 and j < len(self.toks) and self.toks[j] == ("op", ")")

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            return val
        if kind == "op" and val == "(":
            v = self.ternary()
            self.take("op", ")")
            return v
        if kind != "id":
            raise EvalError(f"unexpected {val!r}")
        if val in self.env:
            return self.env[val]
        if self.peek() == ("op", "("):
            self.take()
            args = []
            while self.peek() != ("op", ")"):
                args.append(self.ternary())
                if self.peek() == ("op", ","):
                    self.take()
            self.take("op", ")")
            if val == "BIT" and val not in self.ev.defs:
                return (1 << args[0]) & MASK64
            return self.ev.value(val, tuple(args), self.depth)
        return self.ev.value(val, (), self.depth)


# --- fixtures ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def linux(tmp_path_factory):
    if not LINUX_TARBALL.exists():
        pytest.skip(f"{LINUX_TARBALL} missing: Debian package linux-source-6.1 is not installed "
                    "(tools/setup installs it)")
    # Only this one member, written to a path of our choosing in a fresh temp dir.
    out = tmp_path_factory.mktemp("linux") / "ixgbe_type.h"
    with tarfile.open(LINUX_TARBALL, "r:xz") as tar:
        out.write_bytes(tar.extractfile(tar.getmember(LINUX_MEMBER)).read())
    return Evaluator(parse_defines(out.read_text(errors="replace")))


@pytest.fixture(scope="module")
def ours():
    return Evaluator(parse_defines(OUR_HEADER.read_text()))


def our_names(ours):
    return sorted(n for n in ours.defs if n.startswith("IXGBE_"))


def values(ev, name, params):
    """name's value, or {index: value} for a per-queue macro."""
    if params is None:
        return ev.value(name)
    return {n: ev.value(name, (n,)) for n in INDICES}


# --- the checks ------------------------------------------------------------------------------

def check_name(name, ours, linux):
    """(category, problem or None) for one of our names."""
    params = ours.defs[name][0]
    mine = values(ours, name, params)
    lname = ALIASES.get(name, name)
    if lname not in linux.defs:
        if name in OWN or name.endswith("_US"):
            return "own", None
        return "missing", f"{name} = {fmt(mine)}: Linux defines no {lname}"
    lparams = linux.defs[lname][0]
    if (params is None) != (lparams is None):
        return "mismatch", f"{name}: ours takes {params}, Linux's {lname} takes {lparams}"
    theirs = values(linux, lname, lparams)
    if name in LOW_ALIAS:
        alias = LOW_ALIAS[name]
        bad = [n for n in INDICES if theirs[n] != (alias(n) if n <= LOW_ALIAS_LAST else mine[n])]
        if bad:
            linux_vals = [hex(theirs[n]) for n in bad]
            our_vals = [hex(mine[n]) for n in bad]
            return "mismatch", (f"{name}: at n={bad} Linux gives {linux_vals}, ours {our_vals}"
                                f" (82598 alias expected for n <= {LOW_ALIAS_LAST})")
        return "low-alias", None
    if mine != theirs:
        if isinstance(mine, dict):
            bad = [n for n in INDICES if mine[n] != theirs[n]]
            mine, theirs = {n: mine[n] for n in bad}, {n: theirs[n] for n in bad}
        return "mismatch", f"{name} = {fmt(mine)}, Linux {lname} = {fmt(theirs)}"
    return ("alias" if name in ALIASES else "matched"), None


def fmt(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{n}: {v[n]:#x}" for n in v) + "}"
    return hex(v)


def test_every_name_matches_linux(ours, linux):
    counts, problems = {}, []
    names = our_names(ours)
    for name in names:
        try:
            cat, problem = check_name(name, ours, linux)
        except EvalError as e:
            cat, problem = "error", f"{name}: cannot evaluate: {e}"
        counts[cat] = counts.get(cat, 0) + 1
        if problem:
            problems.append(problem)
    print(f"\nixgbe_regs.h vs Linux 6.1 ixgbe_type.h: {len(names)} names; "
          f"{counts.get('matched', 0)} matched by name, {counts.get('alias', 0)} through a "
          f"datasheet/Linux name alias, {counts.get('low-alias', 0)} per-queue with the 82598 "
          f"low-index alias, {counts.get('own', 0)} our own (allow-list or _US); "
          f"{len(problems)} problems")
    assert not problems, "registers/bits that disagree with Linux:\n  " + "\n  ".join(problems)
    assert counts.get("matched", 0) >= 100, "suspiciously few names matched: parser broken?"


def test_allow_lists_are_minimal(ours, linux):
    names = set(our_names(ours))
    stale = [n for n in list(ALIASES) + list(LOW_ALIAS) + list(OWN) if n not in names]
    assert not stale, f"allow-list entries no longer in ixgbe_regs.h: {stale}"
    known = [n for n in OWN if n in linux.defs]
    assert not known, f"Linux defines these, compare them instead of allowing them: {known}"
    # An alias is needed only while Linux lacks our name in the same form (IXGBE_EEC(hw) is a
    # per-MAC selector there, not the 82599's register).
    unneeded = [n for n in ALIASES
                if n in linux.defs and (linux.defs[n][0] is None) == (ours.defs[n][0] is None)]
    assert not unneeded, f"Linux has these names itself; drop the alias: {unneeded}"


@pytest.mark.parametrize("body,want", [
    ("0x10u", 0x10), ("(0x7UL << 13)", 0xE000), ("BIT(5)", 32), ("((u32)1 << 31)", 1 << 31),
    ("1 ? 2 : 3", 2), ("0 ? 2 : 0 ? 4 : 5", 5), ("2 + 3 * 4", 14), ("(2 + 3) * 4", 20),
    ("~0 & 0xFF", 0xFF), ("1 << 2 | 1", 5), ("3 <= 23 ? 0x820 + 3 * 4 : 0", 0x82C), ("010", 8),
])
def test_evaluator(body, want):
    assert Evaluator({"X": (None, body)}).value("X") == want


def test_evaluator_per_queue_macro():
    ev = Evaluator(parse_defines(
        "#define R(_i) (((_i) < 64) ? (0x01000 + ((_i) * 0x40)) : \\\n"
        "        (0x0D000 + (((_i) - 64) * 0x40)))  /* two ranges */\n"
        "#define S(n) (R(n) + 8)\n"))
    assert [ev.value("R", (n,)) for n in (0, 1, 63, 64, 127)] == \
        [0x1000, 0x1040, 0x1FC0, 0xD000, 0xDFC0]
    assert ev.value("S", (64,)) == 0xD008
