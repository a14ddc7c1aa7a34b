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
its data's summary --json's, a hostile source line escaped and shown as it
is, and in headless Chromium (--dump-dom after its scripts ran) a click on a
source line, a PTX line and a PC highlights exactly the rows the JSON says;
a screenshot goes to BUILD/test-output/correlate.png.  Chromium missing is
a failure; nvcc missing skips the host object's tests.

    python3 -m pytest -m correlate
    python3 -m pytest -m correlate -k html
"""
import glob
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from suite_env import BUILD, FIX, ROOT, run, short

pytestmark = pytest.mark.correlate

OUT = os.path.join(BUILD, "test-output")
SRC = os.path.join(ROOT, "tests", "src", "stage1")

# (cubin, its PTX or None): the stage-1 fixtures with their PTX, and -G/-lineinfo fixtures
PAIRS = [(c, re.sub(r"(\.O\d)?\.cubin$", ".ptx", c)) for c in sorted(glob.glob(os.path.join(FIX, "stage1", "*.cubin")))]
PAIRS += [(os.path.join(FIX, c), None) for c in ["inline_sm100_G.cubin", "calls_sm75_G.cubin",
                                                  "inline_sm90_lineinfo.rdc.cubin"]]
WITH_PTX = [p for p in PAIRS if p[1]]


def correlate(*a):
    r = run("correlate", "--json", *a)
    assert r.returncode == 0, f"correlate {' '.join(a)}: {r.stderr.strip()}"
    return json.loads(r.stdout)


def sass_rows(path):
    """symbol -> [(address, next row's address, PTX line, offset)] of .nv_debug_line_sass"""
    out = {}
    for f in json.loads(run("lines", "--json", "--section", ".nv_debug_line_sass", path).stdout):
        for s in f["sections"]:
            for t in s["tables"]:
                rows = t["rows"]
                for a, b in zip(rows, rows[1:]):
                    if a["end_sequence"] or a["symbol"] is None:
                        continue
                    # a row covers [its address, the next row's)
                    out.setdefault(a["symbol"], []).append((a["address"], b["address"], a["line"], a["offset"]))
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


def ptx_per_line(img):
    return {(l["path"], l["line"]): l["ptx_instructions"] for l in img["source_lines"] if l["ptx_instructions"]}


def check_image(check, img, path, ptx=None):
    insns = img["instructions"]
    check(f"{len(insns)} instructions, 16 bytes each, cover the SASS bytes",
          len(insns) * 16 == img["sass_bytes"] and all(i["size"] == 16 for i in insns))
    # PTX lines against .nv_debug_line_sass: a sequence's symbol starts its section
    start = {i["symbol"]: i["section"] for i in insns if i["symbol"] and i["offset"] == 0}
    at = {(i["section"], i["pc"]): i for i in insns}
    want, bad, named = 0, [], []
    for sym, rs in sass_rows(path).items():
        for lo, hi, line, off in rs:
            for a in range(lo, hi, 16):
                want += 1
                i = at.get((start.get(sym), a))
                if not i or i["ptx_line"] != line:
                    bad.append((sym, a, line, i and i["ptx_line"]))
                elif (i["symbol"], i["offset"]) != (sym, off + a - lo):
                    named.append((sym, off + a - lo, i["symbol"], i["offset"]))
    check(f"every .nv_debug_line_sass address ({want}) has its PTX line", want and not bad, str(bad[:3]))
    check("symbol and offset as the line rows give them", not named, str(named[:3]))
    extra = [i for i in insns if i["ptx_line"] is not None]
    check("no PTX line beyond the rows'", len(extra) == want, f"{len(extra)} vs {want}")
    # frames against addr2line
    mine = [i for i in insns if i["symbol"]]
    locs = [f"{i['symbol']}+{i['offset']:#x}" for i in mine]
    a2l = json.loads(run("addr2line", "-f", "-i", "--json", "-e", path, input="\n".join(locs) + "\n").stdout)
    diff = [(m["symbol"], m["offset"]) for m, a in zip(mine, a2l) if m["frames"] != (a["frames"] if a["found"] else [])]
    check(f"frames = addr2line -f -i's at {len(a2l)} locations", len(a2l) == len(mine) and not diff, str(diff[:3]))
    # bytes
    total = sum(l["sass_bytes"] for l in img["source_lines"])
    check(f"source lines' SASS bytes add up ({total})", total == img["sass_bytes"], f"{total} vs {img['sass_bytes']}")
    check("functions' and files' SASS bytes add up",
          sum(f["sass_bytes"] for f in img["functions"]) == total == sum(f["sass_bytes"] for f in img["files"]))
    if "[" not in img["image"]:
        sz = json.loads(run("size", "--json", path).stdout)[0]["unpacked"]["code"]
        check(f"SASS + capsule bytes = size's code bytes ({sz})",
              img["sass_bytes"] + img["capsule_bytes"] == img["code_bytes"] == sz)
    # inclusive >= exclusive, and each instruction's chain lines are charged
    incl = {}
    for i in insns:
        for k in {(f["path"], f["line"]) for f in i["frames"]}:
            incl[k] = incl.get(k, 0) + i["size"]
    got = {(l["path"], l["line"]): l["sass_bytes_inclusive"] for l in img["source_lines"] if l["path"]}
    check("inclusive bytes = those of the chains holding each line", all(got.get(k, 0) == v for k, v in incl.items()))
    if ptx:
        exp, have = ptx_expect(ptx), ptx_per_line(img)
        check(f"PTX instructions per line = the PTX text's ({sum(exp.values())})", have == exp,
              str(list(set(have.items()) ^ set(exp.items()))[:4]))
        check(".loc differences named", all(i["loc"]["reason"] for i in insns if "loc" in i))


@pytest.mark.parametrize("cubin,ptx", [pytest.param(c, p, id=short(c)) for c, p in PAIRS])
def test_image(cubin, ptx, check):
    img = correlate(*(["--ptx", ptx] if ptx else []), cubin)[0]
    check_image(check, img, cubin, ptx)
    if ptx:
        check("PTX from the file given", img["ptx"][0]["source"] == "file")
    else:
        check("PTX from the section", all(p["source"] == "section" for p in img["ptx"]))


def test_mercury_capsule_bytes():
    """sm_100: Mercury capsule bytes are said, not correlated"""
    merc = [p for p in PAIRS if "sm100" in p[0] and "lineinfo" in p[0]]
    if not merc:
        pytest.skip("no sm_100 -lineinfo stage-1 fixture")
    assert correlate("--ptx", merc[0][1], merc[0][0])[0]["capsule_bytes"] > 0


# ---- the fatbin's PTX entry (a host object nvcc compiles now) ----
@pytest.fixture(scope="module")
def heavy(tmp_path_factory):
    """heavy.o (nvcc -lineinfo -c) and its correlate image"""
    nvcc = shutil.which("nvcc") or next((p for p in ["/usr/local/cuda/bin/nvcc"] if os.path.exists(p)), None)
    if not nvcc:
        pytest.skip("nvcc is not installed: the fatbin's PTX entry is not checked")
    tmp = tmp_path_factory.mktemp("heavy")
    shutil.copy(os.path.join(SRC, "heavy.cu"), tmp)
    host = str(tmp / "heavy.o")
    r = subprocess.run([nvcc, "-arch=sm_90", "-lineinfo", "-c", "-o", host, str(tmp / "heavy.cu")],
                       capture_output=True, text=True)
    assert r.returncode == 0, f"nvcc -lineinfo -c heavy.cu: {r.stderr[-300:]}"
    return host, correlate(host)[0]


@pytest.fixture(scope="module")
def heavy_entries(heavy, tmp_path_factory):
    """extract's PTX entry and cubin of heavy.o"""
    ex = str(tmp_path_factory.mktemp("heavy_ex") / "ex")
    run("extract", "-o", ex, heavy[0])
    p, c = glob.glob(os.path.join(ex, "*.ptx")), glob.glob(os.path.join(ex, "*.cubin"))
    assert p and c, "extract: the PTX entry and the cubin"
    return p[0], c[0]


def test_host_object(heavy, check):
    host, img = heavy
    check_image(check, img, host)
    check("PTX from the fatbin's entry", img["ptx"][0]["source"] == "fatbin", img["ptx"])


def test_fatbin_entry_is_ptx_option(heavy, heavy_entries):
    """the fatbin entry gives what --ptx with the extracted entry gives"""
    e = correlate("--ptx", *heavy_entries)
    assert e[0]["instructions"] == heavy[1]["instructions"], "instructions differ"


def test_ptx_lines_of_host_object(heavy, heavy_entries):
    """ptx-lines of the host object reads its PTX entry: = the extracted PTX's"""
    a = run("ptx-lines", "--json", heavy[0])
    b = run("ptx-lines", "--json", heavy_entries[0])
    assert a.returncode == 0 and a.stdout == b.stdout and json.loads(a.stdout), a.stderr


def test_host_object_ptx_per_line(heavy, heavy_entries):
    """heavy.o: PTX instructions per line = the PTX text's"""
    assert ptx_per_line(heavy[1]) == ptx_expect(heavy_entries[0])


# ---- errors ----
def test_ptx_of_another_program():
    """--ptx of another program: exit 1, names the line"""
    if len(WITH_PTX) < 2:
        pytest.skip("fewer than two stage-1 fixtures with their PTX")
    r = run("correlate", "--ptx", WITH_PTX[1][1], WITH_PTX[0][0])
    assert r.returncode == 1 and "line" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_function_only_its_instructions():
    """--function: only its instructions; the lines add up to its bytes"""
    im = correlate("--function", "sqrtf", os.path.join(FIX, "stage1", "twocalls_sm100_G.rdc.cubin"))[0]
    assert {i["section"] for i in im["instructions"]} == {".text.sqrtf"}
    assert sum(l["sass_bytes"] for l in im["source_lines"]) == im["sass_bytes"] == 16 * len(im["instructions"]) > 0


def test_function_unknown():
    r = run("correlate", "--function", "no_such_kernel", PAIRS[0][0])
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr


def test_unknown_option():
    r = run("correlate", "--bogus", PAIRS[0][0])
    assert r.returncode == 2, r.stderr


def test_html_of_several_images():
    """--html of several images: exit 2, names their SMs and says --sm;
    --function is offered only while it was not given (it does not choose
    among images that all define the function)"""
    fat = os.path.join(FIX, "inline_G_speed.fatbin")
    r = run("correlate", "--html", fat)
    assert r.returncode == 2 and "(sm_75, sm_90, sm_100)" in r.stderr and "--function NAME" in r.stderr, r.stderr
    r = run("correlate", "--html", "--function", "_Z11blur_kernelPKfPfi", fat)
    assert r.returncode == 2 and "define _Z11blur_kernelPKfPfi" in r.stderr, r.stderr
    assert "--sm N\n" in r.stderr and "--function NAME" not in r.stderr, r.stderr
    r = run("correlate", "--html", "--function", "_Z11blur_kernelPKfPfi", "--sm", "90", "-o", os.devnull, fat)
    assert r.returncode == 0, r.stderr


def test_demangle_every_function_name():
    """-C: every "function" of the JSON is demangled (c++filt's), with the
    linkage name beside it; without -C the linkage names alone"""
    cubin = os.path.join(FIX, "stage1", "templ_sm90_lineinfo.O2.cubin")
    ptx = os.path.join(FIX, "stage1", "templ_sm90_lineinfo.ptx")
    plain = json.loads(run("correlate", "--json", "--ptx", ptx, cubin).stdout)[0]
    dem = json.loads(run("correlate", "--json", "-C", "--ptx", ptx, cubin).stdout)[0]

    def names(img):
        out = []
        for ins in img["instructions"]:
            out += ins["frames"] + (ins["loc"]["frames"] if "loc" in ins else [])
        for line in img["source_lines"]:
            out += line["functions"] + line["callers"]
        return out + img["functions"]
    pn, dn = names(plain), names(dem)
    assert len(pn) == len(dn) > 10
    mangled = sorted({x["function"] for x in pn if x["function"] and x["function"].startswith("_Z")})
    assert mangled and not any("linkage_name" in x for x in pn)
    filt = dict(zip(mangled, subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True,
                                            text=True).stdout.splitlines()))
    for p, d in zip(pn, dn):
        if p["function"] in filt:
            assert (d["function"], d["linkage_name"]) == (filt[p["function"]], p["function"]), d


def test_no_line_tables_said_once(tmp_path):
    """an image without line rows gets no report of its own in the text,
    one line says so (a library of thousands gave thousands of reports);
    JSON keeps the image"""
    out = str(tmp_path / "s.cubin")
    assert run("strip", "-o", out, os.path.join(FIX, "tiny_sm90_G.cubin")).returncode == 0
    r = run("correlate", out)
    assert r.returncode == 0 and r.stdout == out + ": no line tables in 1 image with code (built without " \
        "-lineinfo or -G)\n", r.stdout
    doc = json.loads(run("correlate", "--json", out).stdout)
    assert len(doc) == 1 and doc[0]["with_line"] == 0 and doc[0]["instruction_count"] == 64


def test_text_top_0_is_every_line_with_code():
    """--top 0 lists every line with code, its own or inlined at it (a call
    site with no code of its own was missing): the JSON's lines with bytes"""
    f = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    doc = json.loads(run("correlate", "--json", f).stdout)[0]
    want = sum(1 for l in doc["source_lines"] if l["sass_bytes"] or l["sass_bytes_inclusive"])
    assert want > sum(1 for l in doc["source_lines"] if l["sass_bytes"])  # the fixture has such call sites
    assert f"top {want} source lines" in run("correlate", "--top", "0", f).stdout


def test_text_top():
    r = run("correlate", "--top", "2", PAIRS[0][0])
    assert r.returncode == 0 and "top 2 source lines" in r.stdout, r.stdout[-300:]


# ---- HTML in Chromium ----
def chromium():
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    assert chrome, "chromium is not installed (scripts/install-deps.sh)"
    return chrome


class Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-kind" in a:
            self.rows.append(a)


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


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page of heavy_sm90's stage-1 fixture (its source is in
    tests/src/stage1, which --prefix maps the page to): (path, text, image,
    {click kind: (key, URL fragment)})."""
    stage = [p for p in WITH_PTX if os.path.basename(p[0]).startswith("heavy_sm90")]
    if not stage:
        pytest.skip("no heavy_sm90 stage-1 fixture")
    cubin, ptx = stage[0]
    out = str(tmp_path_factory.mktemp("html") / "c.html")
    r = run("correlate", "--ptx", ptx, "--html", "-o", out, "--prefix", "/tmp/p20/src=" + SRC, cubin)
    assert r.returncode == 0 and os.path.exists(out), f"--html -o writes the page: {r.stderr}"
    img = correlate("--ptx", ptx, cubin)[0]
    inl = [i for i in img["instructions"] if len(i["frames"]) > 1]
    pick = inl[len(inl) // 2] if inl else img["instructions"][len(img["instructions"]) // 2]
    src = (pick["frames"][-1]["path"], pick["frames"][-1]["line"])  # a call site: its inlined code too
    clicks = {"src": (src, f"src:{src[0]}:{src[1]}"), "ptx": (pick["ptx_line"], f"ptx:0:{pick['ptx_line']}"),
              "pc": ((pick["section"], pick["pc"]), f"pc:{pick['section']}:{pick['pc']}")}
    return out, open(out, encoding="utf-8").read(), img, clicks


def test_html_self_contained(page):
    """no http(s), no external resource"""
    text = page[1]
    assert not re.search(r"https?://", text)
    assert not re.search(r"<(link|img|iframe)\b|(?<![\w-])(src|href)=", text)


def test_html_assets_from_the_tree(page):
    """the style and script are tools/page's files, verbatim, in the template's order"""
    page_dir = os.path.join(ROOT, "tools", "page")
    css = open(os.path.join(page_dir, "correlate.css"), encoding="utf-8").read()
    js = open(os.path.join(page_dir, "correlate.js"), encoding="utf-8").read()
    text = page[1]
    assert f"<style>\n{css}</style>" in text
    assert f"<script>\n{js}</script>" in text
    assert text.index(css) < text.index('id="cudwarf-data"') < text.index(js)


def test_html_source_from_disk(page):
    """the source is read from disk under --prefix"""
    assert '"text":["' in page[1]


def page_data(text):
    """the data object of a page"""
    return json.loads(re.search(r'<script type="application/json" id="cudwarf-data">(.*?)</script>', text, re.S)[1])


def test_html_summary_is_json(page):
    """the page's summary is --json's image object up to "instructions" (one printer writes both)"""
    img, data = page[2], page_data(page[1])
    head = {}
    for k, v in img.items():
        if k == "instructions":
            break
        head[k] = v
    assert data["version"] == 2 and data["summary"] == head, data["summary"]
    assert [len(t) for t in data["ptx_text"]] == [p["lines"] for p in head["ptx"]]


def test_html_hostile_source(tmp_path, check):
    """a source line that could end the script or read as a URL: escaped in the page's bytes, the same
    line after JSON.parse, and shown as it is"""
    stage = [p for p in WITH_PTX if os.path.basename(p[0]).startswith("heavy_sm90")]
    if not stage:
        pytest.skip("no heavy_sm90 stage-1 fixture")
    cubin, ptx = stage[0]
    hostile = '// </script><!-- http://x//y///z "q" \\ \t\x01\x7f caf\u00e9 \u65e5\u672c'
    src = open(os.path.join(SRC, "heavy.cu"), encoding="utf-8").read() + hostile + "\n"
    (tmp_path / "heavy.cu").write_text(src, encoding="utf-8")
    out = tmp_path / "h.html"
    r = run("correlate", "--ptx", ptx, "--html", "-o", str(out), "--prefix", f"/tmp/p20/src={tmp_path}", cubin)
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    raw = re.search(r'id="cudwarf-data">(.*?)</script>', text, re.S)[1]
    check("nothing in the data ends the script or reads as a URL", not re.search(r"</script|<!--|https?://", raw))
    check("the source's lines after JSON.parse", page_data(text)["files"][0]["text"] == src.split("\n")[:-1])
    dom = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", "file://" + str(out)], capture_output=True, text=True, timeout=120).stdout
    check("the page's scripts ran", 'data-cudwarf-ready="1"' in dom)
    check("the line shown as it is", "&lt;/script&gt;&lt;!-- http://x//y///z" in dom and "caf\u00e9 \u65e5\u672c" in dom)


@pytest.mark.parametrize("kind", ["src", "ptx", "pc"])
def test_html_click(page, kind, check):
    """a click highlights exactly the PCs, PTX lines and source lines the JSON says"""
    out, _, img, clicks = page
    key, frag = clicks[kind]
    r = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                        "--dump-dom", "file://" + os.path.abspath(out) + "#click=" + frag],
                       capture_output=True, text=True, timeout=120)
    dom = r.stdout
    p = Rows()
    p.feed(dom)
    check("the page's scripts ran", 'data-cudwarf-ready="1"' in dom and any("data-src" in a for a in p.rows) and
          any("data-ptx" in a for a in p.rows) and any("data-pc" in a for a in p.rows))
    hl = [a for a in p.rows if re.search(r"\b(hl|sel)\b", a.get("class", ""))]
    got_pc = {(a["data-section"], int(a["data-pc"], 16)) for a in hl if a["data-kind"] == "pc"}
    got_ptx = {int(a["data-ptx"]) for a in hl if a["data-kind"] == "ptx"}
    got_src = {(a["data-src"].rsplit(":", 1)[0], int(a["data-src"].rsplit(":", 1)[1])) for a in hl
               if a["data-kind"] == "src"}
    want_pc, want_ptx, want_src = expect(img, kind, key)
    check(f"{frag}: exactly its {len(want_pc)} PCs highlighted", got_pc == want_pc, f"{sorted(got_pc ^ want_pc)[:4]}")
    check(f"exactly its {len(want_ptx)} PTX lines", got_ptx == want_ptx, f"{sorted(got_ptx ^ want_ptx)[:4]}")
    check(f"exactly its {len(want_src)} source lines", got_src == want_src, f"{sorted(got_src ^ want_src)[:4]}")


def test_html_screenshot(page):
    """a screenshot of the page after a click on a source line, for people to look at"""
    os.makedirs(OUT, exist_ok=True)
    png = os.path.join(OUT, "correlate.png")
    if os.path.exists(png):
        os.remove(png)
    subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                    "--window-size=1400,800", f"--screenshot={png}",
                    "file://" + os.path.abspath(page[0]) + "#click=" + page[3]["src"][1]],
                   capture_output=True, timeout=120)
    assert os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", png
