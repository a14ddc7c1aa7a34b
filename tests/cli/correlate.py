#!/usr/bin/env python3
"""cudwarf correlate: source <-> PTX <-> SASS, checked against other readers
and in a real browser.

For each input (the stage-1 fixtures with their PTX, the -G fixtures, and a
host object nvcc compiles now, whose fatbin carries the PTX entry):
  - every .nv_debug_line_sass row address (lines --json) is an instruction
    with that PTX line, and no instruction has a PTX line no row gives;
  - every instruction's frames are `addr2line -f -i --json`'s for
    SYMBOL+OFFSET;
  - the source lines' exclusive SASS bytes add up to the image's SASS bytes,
    and SASS + Mercury capsule bytes are `size --json`'s code bytes;
  - with .locs, the PTX instructions charged to lines are the instruction
    lines of the PTX (counted here from the text) whose .loc in effect has a
    line, and every instruction whose .loc chain (from the PTX text) equals
    its frames has no "loc" entry;
  - the fatbin's PTX entry is found and gives what --ptx with the extracted
    entry gives.
The HTML page: self-contained (no http(s) reference, no external resource),
and in headless Chromium (--dump-dom after its scripts ran) a click on a
source line, a PTX line and a PC highlights exactly the rows the JSON says;
a screenshot goes to OUT_DIR/correlate.png.  Chromium missing is a failure.

usage: correlate.py CUDWARF FIXTURE_DIR OUT_DIR
"""
import glob, json, os, re, shutil, subprocess, sys, tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from tally import Tally  # noqa: E402

CUDWARF, FIX, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
T = Tally("correlate")
tmp = tempfile.mkdtemp()
os.makedirs(OUT, exist_ok=True)
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "stage1")


def run(*a):
    return subprocess.run([CUDWARF, *a], capture_output=True, text=True)


def correlate(*a):
    r = run("correlate", "--json", *a)
    if r.returncode:
        T.check(f"correlate {' '.join(a)}", False, r.stderr.strip())
        return None
    return json.loads(r.stdout)


def sass_rows(path):
    """(section, address) -> PTX line of .nv_debug_line_sass, per image label."""
    r = run("lines", "--json", "--section", ".nv_debug_line_sass", path)
    out = {}
    for f in json.loads(r.stdout):
        for s in f["sections"]:
            for t in s["tables"]:
                rows = t["rows"]
                for a, b in zip(rows, rows[1:]):
                    if a["end_sequence"] or a["symbol"] is None:
                        continue
                    # a row covers [its address, the next row's)
                    out.setdefault(a["symbol"], []).append((a["address"] - 0, b["address"], a["line"], a["offset"]))
    return out


def ptx_expect(ptx_path):
    """PTX instruction lines whose .loc in effect has a line (nonzero), per
    (path, line): counted from the text, the way ptxas reads it (.file
    directives may come last: nvcc writes them after the functions)."""
    text = open(ptx_path, encoding="utf-8", errors="replace").read().splitlines()
    files = {int(m.group(1)): m.group(2) for m in
             (re.match(r'\s*\.file\s+(\d+)\s+"([^"]*)"', ln) for ln in text) if m}
    count, loc, depth = {}, None, 0
    for ln in text:
        s = ln.strip()
        m = re.match(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)", s)
        if m:
            loc = (int(m.group(1)), int(m.group(2)))
            continue
        if s.startswith("{"):
            depth += 1
            if depth == 1:
                loc = None  # a function's .locs start in its body
            continue
        if s.startswith("}"):
            depth -= 1
            continue
        if depth == 0 or not s or s.startswith(("//", ".", "$")) or s.endswith(":"):
            continue
        if loc and loc[1]:
            key = (files.get(loc[0]), loc[1])
            count[key] = count.get(key, 0) + 1
    return count


