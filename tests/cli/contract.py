#!/usr/bin/env python3
"""docs/cli.md, rule by rule, on every command.

For each command, a table of inputs: a good one, a missing file, a
directory, an empty file, a host ELF without device code, a truncated
cubin, an unknown option, and (for commands that write files) an output
that cannot be written.  Each must give its exit status (0, 1, 1, 1, 1, 1,
2, 1), exactly one line on stderr for a failure (two for a usage error: the
message and "Try ..."), nothing on stdout when it fails, and no output file
left behind.  Then: --json is one array for every command that has it;
--name=value is --name value; `cudwarf help CMD` is `CMD --help`; the man
page names every option each command's --help names; --sm with an SM the
input lacks is one error; a write failure says why.

usage: contract.py CUDWARF FIXTURES_DIR
"""
import json, os, re, shutil, subprocess, sys, tempfile

CUDWARF, FIX = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tmp = tempfile.mkdtemp()
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    passed += bool(cond)
    failed += not cond
    print(f"{'ok  ' if cond else 'FAIL'} {name}" + ("" if cond else f"  [{detail}]"))


def run(*args, stdin=None):
    return subprocess.run([CUDWARF, *args], capture_output=True, text=True, input=stdin, timeout=120)


cubin = os.path.join(FIX, "tiny_sm90_G.cubin")
rdc = os.path.join(FIX, "tiny_sm90_G.rdc.cubin")
fatbin = os.path.join(FIX, "inline_G_speed.fatbin")
missing = os.path.join(tmp, "missing.cubin")
directory = os.path.join(tmp, "adir")
os.makedirs(directory)
empty = os.path.join(tmp, "empty.cubin")
open(empty, "wb").close()
truncated = os.path.join(tmp, "truncated.cubin")
data = open(cubin, "rb").read()
open(truncated, "wb").write(data[:len(data) // 3])
host = shutil.which("true") or "/bin/true"  # an ELF executable without device code
rows = os.path.join(tmp, "rows.json")
open(rows, "w").write(run("lines", "--json", "--hidden", cubin).stdout)
unwritable = os.path.join(tmp, "no-such-dir", "out")

# command: (args before the input, input for the good case, writes -o OUT?, json?)
OUT = "@OUT"
COMMANDS = {
    "sections": ([], cubin, False, True),
    "dump": ([], cubin, False, True),
    "lines": ([], cubin, False, True),
    "verify": ([], cubin, False, True),
    "pubnames": ([], os.path.join(FIX, "statics_sm100_G.rdc.cubin"), False, True),
    "list": ([], fatbin, False, True),
    "size": ([], fatbin, False, True),
    "addr2line": (["-e"], cubin, False, True),
    "extract": (["-o", OUT], fatbin, False, False),
    "link": (["-o", OUT], rdc, True, False),
    "strip": (["-o", OUT], cubin, True, False),
    "remap": (["--prefix", "/=/elsewhere/", "-o", OUT], cubin, True, False),
    "line-encode": (["-o", OUT], rows, True, True),
    "correlate": ([], cubin, False, True),
}
TAIL = {"addr2line": ["_Z11tiny_kernelPii+0x10"]}


def args_for(cmd, inp, out):
    pre, _, _, _ = COMMANDS[cmd]
    return [cmd] + [out if a == OUT else a for a in pre] + [inp] + TAIL.get(cmd, [])


def lines_of(text):
    return [x for x in text.splitlines() if x.strip()]


for cmd, (pre, good, writes, has_json) in COMMANDS.items():
    out = os.path.join(tmp, f"{cmd}.out")
    # the good input
    r = run(*args_for(cmd, good, out))
    check(f"{cmd}: a good input: exit 0, no message", r.returncode == 0 and not r.stderr.strip(),
          f"rc={r.returncode} {r.stderr.strip()[:200]}")
    if writes:
        check(f"{cmd}: the output file is written", os.path.exists(out))
    # the bad inputs
    cases = [("a missing file", missing, 1), ("a directory", directory, 1), ("an empty file", empty, 1),
             ("a host ELF without device code", host, 0 if cmd in ("list", "size") else 1),
             ("a truncated cubin", truncated, 1)]
    if cmd == "line-encode":
        cases = [("a missing file", missing, 1), ("a directory", directory, 1), ("an empty file", empty, 1),
                 ("a cubin (not JSON)", cubin, 1)]
    for what, inp, want in cases:
        for f in (out,):
            if os.path.isdir(f):
                shutil.rmtree(f)
            elif os.path.exists(f):
                os.remove(f)
        r = run(*args_for(cmd, inp, out))
        msgs = lines_of(r.stderr)
        if want == 0:
            check(f"{cmd}: {what}: a note, exit 0", r.returncode == 0 and len(msgs) == 1 and "note:" in msgs[0],
                  f"rc={r.returncode} {msgs}")
            continue
        ok = r.returncode == want and len(msgs) == 1 and msgs[0].startswith("cudwarf") and not r.stdout
        if writes:
            ok = ok and not os.path.exists(out)
        if cmd == "extract":
            ok = ok and (not os.path.exists(out) or not os.listdir(out))
        check(f"{cmd}: {what}: exit {want}, one line on stderr, nothing on stdout" +
              (", no output file" if writes else ""), ok, f"rc={r.returncode} stderr={msgs} stdout={r.stdout[:80]!r}")
    # an unknown option: usage, exit 2
    r = run(cmd, "--no-such-option", good)
    check(f"{cmd}: an unknown option: exit 2, the message and 'Try ...', nothing on stdout",
          r.returncode == 2 and len(lines_of(r.stderr)) == 2 and "Try 'cudwarf" in r.stderr and not r.stdout, r.stderr)
    # an output that cannot be written
    if writes or cmd == "extract":
        r = run(*args_for(cmd, good, unwritable if writes else "/proc/version/x"))
        msgs = lines_of(r.stderr)
        check(f"{cmd}: an output that cannot be written: exit 1, one line with the reason",
              r.returncode == 1 and len(msgs) == 1 and re.search(r"No such file|Not a directory|denied|not a directory",
                                                                 msgs[0]) and not os.path.exists(unwritable), msgs)
    # JSON: one array
    if has_json:
        r = run(*(args_for(cmd, good, out)[:1] + ["--json"] + args_for(cmd, good, out)[1:]))
        try:
            doc = json.loads(r.stdout)
            check(f"{cmd} --json: one JSON array", isinstance(doc, list) and len(doc) >= 1, r.stdout[:100])
        except ValueError as e:
            check(f"{cmd} --json: one JSON array", False, f"{e}: {r.stdout[:100]!r}")
    # help
    h1, h2 = run(cmd, "--help"), run("help", cmd)
    check(f"{cmd}: --help exits 0 and equals 'cudwarf help {cmd}'",
          h1.returncode == 0 and h2.returncode == 0 and h1.stdout == h2.stdout and h1.stdout.startswith("usage:"))

# --name=value is --name value
pairs = [(["lines", "--section=.debug_line", cubin], ["lines", "--section", ".debug_line", cubin]),
         (["dump", "--section=.debug_info", cubin], ["dump", "--section", ".debug_info", cubin]),
         (["lines", "--sm=90", fatbin], ["lines", "--sm", "90", fatbin]),
         (["lines", "--jobs=1", fatbin], ["lines", "-j", "1", fatbin]),
         (["addr2line", "--exe=" + cubin, "--function=_Z11tiny_kernelPii", "0x10"],
          ["addr2line", "--exe", cubin, "--function", "_Z11tiny_kernelPii", "0x10"]),
         (["dump", "--debug-dump=info", cubin], ["dump", "--debug-dump", "info", cubin])]
for a, b in pairs:
    ra, rb = run(*a), run(*b)
    check(f"{' '.join(x for x in a if '/' not in x)} = {' '.join(x for x in b if '/' not in x)}",
          ra.returncode == rb.returncode == 0 and ra.stdout == rb.stdout and ra.stdout, ra.stderr + rb.stderr)

# --sm with an SM the input lacks; --section with a section nothing has
exe = os.path.join(FIX, "hostapp_lineinfo.exe")
for cmd in ("sections", "dump", "lines", "verify", "list", "extract", "size"):
    extra = ["-o", os.path.join(tmp, "smx")] if cmd == "extract" else []
    r = run(cmd, "--sm=86", *extra, exe)
    check(f"{cmd} --sm=86 on an sm_75/sm_90 executable: exit 1, one line, nothing on stdout",
          r.returncode == 1 and len(lines_of(r.stderr)) == 1 and "sm_86" in r.stderr and not r.stdout, r.stderr)
for cmd in ("dump", "lines"):
    r = run(cmd, "--section", ".debug_nope", cubin)
    check(f"{cmd} --section .debug_nope: exit 1, one line, nothing on stdout",
          r.returncode == 1 and len(lines_of(r.stderr)) == 1 and ".debug_nope" in r.stderr and not r.stdout, r.stderr)
# a write to a full device says why
r = subprocess.run(f"{CUDWARF} lines {cubin} > /dev/full", shell=True, capture_output=True, text=True)
check("output to a full device: exit 1, the reason", r.returncode == 1 and "No space left" in r.stderr, r.stderr)
# link: the same object twice, as nvlink refuses it
r = run("link", "-o", os.path.join(tmp, "twice"), rdc, rdc)
check("link of one object twice: multiple definition, exit 1, no output",
      r.returncode == 1 and "multiple definition" in r.stderr and not os.path.exists(os.path.join(tmp, "twice")),
      r.stderr)
# strip refuses a host ELF, and writes nothing
r = run("strip", "-o", os.path.join(tmp, "x.exe"), exe)
check("strip of a host executable: refused, exit 1, nothing written",
      r.returncode == 1 and "host ELF" in r.stderr and not os.path.exists(os.path.join(tmp, "x.exe")), r.stderr)
# line-encode takes what lines --json prints for a host executable
r = subprocess.run(f"{CUDWARF} lines --json --hidden {exe} | {CUDWARF} line-encode --json -", shell=True,
                   capture_output=True, text=True)
check("line-encode reads lines --json of a host executable (an array of images)",
      r.returncode == 0 and json.loads(r.stdout)[0]["size"] > 0, r.stderr)

# the man page names every option of every command's --help
man = open(os.path.join(ROOT, "man", "cudwarf.1")).read().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
man = man.replace("\\fI", "")
for cmd in COMMANDS:
    usage = run(cmd, "--help").stdout.split("\n\n")[0]
    opts = sorted(set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", usage)))
    opts = [o for o in opts if o not in ("-h", "--help")]
    missing_opts = [o for o in opts if o not in man]
    check(f"man page names every option of {cmd} --help ({', '.join(opts)})", not missing_opts, missing_opts)

shutil.rmtree(tmp)
print(f"contract: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
