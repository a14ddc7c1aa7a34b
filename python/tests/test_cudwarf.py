"""The Python package against the command line (the same library, asked
through ctypes) and against the C header's layouts.

Run from the repository:  CUDWARF=build/cudwarf python3 -m pytest python/tests
(tests/run.sh does; the package finds build/libcudwarf.so itself).
"""
import csv, glob, json, os, shutil, subprocess, sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cudwarf  # noqa: E402
from cudwarf import _lib  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests", "common"))
import lines_json  # noqa: E402

CUDWARF = os.environ.get("CUDWARF", os.path.join(ROOT, "build", "cudwarf"))
FIX = os.path.join(ROOT, "tests", "fixtures")
GEN = os.path.join(ROOT, "build", "gen")


def cli(*args, input=None):
    r = subprocess.run([CUDWARF, *args], capture_output=True, text=True, input=input)
    return r


def inputs():
    """Fixtures and, when tests/gen.sh ran, compiled cubins (lineinfo and -G, links)."""
    files = [os.path.join(FIX, n) for n in ("hostapp_lineinfo.exe", "inline_sm100_G.cubin", "inline_G_speed.fatbin",
                                             "inline_sm90_lineinfo.rdc.cubin", "elfutils_nvidia_linemap_sm80.cubin",
                                             "virt_sm90_lineinfo.link.g.cubin")]
    files += sorted(glob.glob(os.path.join(GEN, "sm_90", "*", "link.g.cubin")))
    files += sorted(glob.glob(os.path.join(GEN, "cub", "cub_block.sm_90.cubin")))
    return [f for f in files if os.path.exists(f)]