def check_image(name, img, path, ptx=None):
    insns = img["instructions"]
    T.check(f"{name}: {len(insns)} instructions, 16 bytes each, cover the SASS bytes",
            len(insns) * 16 == img["sass_bytes"] and all(i["size"] == 16 for i in insns))
    # PTX lines against .nv_debug_line_sass: a sequence's symbol starts its section
    rows = sass_rows(path)
    start = {i["symbol"]: i["section"] for i in insns if i["symbol"] and i["offset"] == 0}
    at = {(i["section"], i["pc"]): i for i in insns}
    want, bad, named = 0, [], []
    for sym, rs in rows.items():
        for lo, hi, line, off in rs:
            for a in range(lo, hi, 16):
                want += 1
                i = at.get((start.get(sym), a))
                if not i or i["ptx_line"] != line:
                    bad.append((sym, a, line, i and i["ptx_line"]))
                elif (i["symbol"], i["offset"]) != (sym, off + a - lo):
                    named.append((sym, off + a - lo, i["symbol"], i["offset"]))
    T.check(f"{name}: every .nv_debug_line_sass address ({want}) has its PTX line", want and not bad, str(bad[:3]))
    T.check(f"{name}: symbol and offset as the line rows give them", not named, str(named[:3]))
    extra = [i for i in insns if i["ptx_line"] is not None]
    T.check(f"{name}: no PTX line beyond the rows'", len(extra) == want, f"{len(extra)} vs {want}")
    # frames against addr2line
    locs = [f"{i['symbol']}+{i['offset']:#x}" for i in insns if i["symbol"]]
    r = subprocess.run([CUDWARF, "addr2line", "-f", "-i", "--json", "-e", path], input="\n".join(locs) + "\n",
                       capture_output=True, text=True)
    a2l = json.loads(r.stdout)
    mine = [i for i in insns if i["symbol"]]
    diff = [(m["symbol"], m["offset"]) for m, a in zip(mine, a2l) if m["frames"] != (a["frames"] if a["found"] else [])]
    T.check(f"{name}: frames = addr2line -f -i's at {len(a2l)} locations", len(a2l) == len(mine) and not diff,
            str(diff[:3]))
    # bytes
    total = sum(l["sass_bytes"] for l in img["source_lines"])
    T.check(f"{name}: source lines' SASS bytes add up ({total})", total == img["sass_bytes"],
            f"{total} vs {img['sass_bytes']}")
    T.check(f"{name}: functions' and files' SASS bytes add up",
            sum(f["sass_bytes"] for f in img["functions"]) == total == sum(f["sass_bytes"] for f in img["files"]))
    sz = json.loads(run("size", "--json", path).stdout)[0]["unpacked"]["code"]
    if "[" not in img["image"]:
        T.check(f"{name}: SASS + capsule bytes = size's code bytes ({sz})",
                img["sass_bytes"] + img["capsule_bytes"] == img["code_bytes"] == sz)
    # inclusive >= exclusive, and each instruction's chain lines are charged
    incl = {}
    for i in insns:
        seen = set()
        for f in i["frames"]:
            k = (f["path"], f["line"])
            if k not in seen:
                seen.add(k)
                incl[k] = incl.get(k, 0) + i["size"]
    got = {(l["path"], l["line"]): l["sass_bytes_inclusive"] for l in img["source_lines"] if l["path"]}
    T.check(f"{name}: inclusive bytes = those of the chains holding each line",
            all(got.get(k, 0) == v for k, v in incl.items()))
    if ptx:
        exp = ptx_expect(ptx)
        have = {(l["path"], l["line"]): l["ptx_instructions"] for l in img["source_lines"] if l["ptx_instructions"]}
        T.check(f"{name}: PTX instructions per line = the PTX text's ({sum(exp.values())})", have == exp,
                str(list(set(have.items()) ^ set(exp.items()))[:4]))
        T.check(f"{name}: .loc differences named", all(i["loc"]["reason"] for i in insns if "loc" in i))
    return img


# ---- inputs ----
pairs = []
for c in sorted(glob.glob(os.path.join(FIX, "stage1", "*.cubin"))):
    pairs.append((c, re.sub(r"(\.O\d)?\.cubin$", ".ptx", c)))
for c in ["inline_sm100_G.cubin", "calls_sm75_G.cubin", "inline_sm90_lineinfo.rdc.cubin"]:
    pairs.append((os.path.join(FIX, c), None))

for cubin, ptx in pairs:
    name = os.path.basename(cubin)
    d = correlate(*(["--ptx", ptx] if ptx else []), cubin)
    if not d:
        continue
    img = check_image(name, d[0], cubin, ptx)
    if ptx:
        T.check(f"{name}: PTX from the file given", img["ptx"][0]["source"] == "file")
    else:
        T.check(f"{name}: PTX from the section", all(p["source"] == "section" for p in img["ptx"]))

