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
input lacks is one error; a write failure says why.  Every --help, and the
man page as man renders it at MANWIDTH=80, is at most 80 columns wide;
every --help ends naming the options of every command; the
README's and the man page's synopses are the --help usage lines.  The option list of
each --help (printed from the parser's table, tools/opts.h) against the
parser: every option it lists is parsed, with a value exactly when it
shows one; `cudwarf help --help` is `cudwarf --help`.

    python3 -m pytest -m contract
    python3 -m pytest -m contract -k strip
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from suite_env import CUDWARF, FIX, ROOT, run

pytestmark = pytest.mark.contract

CUBIN = os.path.join(FIX, "tiny_sm90_G.cubin")
RDC = os.path.join(FIX, "tiny_sm90_G.rdc.cubin")
FATBIN = os.path.join(FIX, "inline_G_speed.fatbin")
EXE = os.path.join(FIX, "hostapp_lineinfo.exe")
HOST = shutil.which("true") or "/bin/true"  # an ELF executable without device code

# command: (args before the input, input for the good case, writes -o OUT?, json?);
# @OUT is the output, @ROWS what `lines --json` prints of CUBIN
COMMANDS = {
    "sections": ([], CUBIN, False, True),
    "dump": ([], CUBIN, False, True),
    "lines": ([], CUBIN, False, True),
    "verify": ([], CUBIN, False, True),
    "pubnames": ([], os.path.join(FIX, "statics_sm100_G.rdc.cubin"), False, True),
    "list": ([], FATBIN, False, True),
    "size": ([], FATBIN, False, True),
    "addr2line": (["-e"], CUBIN, False, True),
    "extract": (["-o", "@OUT"], FATBIN, False, False),
    "link": (["-o", "@OUT"], RDC, True, False),
    "strip": (["-o", "@OUT"], CUBIN, True, False),
    "remap": (["--prefix", "/=/elsewhere/", "-o", "@OUT"], CUBIN, True, False),
    "line-encode": (["-o", "@OUT"], "@ROWS", True, True),
    "correlate": ([], CUBIN, False, True),
}
TAIL = {"addr2line": ["_Z11tiny_kernelPii+0x10"]}
WRITES = [c for c in COMMANDS if COMMANDS[c][2]]
JSON = [c for c in COMMANDS if COMMANDS[c][3]]

# the bad inputs: (what, which input, exit status)
BAD = [("a missing file", "missing", 1), ("a directory", "directory", 1), ("an empty file", "empty", 1),
       ("a host ELF without device code", "host", 1), ("a truncated cubin", "truncated", 1)]
BAD_JSON = [("a missing file", "missing", 1), ("a directory", "directory", 1), ("an empty file", "empty", 1),
            ("a cubin (not JSON)", "cubin", 1)]  # line-encode's
BAD_CASES = [pytest.param(cmd, what, key, 0 if key == "host" and cmd in ("list", "size") else want,
                          id=f"{cmd}:{key}")
             for cmd in COMMANDS for what, key, want in (BAD_JSON if cmd == "line-encode" else BAD)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The inputs by name: the bad ones made in a scratch directory."""
    tmp = tmp_path_factory.mktemp("contract")
    ins = {"cubin": CUBIN, "host": HOST, "missing": str(tmp / "missing.cubin"), "directory": str(tmp / "adir"),
           "empty": str(tmp / "empty.cubin"), "truncated": str(tmp / "truncated.cubin"),
           "@ROWS": str(tmp / "rows.json")}
    os.makedirs(ins["directory"])
    open(ins["empty"], "wb").close()
    data = open(CUBIN, "rb").read()
    open(ins["truncated"], "wb").write(data[:len(data) // 3])
    r = run("lines", "--json", CUBIN)
    assert r.returncode == 0, r.stderr
    open(ins["@ROWS"], "w").write(r.stdout)
    return ins


def args_for(cmd, inp, out, inputs):
    pre = COMMANDS[cmd][0]
    return [cmd] + [out if a == "@OUT" else a for a in pre] + [inputs.get(inp, inp)] + TAIL.get(cmd, [])


def cw(*args):
    return run(*args, timeout=120)


def lines_of(text):
    return [x for x in text.splitlines() if x.strip()]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_good_input(cmd, inputs, tmp_path, check):
    out = str(tmp_path / "out")
    r = cw(*args_for(cmd, COMMANDS[cmd][1], out, inputs))
    check("exit 0, no message", r.returncode == 0 and not r.stderr.strip(), f"rc={r.returncode} {r.stderr.strip()[:200]}")
    if COMMANDS[cmd][2]:
        check("the output file is written", os.path.exists(out))


@pytest.mark.parametrize("cmd,what,key,want", BAD_CASES)
def test_bad_input(cmd, what, key, want, inputs, tmp_path):
    out = str(tmp_path / "out")
    r = cw(*args_for(cmd, key, out, inputs))
    msgs = lines_of(r.stderr)
    if want == 0:  # list and size of a host ELF: a note
        assert r.returncode == 0 and len(msgs) == 1 and "note:" in msgs[0], f"rc={r.returncode} {msgs}"
        return
    detail = f"{what}: rc={r.returncode} stderr={msgs} stdout={r.stdout[:80]!r}"
    # exit 1, one line on stderr, nothing on stdout, no output file
    assert r.returncode == want and len(msgs) == 1 and msgs[0].startswith("cudwarf") and not r.stdout, detail
    if COMMANDS[cmd][2]:
        assert not os.path.exists(out), f"{what}: an output file is left"
    if cmd == "extract":
        assert not os.path.exists(out) or not os.listdir(out), f"{what}: extract left files"


@pytest.mark.parametrize("cmd", COMMANDS)
def test_unknown_option(cmd, inputs):
    """usage, exit 2: the message and 'Try ...', nothing on stdout"""
    r = cw(cmd, "--no-such-option", inputs.get(COMMANDS[cmd][1], COMMANDS[cmd][1]))
    assert r.returncode == 2 and len(lines_of(r.stderr)) == 2 and "Try 'cudwarf" in r.stderr and not r.stdout, r.stderr


@pytest.mark.parametrize("cmd", WRITES + ["extract"])
def test_unwritable_output(cmd, inputs, tmp_path):
    """exit 1, one line with the reason"""
    unwritable = str(tmp_path / "no-such-dir" / "out")
    r = cw(*args_for(cmd, COMMANDS[cmd][1], unwritable if COMMANDS[cmd][2] else "/proc/version/x", inputs))
    msgs = lines_of(r.stderr)
    assert r.returncode == 1 and len(msgs) == 1 and \
        re.search(r"No such file|Not a directory|denied|not a directory", msgs[0]) and not os.path.exists(unwritable), msgs


@pytest.mark.parametrize("cmd", JSON)
def test_json_one_array(cmd, inputs, tmp_path):
    a = args_for(cmd, COMMANDS[cmd][1], str(tmp_path / "out"), inputs)
    r = cw(a[0], "--json", *a[1:])
    doc = json.loads(r.stdout)
    assert isinstance(doc, list) and len(doc) >= 1, r.stdout[:100]


def every_command():
    """The commands `cudwarf --help` names (COMMANDS leaves some out)."""
    text = cw("--help").stdout
    block = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()]


ALL_COMMANDS = every_command()


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_help(cmd):
    """--help exits 0 and equals 'cudwarf help CMD'"""
    h1, h2 = cw(cmd, "--help"), cw("help", cmd)
    assert h1.returncode == 0 and h2.returncode == 0 and h1.stdout == h2.stdout and h1.stdout.startswith("usage:")


@pytest.mark.parametrize("how", [["help", "--help"], ["help", "-h"], ["-h"], ["help"]])
def test_help_of_help(how):
    """every way of asking for the main help gives it"""
    main, r = cw("--help"), cw(*how)
    assert r.returncode == 0 and r.stdout == main.stdout and not r.stderr, r.stderr


@pytest.mark.parametrize("cmd", ALL_COMMANDS + [None], ids=ALL_COMMANDS + ["main"])
def test_help_fits_80_columns(cmd):
    """every line of every --help, and of `cudwarf --help`, is at most 80
    columns wide (no tabs): a long usage line wraps, GNU-style"""
    r = cw(cmd, "--help") if cmd else cw("--help")
    wide = [f"{len(line)}: {line}" for line in r.stdout.splitlines() if len(line) > 80 or "\t" in line]
    assert r.returncode == 0 and r.stdout and wide == []


def test_man_page_fits_80_columns():
    """man/cudwarf.1 rendered by man at MANWIDTH=80 (as a reader's terminal
    shows it) has no line over 80 columns: its examples and no-fill blocks
    too, which groff does not wrap"""
    if not shutil.which("man") or not (shutil.which("groff") or shutil.which("nroff") or shutil.which("mandoc")):
        pytest.skip("man or groff/nroff is not installed here")
    env = dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat", LC_ALL="C.UTF-8")
    env.pop("MAN_KEEP_FORMATTING", None)
    r = subprocess.run(["man", "-l", os.path.join(ROOT, "man", "cudwarf.1")], env=env, capture_output=True)
    text = r.stdout.decode("utf-8", "replace")
    text = re.sub(r".\x08", "", re.sub(r"\x1b\[[0-9;]*m", "", text))  # bold/underline, if any
    assert r.returncode == 0 and text.count("\n") > 100, r.stderr.decode(errors="replace")[:300]
    wide = [f"{len(line)}: {line}" for line in text.splitlines() if len(line) > 80]  # columns: characters
    assert wide == []


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_help_names_the_options_of_every_command(cmd):
    """a --help ends with one line naming the options of every command that
    the command honours (of those `cudwarf --help` lists), each spelled as
    there: --sm=N, never --sm N; a command that honours none has no such line"""
    text = cw(cmd, "--help").stdout
    last = text.splitlines()[-1]
    assert not re.search(r"--sm [N0-9]", text), "spelled --sm=N everywhere"
    if cmd in ("line-encode", "strip", "remap"):  # they work on one whole input: none applies
        assert "Options of every command" not in text
        return
    assert last.startswith("Options of every command: ") and last.endswith(" (cudwarf --help)"), last


def honoured(cmd):
    """the options of every command that cmd's --help names on its last line"""
    last = cw(cmd, "--help").stdout.splitlines()[-1]
    return set(re.findall(r"--?[a-z][\w-]*", last.split(":", 1)[1])) if last.startswith("Options of every") else set()


def synopses(lines):
    """each "cudwarf ..." synopsis among lines, its continuation lines (those
    starting with a blank) joined, blanks collapsed; a note beside one or
    under one ("(...)") left out, and the lines about every command"""
    out = []
    for line in lines:
        line = re.sub(r"\s{2,}\(.*\)$", "", line)
        if line.startswith("cudwarf "):
            out.append(line)
        elif out and line[:1].isspace() and not line.strip().startswith("("):
            out[-1] += " " + line
    return {" ".join(s.split()) for s in out if not re.match(r"cudwarf (COMMAND|--version)", s)}


def test_synopses_agree():
    """the README's synopses and the man page's are the usage lines of the
    commands' --help, each of them"""
    usage = set()
    for cmd in ALL_COMMANDS:
        head = cw(cmd, "--help").stdout.split("\n\n")[0].replace("usage: ", "", 1)
        usage |= synopses([line.strip() if line.strip().startswith("cudwarf ") else line
                           for line in head.splitlines()])
    readme = open(os.path.join(ROOT, "README.md")).read()
    block = readme.split("## Commands", 1)[1].split("```\n", 2)[1]
    man = open(os.path.join(ROOT, "man", "cudwarf.1")).read()
    man = man.split(".SH SYNOPSIS\n", 1)[1].split(".SH ", 1)[0]
    for roff in ("\\-", "-"), ("\\fB", ""), ("\\fR", ""), ("\\fI", ""), (".B ", ""):
        man = man.replace(*roff)
    man = [" ".join(entry.split()) for entry in man.split(".br\n")]
    assert sorted(synopses(block.splitlines()) ^ usage) == [], "README vs --help"
    assert sorted(synopses(man) ^ usage) == [], "man page vs --help"


def listed_options(help_text):
    """(option, shows a value) for each option of the help's option list:
    the rows "  -x VAL, --name=VAL   help" (names end at two spaces)."""
    out = []
    for line in help_text.splitlines():
        if not re.match(r"  -", line):
            continue
        names = re.split(r"\s{2,}", line.strip())[0]
        for m in re.finditer(r"(?<![\w-])(--?[A-Za-z][\w-]*)([ =][A-Za-z_.=]+)?", names):
            out.append((m.group(1), m.group(2) is not None))
    return [o for o in out if o[0] not in ("-h", "--help")]


def parse_only(cmd, opt):
    """cmd with opt last and no input: the parser's verdict on opt."""
    return run(cmd, opt, timeout=60, stdin=subprocess.DEVNULL).stderr


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_listed_options_are_parsed(cmd):
    """every option --help lists is one the command parses (its own table,
    or main's options of every command), taking a value exactly when the
    list shows one.  The converse holds by construction: the list is
    printed from the parser's table, and the rows it leaves out are marked
    OPT_UNLISTED there."""
    listed = listed_options(cw(cmd, "--help").stdout)
    assert listed, "no option list"
    bad = []
    for opt, shows_value in listed:
        err = parse_only(cmd, opt)
        if "unknown option" in err or ("needs an argument" in err) != shows_value:
            bad.append((opt, shows_value, err.strip().splitlines()[:1]))
    assert bad == []


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_options_of_every_command(cmd):
    """the options `cudwarf --help` lists for every command: parsed by each
    command whose --help names them, refused (exit 2, "does not apply") by
    the others, never silently ignored"""
    listed = listed_options(cw("--help").stdout.split("options of every command:", 1)[1])
    assert len(listed) >= 3
    names = honoured(cmd)
    bad = []
    for opt, shows_value in listed:
        err = parse_only(cmd, opt)
        short = {"--jobs": "-j"}.get(opt, opt)
        if short in names or opt in names:
            ok = ("needs an argument" in err) == shows_value
        else:
            r = cw(cmd, opt + "=1" if opt.startswith("--") else opt, "1", CUBIN)
            ok = r.returncode == 2 and "does not apply to " + cmd in r.stderr
        if not ok:
            bad.append((opt, err.strip()))
    assert bad == []


@pytest.mark.parametrize("cmd", COMMANDS)
def test_man_page_names_every_option(cmd):
    man = open(os.path.join(ROOT, "man", "cudwarf.1")).read()
    for roff in ("\\-", "-"), ("\\fB", ""), ("\\fR", ""), ("\\fI", ""):
        man = man.replace(*roff)
    usage = cw(cmd, "--help").stdout.split("\n\n")[0]
    opts = sorted(set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", usage)) - {"-h", "--help"})
    assert [o for o in opts if o not in man] == [], f"of {opts}"


# --name=value is --name value
PAIRS = [(["lines", "--section=.debug_line", CUBIN], ["lines", "--section", ".debug_line", CUBIN]),
         (["dump", "--section=.debug_info", CUBIN], ["dump", "--section", ".debug_info", CUBIN]),
         (["lines", "--sm=90", FATBIN], ["lines", "--sm", "90", FATBIN]),
         (["lines", "--jobs=1", FATBIN], ["lines", "-j", "1", FATBIN]),
         (["addr2line", "--exe=" + CUBIN, "--function=_Z11tiny_kernelPii", "0x10"],
          ["addr2line", "--exe", CUBIN, "--function", "_Z11tiny_kernelPii", "0x10"]),
         (["dump", "--debug-dump=info", CUBIN], ["dump", "--debug-dump", "info", CUBIN])]


@pytest.mark.parametrize("a,b", [pytest.param(a, b, id=" ".join(x for x in a if "/" not in x)) for a, b in PAIRS])
def test_name_equals_value(a, b):
    ra, rb = cw(*a), cw(*b)
    assert ra.returncode == rb.returncode == 0 and ra.stdout == rb.stdout and ra.stdout, ra.stderr + rb.stderr


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_flag_given_a_value(cmd, tmp_path):
    """--flag=value for an option that takes none is a usage error, before
    any input is opened (it once became an operand: "--json=compact" read
    a file named "compact")"""
    flags = [o for o, shows_value in listed_options(cw(cmd, "--help").stdout) if o.startswith("--") and not shows_value]
    if not flags:
        pytest.skip(f"{cmd} has no long flag")
    (tmp_path / "x").write_text("not a cubin")
    for flag in flags:
        r = run(cmd, flag + "=x", CUBIN, timeout=60, stdin=subprocess.DEVNULL, cwd=str(tmp_path))
        assert r.returncode == 2 and f"option '{flag}' takes no value" in r.stderr and not r.stdout, (flag, r.stderr)


@pytest.mark.parametrize("typed,meant", [("--jsn", "--json"), ("--lnog", "--long"), ("--sectoin", "--section")])
def test_unknown_option_names_the_nearest(typed, meant):
    r = cw("lines", typed, CUBIN)
    assert r.returncode == 2 and f"unknown option '{typed}' (did you mean '{meant}'?)" in r.stderr


@pytest.mark.parametrize("args", [["correlate", "--top"], ["size", "-n"], ["lines", "-j"], ["line-encode", "--table"]])
@pytest.mark.parametrize("bad", ["-1", "+2", " 3", "99999999999999999999999", "3x", ""])
def test_numbers_are_numbers(args, bad):
    """a count takes digits only: strtoul alone read "-1" as its largest
    value and an overflow as ULONG_MAX (correlate --top -1 showed all)"""
    r = cw(*args, bad, CUBIN)
    assert r.returncode == 2 and r.stderr.startswith("cudwarf " + args[0] + ":"), r.stderr


def test_mistakes_said():
    """what a user types wrong gets its own words, exit 2: an option before
    the command, a command typo, two inputs to addr2line, --prefix without
    the page; --help answers whatever comes with it"""
    r = cw("--sm=90", "lines", CUBIN)
    assert r.returncode == 2 and "options come after it" in r.stderr, r.stderr
    r = cw("lnes", CUBIN)
    assert r.returncode == 2 and "did you mean 'lines'?" in r.stderr, r.stderr
    r = cw("addr2line", "-e", CUBIN, "-e", RDC, "x+0x0")
    assert r.returncode == 2 and "one input" in r.stderr, r.stderr
    r = cw("correlate", "--prefix", "a=b", CUBIN)
    assert r.returncode == 2 and "--prefix is for --html" in r.stderr, r.stderr
    r = cw("line-encode", "--help", "--sm=90")
    assert r.returncode == 0 and r.stdout.startswith("usage: cudwarf line-encode"), r.stderr


def test_no_option_after_double_dash(tmp_path):
    """after "--" an operand that looks like an option of every command is an operand"""
    r = cw("lines", "--", "--sm=90")
    assert r.returncode == 1 and "--sm=90: open" in r.stderr, r.stderr


@pytest.mark.parametrize("cmd", ["sections", "dump", "lines", "verify", "list", "extract", "size"])
def test_sm_the_input_lacks(cmd, tmp_path):
    """--sm=86 on an sm_75/sm_90 executable: exit 1, one line, nothing on stdout"""
    extra = ["-o", str(tmp_path / "smx")] if cmd == "extract" else []
    r = cw(cmd, "--sm=86", *extra, EXE)
    assert r.returncode == 1 and len(lines_of(r.stderr)) == 1 and "sm_86" in r.stderr and not r.stdout, r.stderr


@pytest.mark.parametrize("cmd", ["dump", "lines"])
def test_section_nothing_has(cmd):
    """--section .debug_nope: exit 1, one line, nothing on stdout"""
    r = cw(cmd, "--section", ".debug_nope", CUBIN)
    assert r.returncode == 1 and len(lines_of(r.stderr)) == 1 and ".debug_nope" in r.stderr and not r.stdout, r.stderr


def test_full_device():
    """a write to a full device: exit 1, the reason"""
    r = subprocess.run(f"{CUDWARF} lines {CUBIN} > /dev/full", shell=True, capture_output=True, text=True)
    assert r.returncode == 1 and "No space left" in r.stderr, r.stderr


def test_link_one_object_twice(tmp_path):
    """multiple definition, as nvlink refuses it: exit 1, no output"""
    r = cw("link", "-o", str(tmp_path / "twice"), RDC, RDC)
    assert r.returncode == 1 and "multiple definition" in r.stderr and not (tmp_path / "twice").exists(), r.stderr


def test_strip_refuses_host_elf(tmp_path):
    r = cw("strip", "-o", str(tmp_path / "x.exe"), EXE)
    assert r.returncode == 1 and "host ELF" in r.stderr and not (tmp_path / "x.exe").exists(), r.stderr


def test_line_encode_reads_host_executable_lines():
    """line-encode takes what lines --json prints for a host executable (an array of images)"""
    r = subprocess.run(f"{CUDWARF} lines --json {EXE} | {CUDWARF} line-encode --json -", shell=True,
                       capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)[0]["size"] > 0, r.stderr