def locations(path, limit=300):
    """symbol+offset of rows of the file's line tables (every few), and misses."""
    doc = json.loads(cli("lines", "--json", "--section", ".debug_line", path).stdout)
    docs = doc if isinstance(doc, list) else [doc]
    locs = []
    for d in docs:
        for s in d["sections"]:
            for t in s["tables"]:
                for r in lines_json.rows(t):
                    if r["symbol"] and not r["end_sequence"]:
                        locs.append(f"{r['symbol']}+0x{r['offset'] + 2:x}")
    step = max(1, len(locs) // limit)
    return locs[::step] + ["nosuch_symbol+0x10", locs[0].split("+")[0] + "+0xfffffff0" if locs else "x"]


def test_struct_sizes_match_the_header(tmp_path):
    """Every structure Python lays out, and the library's own answer
    (cudw_struct_size), against what the C compiler makes of the header."""
    cc = shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler to measure the header's structures")
    layouts = dict(_lib._LAYOUTS)
    opaque = {"UNIT_SIZE": "cudw_unit", "LINE_ITER_SIZE": "cudw_line_iter", "DIE_ITER_SIZE": "cudw_die_iter",
              "ATTR_ITER_SIZE": "cudw_attr_iter"}
    src = str(tmp_path / "sizes.c")
    exe = str(tmp_path / "sizes")
    with open(src, "w") as f:
        f.write("#include <cudwarf.h>\n#include <stdio.h>\nint main(void){\n")
        for c in list(layouts) + list(opaque.values()):
            f.write(f'printf("{c} %zu\\n", sizeof({c}));\n')
        f.write('printf("abi %d\\n", CUDW_ABI_VERSION);\n')
        for c in ("CUDW_V_SIGNED", "CUDW_V_STRING", "CUDW_V_BLOCK", "CUDW_SYM_DEMANGLE", "CUDW_SYM_PTX",
                  "CUDW_E_NOT_FOUND", "CUDW_E_ARG") + SIZE_CLASSES + ("CUDW_SIZE_NCLASSES",):
            f.write(f'printf("{c} %d\\n", (int)({c}));\n')
        f.write("return 0;}\n")
    # the package lays out the experimental structures too (resources, PTX, correlation)
    subprocess.run([cc, "-DCUDW_EXPERIMENTAL", "-I", os.path.join(ROOT, "include"), "-o", exe, src], check=True)
    got = dict(line.split() for line in subprocess.run([exe], capture_output=True, text=True).stdout.splitlines())
    import ctypes
    assert int(got["abi"]) == _lib.ABI_VERSION == _lib.lib.cudw_abi_version()
    for c, t in layouts.items():
        assert ctypes.sizeof(t) == int(got[c]) == _lib.struct_size(c), c
    for py, c in opaque.items():
        assert getattr(_lib, py) == int(got[c]) == _lib.struct_size(c), c
    assert _lib.struct_size("no_such_struct") == 0
    for c in ("V_SIGNED", "V_STRING", "V_BLOCK", "SYM_DEMANGLE", "SYM_PTX", "E_NOT_FOUND", "E_ARG"):
        assert getattr(_lib, c) == int(got["CUDW_" + c]), c
    # SectionClass: enum cudw_size_class member by member, nothing more or less
    assert [(c.name, int(c)) for c in cudwarf.SectionClass] == [(c[10:], int(got[c])) for c in SIZE_CLASSES]
    assert len(cudwarf.SectionClass) == _lib.SIZE_NCLASSES == int(got["CUDW_SIZE_NCLASSES"])


# enum cudw_size_class (include/cudwarf/inputs.h), in order
SIZE_CLASSES = ("CUDW_SIZE_CODE", "CUDW_SIZE_DATA", "CUDW_SIZE_DEBUG", "CUDW_SIZE_NV_DEBUG", "CUDW_SIZE_METADATA",
                "CUDW_SIZE_SYMBOLS", "CUDW_SIZE_RELOCS", "CUDW_SIZE_OTHER", "CUDW_SIZE_HEADERS")


def same_as_json(obj, want, where="record"):
    """A record of the package against the CLI's JSON: the same keys, each
    attribute (and obj[key]) the JSON's value, records and lists of them
    compared the same way down to the leaves."""
    if isinstance(want, dict):
        assert isinstance(obj, cudwarf._Record), (where, type(obj))
        assert list(obj.keys()) == [k for k in type(obj).__dataclass_fields__ if k in want], where
        assert set(obj.keys()) == set(want), (where, set(obj.keys()) ^ set(want))
        for k, v in want.items():
            assert obj[k] is getattr(obj, k), (where, k)
            same_as_json(getattr(obj, k), v, f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(obj, list) and len(obj) == len(want), where
        for i, (o, w) in enumerate(zip(obj, want)):
            same_as_json(o, w, f"{where}[{i}]")
    else:
        assert obj == want and type(obj) is type(want) or (obj == want and isinstance(want, int)), \
            (where, obj, want)


def test_correlate_equals_the_cli_json():
    """cudwarf.correlate returns the records of `correlate --json`."""
    cases = [(os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.O3.cubin"),
              os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.ptx"), False),
             (os.path.join(FIX, "stage1", "heavy_sm100_lineinfo.rdc.O3.cubin"),
              os.path.join(FIX, "stage1", "heavy_sm100_lineinfo.rdc.ptx"), True),
             (os.path.join(FIX, "inline_sm100_G.cubin"), None, True)]
    for cubin, ptx, dem in cases:
        args = (["--ptx", ptx] if ptx else []) + (["-C"] if dem else [])
        want = json.loads(cli("correlate", "--json", *args, cubin).stdout)
        got = cudwarf.correlate(cubin, ptx=ptx, demangle=dem)
        assert all(isinstance(c, cudwarf.Correlation) for c in got)
        same_as_json(got, want, cubin)                    # attribute by attribute
        assert [c.to_dict() for c in got] == want, cubin  # the JSON's dicts
        assert got == want                                # the mappings of 0.1, still
        assert any("loc" in i for i in got[0]["instructions"]) or not ptx
        assert any(i.loc is not None for i in got[0].instructions) or not ptx
    one = cudwarf.correlate(cases[0][0], ptx=cases[0][1], function="_Z4kernPKfPfi")[0]
    assert {i["section"] for i in one["instructions"]} == {".text._Z4kernPKfPfi"}
    assert {i.section for i in one.instructions} == {".text._Z4kernPKfPfi"}
    with pytest.raises(cudwarf.NotFoundError):  # a ValueError before 0.2 (README: API changes)
        cudwarf.correlate(cases[0][0], function="no_such_function")
    short = cudwarf.correlate(cases[0][0], ptx=cases[0][1], function="kern")[0]  # the short name
    assert short["instructions"] == one["instructions"]
    with pytest.raises(cudwarf.Error):
        cudwarf.correlate(cases[0][0], ptx=cases[1][1])  # another program's PTX


def test_ptx_lines_and_predict():
    ptx = os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.ptx")
    cubin = os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.O3.cubin")
    want = json.loads(cli("ptx-lines", "--json", ptx).stdout)
    got = cudwarf.ptx_lines(ptx)
    same_as_json(got, want, ptx)
    assert [x.to_dict() for x in got] == want and got == want
    assert all(isinstance(x, cudwarf.PtxLine) and all(isinstance(f, cudwarf.PtxFrame) for f in x.frames) for x in got)
    import struct
    d = open(cubin, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    esz, num, stx = struct.unpack_from("<HHH", d, 0x3a)
    hs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * esz) for i in range(num)]
    names = {d[hs[stx][4] + h[0]:d.index(b"\0", hs[stx][4] + h[0])].decode(): h for h in hs}
    h = names[".debug_line"]
    assert cudwarf.ptx_predict(ptx, cubin) == d[h[4]:h[4] + h[5]]


def test_ptx_error_is_located(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_90\n.file 1 \"a.cu\"\n.entry k()\n{\n"
                   ".loc 1 3 1, function_name $L__s, inlined_at 1 9 9\nret;\n}\n")
    with pytest.raises(cudwarf.PtxError) as e:
        cudwarf.ptx_lines(str(bad))
    assert e.value.line == 6 and str(e.value).startswith(str(bad) + ":6:")


def test_records_are_objects_and_mappings():
    """A correlation record: typed attributes (dataclass fields with type hints), the keys the JSON
    leaves out absent from the mapping and None as attributes, read-only, unhashable as a dict is."""
    import dataclasses, typing
    cubin = os.path.join(FIX, "inline_sm100_G.cubin")
    c, = cudwarf.correlate(cubin, demangle=True)
    assert dataclasses.is_dataclass(c) and typing.get_type_hints(cudwarf.Instruction)["frames"] == \
        typing.List[cudwarf.SourceFrame]
    with_sym = [i for i in c.instructions if i.symbol]
    assert with_sym and all("offset" in i and i["offset"] == i.offset for i in with_sym)
    no_loc = c.instructions[0]
    assert no_loc.loc is None and "loc" not in no_loc and no_loc.get("loc", "absent") == "absent"
    with pytest.raises(KeyError):
        no_loc["loc"]
    with pytest.raises(KeyError):
        no_loc["_absent"]
    fr = c.instructions[0].frames[0]
    assert isinstance(fr, cudwarf.SourceFrame) and fr.linkage_name and fr["linkage_name"] == fr.linkage_name
    plain, = cudwarf.correlate(cubin)
    assert plain.instructions[0].frames[0].linkage_name is None
    assert "linkage_name" not in plain.instructions[0].frames[0]
    with pytest.raises(TypeError):
        c["sm"] = 0  # a mapping to read
    assert json.loads(json.dumps(c.to_dict())) == c.to_dict()
    assert c.source_lines[-1].path is None  # "no line", last, as in the JSON


def test_section_classes_and_sizes_equal_the_cli():
    """ImageInfo.sizes: every SectionClass, as `size --json` counts them (summed over a container's
    images); ImageInfo.section_classes: the class of each section, whose sections' bytes (those
    no earlier section holds, `sections --json`'s offsets) add up to those sizes."""
    for name in ("tiny_sm90_G.cubin", "inline_sm100_G.cubin", "inline_G_speed.fatbin", "hostapp_lineinfo.exe"):
        path = os.path.join(FIX, name)
        doc, = json.loads(cli("size", "--json", path).stdout)
        with cudwarf.open(path) as f:
            ims = [im for im in f.images() if im.kind == "elf"]
            total = {c: sum(im.sizes[c] for im in ims) for c in cudwarf.SectionClass}
            assert all(set(im.sizes) == set(cudwarf.SectionClass) for im in ims)
            assert {c.key: n for c, n in total.items()} == {k: doc["unpacked"][k] for k in
                                                            (c.key for c in cudwarf.SectionClass)}, name
            assert [im.sizes for im in f.images() if im.kind != "elf"] == [{} for im in f.images() if im.kind != "elf"]
        if name.endswith(".cubin"):
            secs, = json.loads(cli("sections", "--json", path).stdout)
            with cudwarf.open(path) as f:
                im, = f.images()
                classes = im.section_classes
                assert set(classes) == {s["name"] for s in secs["sections"]}
                held, by = set(), {c: 0 for c in cudwarf.SectionClass}
                for s in sorted(secs["sections"], key=lambda s: (s["offset"], s["index"])):
                    if s["has_file_data"]:
                        new = set(range(s["offset"], s["offset"] + s["size"])) - held
                        held |= new
                        by[classes[s["name"]]] += len(new)
                by[cudwarf.SectionClass.HEADERS] = os.path.getsize(path) - len(held)
                assert by == im.sizes, name
                assert classes[".debug_info"] is cudwarf.SectionClass.DEBUG
                assert all(v is cudwarf.SectionClass.CODE for k, v in classes.items() if k.startswith(".text."))
    assert cudwarf.SectionClass.RELOCATIONS is cudwarf.SectionClass.RELOCS
    assert [c.key for c in cudwarf.SectionClass] == ["code", "data", "debug", "nv_debug", "metadata", "symbols",
                                                     "relocations", "other", "headers"]


def test_images_are_the_list_labels():
    for path in inputs():
        listing, = json.loads(cli("list", "--json", path).stdout)
        with cudwarf.open(path) as f:
            ims = f.images()
            assert [im.label for im in ims] == [x["label"] for x in listing["images"]]
            assert [im.sm for im in ims] == [x["sm"] for x in listing["images"]]
            elf = [x for x in listing["images"] if x.get("debug_sections") is not None]
            assert [im.sections for im in ims if im.kind == "elf"] == [x["debug_sections"] for x in elf]
        with pytest.raises(ValueError):
            ims[0]._file.images()  # closed


@pytest.mark.parametrize("path", inputs())
def test_symbolize_answers_as_addr2line_json(path):
    locs = locations(path)
    r = cli("addr2line", "-i", "-C", "--json", "-e", path, input="\n".join(locs) + "\n")
    # locations() ends with an unknown function and an offset past the end:
    # each a reason on stderr and in the JSON, and exit 1
    assert r.returncode == 1 and "no function named nosuch_symbol" in r.stderr, r.stderr
    want = json.loads(r.stdout)
    assert want[-2]["error"].startswith("no function named") and "past the end" in want[-1]["error"]
    assert len(want) == len(locs)
    with cudwarf.open(path) as f:
        got = []
        for loc in locs:
            try:
                got.append(f.symbolize(loc))
            except cudwarf.NotFoundError as e:  # what addr2line says in "error"
                got.append(str(e))
        many = f.symbolize_many(locs)
    for loc, w, g, m in zip(locs, want, got, many):
        if isinstance(g, str):
            assert not w["found"] and w["error"] in g, (loc, g, w.get("error"))
            continue
        if not w["found"]:
            assert g == [], loc
            continue
        assert [(x.function_demangled, x.path, x.line, x.column, x.source) for x in g] == \
            [(x["function"], x["path"], x["line"], x["column"], x["source"]) for x in w["frames"]], loc
        assert all(x.image == w["image"] for x in g)
        assert [(x.function, x.line) for x in m] == [(x.function, x.line) for x in g]


def test_symbolize_sm_and_ptx():
    exe = os.path.join(FIX, "hostapp_lineinfo.exe")
    with cudwarf.open(exe) as f:
        a = f.symbolize("_Z12saxpy_kernelfPKfPfi+0x80", sm=90)
        assert "sm_90" in a[0].image and a[0].ptx_line and a[0].ptx_text
        assert "sm_75" in f.symbolize("_Z12saxpy_kernelfPKfPfi+0x80", sm="sm_75")[0].image
        with pytest.raises(cudwarf.Error) as e:
            f.symbolize("_Z12saxpy_kernelfPKfPfi+0x80", sm=86)
        assert "no sm_86 image" in str(e.value)
        with pytest.raises(ValueError):
            f.symbolize("junk+")


def test_symbolize_address_equals_symbolize():
    path = os.path.join(FIX, "inline_sm100_G.cubin")
    with cudwarf.open(path) as f:
        rows = [r for r in f.lines(section=".debug_line") if r.symbol and not r.end_sequence][::9]
        label = f.images()[0].label
        secs = {}
        syms = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout \
            if shutil.which("readelf") else ""
        for line in syms.splitlines():
            p = line.split()
            if len(p) >= 8 and p[3] == "FUNC" and p[-2].isdigit():  # Vis may be "[<other>: 10]"
                secs[p[-1]] = (int(p[-2]), int(p[1], 16))
        if not secs:
            pytest.skip("no readelf to find the functions' sections")
        for r in rows:
            shndx, value = secs[r.symbol]
            a = f.symbolize_address(label, shndx, value + r.offset)
            b = f.symbolize(f"{r.symbol}+0x{r.offset:x}")
            assert [(x.function, x.file, x.line) for x in a] == [(x.function, x.file, x.line) for x in b] and a
            a = f.symbolize_address(label, shndx, value + r.offset, demangle=True)
            b = f.symbolize(f"{r.symbol}+0x{r.offset:x}", demangle=True)
            assert [(x.function, x.linkage_name) for x in a] == [(x.function, x.linkage_name) for x in b]
            assert a[-1].function == cudwarf.demangle(r.symbol) and a[-1].linkage_name == r.symbol


def test_symbolize_address_through_a_companion(tmp_path):
    """a stripped cubin with its debug companion answers an address of the
    stripped cubin's own section numbering as the unstripped one does (the
    companion numbers its sections its own way)"""
    path = os.path.join(FIX, "inline_sm100_G.cubin")
    out, dbg = str(tmp_path / "s.cubin"), str(tmp_path / "s.dbg")
    assert cli("strip", "-o", out, "--keep-debug=" + dbg, path).returncode == 0
    syms = subprocess.run(["readelf", "-sW", out], capture_output=True, text=True).stdout \
        if shutil.which("readelf") else ""
    funcs = [(int(p[-2]), int(p[1], 16), p[-1]) for p in (l.split() for l in syms.splitlines())
             if len(p) >= 8 and p[3] == "FUNC" and p[-2].isdigit()]
    if not funcs:
        pytest.skip("no readelf to find the functions' sections")
    with cudwarf.open(path) as f, cudwarf.open(out, debug_file=dbg) as g:
        label, glabel = f.images()[0].label, g.images()[0].label
        n = 0
        for shndx, value, name in funcs:
            for off in range(0, 0x200, 0x40):
                a = f.symbolize_address(label, shndx, value + off)
                b = g.symbolize_address(glabel, shndx, value + off)
                assert [(x.function, x.path, x.line) for x in a] == [(x.function, x.path, x.line) for x in b]
                n += bool(a)
        assert n > 5


def test_lines_equal_the_cli_rows():
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    doc, = json.loads(cli("lines", "--json", path).stdout)
    want = [(s["section"], r["address"], r["line"], r["path"], r["context"], r["function"])
            for s in doc["sections"] for t in s["tables"] for r in lines_json.rows(t)]
    with cudwarf.open(path) as f:
        got = [(r.section, r.address, r.line, r.path, r.context, r.function) for r in f.lines()]
    assert got == want and len(got) > 100


def test_dies_equal_the_cli_dump():
    path = os.path.join(FIX, "inline_sm100_G.cubin")
    doc, = json.loads(cli("dump", "--info", "--json", path).stdout)
    offsets = []

    def walk(d):
        offsets.append(d["offset"])
        for c in d.get("children", []):
            walk(c)
    for sec in doc["sections"]:
        if sec["section"] == ".debug_info":
            for u in sec["units"]:
                for d in u["dies"]:
                    walk(d) if "children" in d else offsets.append(d["offset"])
    with cudwarf.open(path) as f:
        dies = list(f.dies())
    assert [d.offset for d in dies] == offsets
    kern = [d for d in dies if d.name == "_Z12shade_kernelPKfPfii"]
    assert kern and kern[0].tag_name == "DW_TAG_subprogram" and kern[0].attrs["DW_AT_high_pc"] > 0


def test_verify_and_errors(tmp_path):
    with cudwarf.open(os.path.join(FIX, "tiny_sm90_G.cubin")) as f:
        assert [x for x in f.verify() if x.severity == "error"] == []
    data = open(os.path.join(FIX, "tiny_sm90_G.cubin"), "rb").read()
    bad = str(tmp_path / "truncated_py.cubin")
    open(bad, "wb").write(data[:len(data) // 2])
    with pytest.raises(cudwarf.Error) as e:
        cudwarf.open(bad)
    assert e.value.code < 0 and e.value.message
    assert cudwarf.demangle("_Z11tiny_kernelPii") == "tiny_kernel(int*, int)"


def test_profile_example(tmp_path):
    path = os.path.join(FIX, "inline_sm100_G.cubin")
    locs = [x for x in locations(path, 50) if not x.startswith("nosuch")]
    samples = tmp_path / "samples.csv"
    with open(samples, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "pc_offset", "samples"])
        for k, loc in enumerate(locs):
            sym, off = loc.split("+")
            w.writerow([sym, off, k + 1])
    r = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples", "profile.py"), "--json", path,
                        str(samples)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    prof = json.loads(r.stdout)
    total = sum(range(1, len(locs) + 1))
    assert prof["samples"] == total == sum(prof["by_line"].values()) == sum(prof["by_function"].values())
    # the inlined function v3 is charged what addr2line says lies in it
    a2l = json.loads(cli("addr2line", "-C", "--json", "-e", path, input="\n".join(locs) + "\n").stdout)
    inner = sum(k + 1 for k, x in enumerate(a2l) if x["frames"] and x["frames"][0]["function"] == "v3(float, float, float)")
    assert inner and prof["by_function"].get("v3(float, float, float)") == inner


@pytest.mark.parametrize("name,sm", [("elfutils_nvidia_linemap.cubin", 80), ("cuasm_cudatest.6.sm_61.cubin", 61),
                                     ("maxas_sgemm.cubin", 50), ("synth_sm90_lineinfo.abi7.cubin", 90),
                                     ("synth_sm75_lineinfo.elf32.cubin", 75)])
def test_older_toolkits_sm_is_the_headers(name, sm):
    """Images of CUDA 6.5-12 (ABI v7 headers, ELF32): the SM from the header's own layout, as the CLI says."""
    path = os.path.join(FIX, "external", name)
    with cudwarf.open(path) as f:
        assert [im.sm for im in f.images()] == [sm]
        if name.startswith("synth_sm75"):
            r = f.symbolize("_Z4kernPfi+0x40")
            assert r and r[0].file.endswith("old.cu")


def test_names_as_people_type_them():
    """symbolize() takes the short and the demangled name as the CLI does; an unknown one finds nothing."""
    path = os.path.join(FIX, "external", "synth_sm75_lineinfo.cubin")
    with cudwarf.open(path) as f:
        want = [(x.function, x.line) for x in f.symbolize("_Z4kernPfi+0x40")]
        assert want and [(x.function, x.line) for x in f.symbolize("kern+0x40")] == want
        assert [(x.function, x.line) for x in f.symbolize("kern(float*, int)+0x40")] == want
        with pytest.raises(cudwarf.NotFoundError, match="nearest: kern"):
            f.symbolize("kernn+0x40")
        with pytest.raises(cudwarf.NotFoundError, match="past the end"):
            f.symbolize("kern+0x9000")


def test_demangle_gives_the_frames_of_addr2line_C():
    """symbolize(demangle=True) and symbolize_many(demangle=True): every frame the frame of
    `addr2line -i -C --json` (function demangled, linkage_name beside it); without it function is the
    linkage name and linkage_name None, as without -C."""
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    locs = [f"shade_kernel+0x{k:x}" for k in range(0x100, 0x600, 0x80)]
    want = json.loads(cli("addr2line", "-i", "-C", "--json", "-e", path, input="\n".join(locs) + "\n").stdout)
    with cudwarf.open(path) as f:
        many = f.symbolize_many(locs, demangle=True)
        deep = f.symbolize_many(locs, demangle=True, frames=1)  # deeper than the room: asked again, one by one
        for loc, w, m, d in zip(locs, want, many, deep):
            got = f.symbolize(loc, demangle=True)
            for frames in (got, m, d):
                assert w["frames"] and [{k: getattr(fr, k) for k in wf} for fr, wf in zip(frames, w["frames"])] == \
                    w["frames"] and len(frames) == len(w["frames"]), loc
            plain = f.symbolize(loc)
            assert [fr.function for fr in plain] == [fr.linkage_name for fr in got]
            assert all(fr.linkage_name is None for fr in plain)
    assert any(fr["function"] != fr["linkage_name"] for w in want for fr in w["frames"])  # names to demangle


def test_correlate_unknown_function_names_the_nearest():
    """correlate(function=) of no function says what the CLI says: the nearest names (as symbolize does)."""
    cubin = os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.O3.cubin")
    r = cli("correlate", "--function", "kernn", cubin)
    assert r.returncode == 1 and "nearest: kern" in r.stderr
    with pytest.raises(cudwarf.NotFoundError, match="no function named kernn; nearest: kern") as e:
        cudwarf.correlate(cubin, function="kernn")
    assert e.value.detail in r.stderr and e.value.code == _lib.E_NOT_FOUND
    with cudwarf.open(cubin) as f, pytest.raises(cudwarf.NotFoundError, match="nearest: kern"):
        f.correlate(function="kernn", sm=90)


def test_arguments_of_the_wrong_type_are_type_errors(tmp_path):
    """A location, name or section that is not a str raises TypeError saying so (not the AttributeError of
    .encode()); paths may be os.PathLike (pathlib.Path) as well as str."""
    import pathlib
    cubin = pathlib.Path(FIX) / "stage1" / "heavy_sm90_lineinfo.O3.cubin"
    ptx = pathlib.Path(FIX) / "stage1" / "heavy_sm90_lineinfo.ptx"
    with cudwarf.open(cubin) as f:
        assert f.path == str(cubin) and f.symbolize("kern+0x40")
        for call in (lambda: f.symbolize(123), lambda: f.symbolize(b"kern+0x40"),
                     lambda: f.symbolize_many(["kern+0x40", 0x40]), lambda: f.symbolize_many("kern+0x40"),
                     lambda: f.correlate(function=1), lambda: f.correlate(ptx=1), lambda: list(f.dies(section=1)),
                     lambda: f.units(section=1), lambda: list(f.lines(section=1)),
                     lambda: f.symbolize_address(f.images()[0].label, "1", 0)):
            with pytest.raises(TypeError, match="must be"):
                call()
        assert [c.to_dict() for c in f.correlate(ptx=ptx)] == [c.to_dict() for c in f.correlate(ptx=str(ptx))]
    with pytest.raises(TypeError, match="location must be a str, not int"):
        cudwarf.open(cubin).symbolize(123)
    for call in (lambda: cudwarf.open(123), lambda: cudwarf.open(cubin, debug_file=1), lambda: cudwarf.demangle(1),
                 lambda: cudwarf.correlate(None), lambda: cudwarf.ptx_lines(1), lambda: cudwarf.ptx_predict(ptx, 1),
                 lambda: cudwarf.ptx_predict(ptx, cubin, section=1)):
        with pytest.raises(TypeError, match="must be"):
            call()
    assert cudwarf.correlate(cubin, ptx=ptx) == cudwarf.correlate(str(cubin), ptx=str(ptx))
    assert cudwarf.ptx_lines(ptx) == cudwarf.ptx_lines(str(ptx))
    assert cudwarf.ptx_predict(ptx, cubin) == cudwarf.ptx_predict(str(ptx), str(cubin))
    with pytest.raises(cudwarf.PtxError) as e:
        cudwarf.ptx_lines(tmp_path / "nonexist.ptx")
    assert e.value.path == str(tmp_path / "nonexist.ptx")


def test_blanks_around_a_location_are_ignored():
    """symbolize and symbolize_many trim the spaces, tabs, CR and LF around a location, as addr2line's
    stdin mode does."""
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    with cudwarf.open(path) as f:
        want = [(x.function, x.path, x.line) for x in f.symbolize("shade_kernel+0x100")]
        assert want
        for loc in ("  shade_kernel+0x100  ", "\tshade_kernel+0x100\r\n", "shade_kernel+0x100\n"):
            assert [(x.function, x.path, x.line) for x in f.symbolize(loc)] == want, repr(loc)
            assert [[(x.function, x.path, x.line) for x in s] for s in f.symbolize_many([loc])] == [want], repr(loc)
        with pytest.raises(cudwarf.NotFoundError, match=r"shade_kernell\+0x100: .*nearest: shade_kernel"):
            f.symbolize(" shade_kernell+0x100 ")  # the location said without its blanks

def test_dies_form_a_tree_and_errors_are_typed():
    """units(): every DIE reachable from the roots through children, parent None at the roots only;
    a text file raises cudwarf.InputError (a cudwarf.Error)."""
    for name in ("tiny_sm90_G.rdc.cubin", "calls_sm75_G.cubin", "inline_sm100_G.cubin"):
        with cudwarf.open(os.path.join(FIX, name)) as f:
            flat = list(f.dies())
            units = f.units()
            seen = []

            def walk(d):
                seen.append(d.offset)
                for c in d.iter_children():
                    assert c.get_parent() is d and c.depth == d.depth + 1
                    walk(c)
            for u in units:
                assert u.top.parent is None and u.top.tag == cudwarf.Tag.DW_TAG_compile_unit
                walk(u.top)
            assert seen == [d.offset for d in flat] and all(d.parent is not None for d in flat if d.depth)
            assert all(isinstance(v, cudwarf.Form) or isinstance(v, int) for d in flat for v in d.forms.values())
    with pytest.raises(cudwarf.InputError) as e:
        cudwarf.open(os.path.join(ROOT, "README.md"))
    assert isinstance(e.value, cudwarf.Error) and e.value.code == -3


def test_one_file_from_many_threads():
    """File's lock: symbolize from 4 threads at once answers as one thread does."""
    import concurrent.futures
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    locs = [f"shade_kernel+0x{k:x}" for k in range(0, 0xe00, 0x40)]
    with cudwarf.open(path) as f:
        want = [[(x.function, x.line) for x in f.symbolize(l)] for l in locs]
        with concurrent.futures.ThreadPoolExecutor(4) as ex:
            got = list(ex.map(lambda l: [(x.function, x.line) for x in f.symbolize(l)], locs * 4))
    assert got == want * 4


def test_ptx_not_the_cubins_is_a_ptx_error(tmp_path):
    """correlate(ptx=) with another program's PTX raises PtxError (a cudwarf.Error and a ValueError, not
    the KeyError NotFoundError), saying what the CLI says; a PTX that cannot be read says so without a
    line and column it does not have."""
    cubin = os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.O3.cubin")
    other = os.path.join(FIX, "stage1", "heavy_sm100_lineinfo.rdc.ptx")
    with pytest.raises(cudwarf.PtxError) as e:
        cudwarf.correlate(cubin, ptx=other)
    assert isinstance(e.value, ValueError) and not isinstance(e.value, KeyError)
    assert e.value.path == other and e.value.line == 0 and e.value.what == "PTX text"
    r = cli("correlate", "--ptx", other, cubin)
    assert r.returncode == 1 and f"is not the PTX {cubin} was made from" in str(e.value)
    assert str(e.value) in r.stderr
    with cudwarf.open(os.path.join(FIX, "tiny_sm90_G.cubin")) as f:  # one of another program, File.correlate
        with pytest.raises(cudwarf.PtxError, match="is not the PTX"):
            f.correlate(ptx=os.path.join(FIX, "stage1", "heavy_sm90_lineinfo.ptx"))
    missing = str(tmp_path / "nonexist.ptx")
    with pytest.raises(cudwarf.PtxError) as e:
        cudwarf.correlate(cubin, ptx=missing)
    assert str(e.value) == f"{missing}: No such file or directory" and e.value.line == 0
    with pytest.raises(cudwarf.PtxError, match=r"nonexist\.ptx: No such"):
        cudwarf.ptx_lines(missing)


def test_bad_arguments_are_cudwarf_errors():
    """A malformed location or SM, an unknown image, a closed File: each a cudwarf.Error, and of the
    built-in kind it was before (ArgumentError a ValueError, NotFoundError a KeyError)."""
    f = cudwarf.open(os.path.join(FIX, "tiny_sm90_G.cubin"))
    for call in (lambda: f.symbolize("saxpy+zz"), lambda: f.symbolize_many(["tiny_kernel+0x40", "junk+"]),
                 lambda: f.symbolize("tiny_kernel+0x40", sm="zz")):
        with pytest.raises(cudwarf.ArgumentError) as e:
            call()
        assert isinstance(e.value, ValueError) and e.value.code == _lib.E_ARG
    with pytest.raises(cudwarf.ArgumentError, match="saxpy\\+zz"):
        f.symbolize("saxpy+zz")
    for call in (lambda: f.symbolize_address("no such image", 1, 0), lambda: list(f.lines(image="no such image"))):
        with pytest.raises(cudwarf.NotFoundError) as e:
            call()
        assert isinstance(e.value, KeyError)
    f.close()
    with pytest.raises(cudwarf.ArgumentError, match="closed"):
        f.images()


def public_callables():
    """(name, function) of every public function and method of the package (methods of the classes
    in __all__ that the package defines, properties' getters, __init__)."""
    import inspect
    for name in cudwarf.__all__:
        obj = getattr(cudwarf, name)
        if inspect.isfunction(obj):
            yield name, obj
        if not inspect.isclass(obj):
            continue
        for cls in obj.__mro__:
            if cls.__module__ != "cudwarf":
                continue
            for k, v in vars(cls).items():
                if k.startswith("_") and k != "__init__":
                    continue
                v = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
                if inspect.isfunction(v):
                    yield f"{name}.{k}", v


def test_public_signatures_are_explicit():
    """help() and IDEs see every public function's parameters: no (*a, **k) wrapper (File's lock)."""
    import inspect
    found = dict(public_callables())
    assert {"File.symbolize", "File.correlate", "File.symbolize_many", "correlate", "open", "Frame.file"} <= set(found)
    vague = [n for n, fn in found.items()
             if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in inspect.signature(fn).parameters.values())]
    assert vague == []
    sig = inspect.signature(cudwarf.File.symbolize)
    assert list(sig.parameters) == ["self", "location", "sm", "demangle"] and sig.parameters["sm"].default is None
    assert sig.parameters["demangle"].default is False
    assert cudwarf.File.symbolize.__doc__.startswith("Frames for")
    assert list(inspect.signature(cudwarf.File.correlate).parameters) == ["self", "ptx", "sm", "function", "demangle"]


def test_frames_and_rows_have_the_jsons_keys():
    """A Frame has every key of an `addr2line --json` frame as an attribute of the same value (function:
    the linkage name, without -C), a Row the path of `lines --json`; file stays, an alias of path."""
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    locs = [f"shade_kernel+0x{k:x}" for k in range(0x100, 0x600, 0x80)]
    want = json.loads(cli("addr2line", "-i", "--json", "-e", path, input="\n".join(locs) + "\n").stdout)
    with cudwarf.open(path) as f:
        for loc, w in zip(locs, want):
            got = f.symbolize(loc)
            assert w["frames"] and len(got) == len(w["frames"]), loc
            for fr, wf in zip(got, w["frames"]):
                assert {k: getattr(fr, k) for k in wf} == wf, loc
                assert fr.file == fr.path
        rows = list(f.lines(section=".debug_line"))
    doc, = json.loads(cli("lines", "--json", "--section", ".debug_line", path).stdout)
    want = [r["path"] for s in doc["sections"] for t in s["tables"] for r in lines_json.rows(t)]
    assert [r.path for r in rows] == want
    assert all(r.file == r.path for r in rows)


def test_version_is_the_librarys():
    """cudwarf.__version__: the header's CUDW_VERSION_STRING, `cudwarf --version`, the Makefile's
    VERSION and the version the build backend gives the wheel, all one."""
    import re
    header = open(os.path.join(ROOT, "include", "cudwarf.h")).read()
    makefile = open(os.path.join(ROOT, "Makefile")).read()
    sys.path.insert(0, os.path.join(ROOT, "python", "build_backend"))
    try:
        import cudwarf_build
    finally:
        sys.path.pop(0)
    v = cudwarf.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", v)
    assert re.search(r'#define CUDW_VERSION_STRING "([^"]*)"', header).group(1) == v
    assert re.search(r"^VERSION = (\S+)$", makefile, re.M).group(1) == v
    assert cli("--version").stdout == f"cudwarf {v}\n"
    assert cudwarf_build._version() == v


def test_all_is_the_public_api():
    """__all__ names every public name of the package and nothing else: dir(cudwarf) shows the API
    (the modules and helpers the package uses are private), and each name is there."""
    import types
    assert len(set(cudwarf.__all__)) == len(cudwarf.__all__)
    assert all(hasattr(cudwarf, n) for n in cudwarf.__all__)
    # (not identifiers: pytest's assertion rewriting, which pyproject.toml's python_files gives the package too)
    public = {n for n in dir(cudwarf) if not n.startswith("_") and n.isidentifier()}
    assert public == set(cudwarf.__all__), public ^ set(cudwarf.__all__)
    assert not [n for n in public if isinstance(getattr(cudwarf, n), types.ModuleType)]
    for n in ("InputError", "FormatError", "NotFoundError", "ArgumentError", "PtxError", "Tag", "At", "Form",
              "Unit"):
        assert n in cudwarf.__all__
    for n in ("ctypes", "POINTER", "byref", "Dict", "threading", "MemoryError_", "lib"):
        assert n not in dir(cudwarf)


def test_lines_demangled_as_the_cli():
    """File.lines(demangle=True): each row's function and linkage_name as
    `cudwarf lines --json -C` gives them"""
    path = os.path.join(FIX, "inline_sm90_lineinfo.rdc.cubin")
    want = json.loads(cli("lines", "--json", "-C", path).stdout)
    wrows = [r for s in want[0]["sections"] for t in s["tables"] for r in t["rows"]]
    with cudwarf.File(path) as f:
        got = list(f.lines(demangle=True))
        plain = list(f.lines())
    assert len(got) == len(wrows) == len(plain)
    named = [(g, w) for g, w in zip(got, wrows) if w["function"]]
    assert named
    for g, w in named:
        assert (g.function, g.linkage_name) == (w["function"], w.get("linkage_name")), (g, w)
    assert all(p.linkage_name is None for p in plain)