# Mercury: capsule bytes are said, not correlated
merc = [p for p in pairs if "sm100" in p[0] and "lineinfo" in p[0]]
if merc:
    d = correlate("--ptx", merc[0][1], merc[0][0])
    T.check("sm_100: Mercury capsule bytes counted apart", d and d[0]["capsule_bytes"] > 0)

# ---- the fatbin's PTX entry (a host object nvcc compiles now) ----
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
host = None
if not NVCC:
    print("note: nvcc not found: the fatbin PTX entry is not checked")
else:
    host = os.path.join(tmp, "heavy.o")
    shutil.copy(os.path.join(SRC, "heavy.cu"), tmp)
    r = subprocess.run([NVCC, "-arch=sm_90", "-lineinfo", "-c", "-o", host, os.path.join(tmp, "heavy.cu")],
                       capture_output=True, text=True)
    if T.check("nvcc -lineinfo -c heavy.cu", r.returncode == 0, r.stderr[-300:]):
        d = correlate(host)
        img = d and check_image("heavy.o", d[0], host)
        T.check("heavy.o: PTX from the fatbin's entry", img and img["ptx"][0]["source"] == "fatbin", img and img["ptx"])
        ex = os.path.join(tmp, "ex")
        run("extract", "-o", ex, host)
        p = glob.glob(os.path.join(ex, "*.ptx"))
        c = glob.glob(os.path.join(ex, "*.cubin"))
        if T.check("extract: the PTX entry and the cubin", p and c):
            e = correlate("--ptx", p[0], c[0])
            strip = lambda im: [{k: v for k, v in i.items()} for i in im["instructions"]]
            T.check("the fatbin entry gives what --ptx with it gives", e and strip(e[0]) == strip(img),
                    "instructions differ")
            a = run("ptx-lines", "--json", host)
            b = run("ptx-lines", "--json", p[0])
            T.check("ptx-lines of the host object reads its PTX entry: = the extracted PTX's",
                    a.returncode == 0 and a.stdout == b.stdout and json.loads(a.stdout), a.stderr)
            T.check("heavy.o: PTX instructions per line = the PTX text's",
                    {(l["path"], l["line"]): l["ptx_instructions"] for l in img["source_lines"] if l["ptx_instructions"]}
                    == ptx_expect(p[0]))

# ---- errors ----
wrong = [p for p in pairs if p[1]]
if len(wrong) >= 2:
    r = run("correlate", "--ptx", wrong[1][1], wrong[0][0])
    T.check("--ptx of another program: exit 1, names the line", r.returncode == 1 and "line" in r.stderr and
            r.stderr.count("\n") == 1, r.stderr)
d = correlate("--function", "sqrtf", os.path.join(FIX, "stage1", "twocalls_sm100_G.rdc.cubin"))
if d:
    im = d[0]
    T.check("--function: only its instructions; the lines add up to its bytes",
            {i["section"] for i in im["instructions"]} == {".text.sqrtf"} and
            sum(l["sass_bytes"] for l in im["source_lines"]) == im["sass_bytes"] == 16 * len(im["instructions"]) > 0)
r = run("correlate", "--function", "no_such_kernel", pairs[0][0])
T.check("--function unknown: exit 1, one line", r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr)
r = run("correlate", "--bogus", pairs[0][0])
T.check("unknown option: exit 2", r.returncode == 2, r.stderr)
r = run("correlate", "--html", os.path.join(FIX, "hostapp_lineinfo.exe"))
T.check("--html of several images: exit 2, says --sm", r.returncode == 2 and "--sm" in r.stderr, r.stderr)
r = run("correlate", "--top", "2", pairs[0][0])
T.check("text: --top 2 shows two lines", r.returncode == 0 and "top 2 source lines" in r.stdout, r.stdout[-300:])

# ---- HTML in Chromium ----


class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-kind" in a:
            self.rows.append(a)


def dom_after(html, fragment):
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chrome:
        return None
    url = "file://" + os.path.abspath(html) + "#" + fragment
    r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                        "--dump-dom", url], capture_output=True, text=True, timeout=120)
    return r.stdout


def expect(img, kind, key):
    """The rows a click highlights, from the JSON: PCs (section, pc), PTX lines, source lines."""
    ins = img["instructions"]
    if kind == "src":
        pcs = [i for i in ins if any((f["path"], f["line"]) == key for f in i["frames"])]
        return ({(i["section"], i["pc"]) for i in pcs}, {i["ptx_line"] for i in pcs if i["ptx_line"]}, {key})
    if kind == "ptx":
        pcs = [i for i in ins if i["ptx_line"] == key]
        return ({(i["section"], i["pc"]) for i in pcs}, {key},
                {(f["path"], f["line"]) for i in pcs for f in i["frames"]})
    pcs = [i for i in ins if (i["section"], i["pc"]) == key]
    return (set(key and [key]), {i["ptx_line"] for i in pcs if i["ptx_line"]},
            {(f["path"], f["line"]) for i in pcs for f in i["frames"]})


def html_checks(label, cubin, ptx):
    out = os.path.join(tmp, "c.html")
    args = (["--ptx", ptx] if ptx else []) + ["--html", "-o", out, "--prefix", "/tmp/p20/src=" + SRC, cubin]
    r = run("correlate", *args)
    if not T.check(f"{label}: --html -o writes the page", r.returncode == 0 and os.path.exists(out), r.stderr):
        return
    page = open(out, encoding="utf-8").read()
    T.check(f"{label}: self-contained (no http(s), no external resource)",
            not re.search(r"https?://", page) and not re.search(r"<(link|img|iframe)\b|(?<![\w-])(src|href)=", page))
    img = correlate(*(["--ptx", ptx] if ptx else []), cubin)[0]
    inl = [i for i in img["instructions"] if len(i["frames"]) > 1]
    pick = inl[len(inl) // 2] if inl else img["instructions"][len(img["instructions"]) // 2]
    src = (pick["frames"][-1]["path"], pick["frames"][-1]["line"])  # a call site: its inlined code too
    clicks = [("src", src, f"src:{src[0]}:{src[1]}"), ("ptx", pick["ptx_line"], f"ptx:0:{pick['ptx_line']}"),
              ("pc", (pick["section"], pick["pc"]), f"pc:{pick['section']}:{pick['pc']}")]
    for kind, key, frag in clicks:
        dom = dom_after(out, "click=" + frag)
        if dom is None:
            T.check("chromium is installed (scripts/install-deps.sh)", False, "no chromium on PATH")
            return
        p = Rows()
        p.feed(dom)
        T.check(f"{label}: the page's scripts ran", 'data-cudwarf-ready="1"' in dom and
                any("data-src" in a for a in p.rows) and any("data-ptx" in a for a in p.rows) and
                any("data-pc" in a for a in p.rows))
        hl = [a for a in p.rows if re.search(r"\b(hl|sel)\b", a.get("class", ""))]
        got_pc = {(a["data-section"], int(a["data-pc"], 16)) for a in hl if a["data-kind"] == "pc"}
        got_ptx = {int(a["data-ptx"]) for a in hl if a["data-kind"] == "ptx"}
        got_src = {(a["data-src"].rsplit(":", 1)[0], int(a["data-src"].rsplit(":", 1)[1])) for a in hl
                   if a["data-kind"] == "src"}
        want_pc, want_ptx, want_src = expect(img, kind, key)
        T.check(f"{label}: click {kind} {frag}: exactly its {len(want_pc)} PCs highlighted", got_pc == want_pc,
                f"{sorted(got_pc ^ want_pc)[:4]}")
        T.check(f"{label}: click {kind}: exactly its {len(want_ptx)} PTX lines", got_ptx == want_ptx,
                f"{sorted(got_ptx ^ want_ptx)[:4]}")
        T.check(f"{label}: click {kind}: exactly its {len(want_src)} source lines", got_src == want_src,
                f"{sorted(got_src ^ want_src)[:4]}")
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    png = os.path.join(OUT, "correlate.png")
    if os.path.exists(png):
        os.remove(png)
    subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                    "--window-size=1400,800", f"--screenshot={png}",
                    "file://" + os.path.abspath(out) + "#click=" + clicks[0][2]],
                   capture_output=True, timeout=120)
    T.check(f"{label}: screenshot {png}", os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
    T.check(f"{label}: source read from disk under --prefix", '"text":["' in page)


# heavy: its source is in tests/src/stage1, which --prefix maps the page to
stage = [p for p in pairs if p[1] and os.path.basename(p[0]).startswith("heavy_sm90")]
if stage:
    html_checks(os.path.basename(stage[0][0]), *stage[0])

shutil.rmtree(tmp, ignore_errors=True)
T.done()
