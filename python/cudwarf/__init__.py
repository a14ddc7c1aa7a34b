"""cudwarf: the debug information of CUDA device code, from Python.

A thin ctypes layer over libcudwarf (no other dependency):

    import cudwarf
    with cudwarf.open("app") as f:                    # cubin, fatbin, executable, .so, .a
        for im in f.images():
            print(im.label, im.sm, im.variant)
            print(im.sizes[cudwarf.SectionClass.DEBUG])   # bytes by class, as `cudwarf size`
        for fr in f.symbolize("kernel+0x80"):         # innermost frame first; any name form
            print(fr.function, fr.path, fr.line, fr.image)  # keys of addr2line --json's frames
        f.symbolize("kernel+0x80", demangle=True)     # function demangled, linkage_name beside it (-C)
        stacks = f.symbolize_many(["_Z6kernelPi+0x80", "_Z6kernelPi+0x90"])
        report = f.correlate(ptx="k.ptx")            # source <-> PTX <-> SASS: Correlation objects
        for line in report[0].source_lines:           # attributes named as correlate --json's keys
            print(line.path, line.line, line.sass_bytes)
        for row in f.lines():                         # the rows of every line table
            ...
        for die in f.dies():                          # every DIE, with its attributes
            ...
        for unit in f.units():                        # DIE trees: top, parent, children
            for child in unit.top.iter_children():
                print(child.tag, child.name)          # child.tag: a cudwarf.Tag
        findings = f.verify()

    cudwarf.ptx_lines("k.ptx")                        # PtxLine objects: `cudwarf ptx-lines --json`
    cudwarf.ptx_predict("k.ptx", "k.cubin")           # the .debug_line bytes ptxas writes

Every error the package raises is a cudwarf.Error: InputError, FormatError,
NotFoundError (also a KeyError), ArgumentError (also a ValueError: a
malformed location or SM, a name of several functions) and PtxError (also
a ValueError: a PTX file that cannot be read, that ptxas would reject, or
that is not the PTX a cubin was made from); each carries the code and the
section and offset where decoding failed.  Tag, At and Form are IntEnums of
the DWARF numbers by the library's names; SectionClass the size classes.
correlate() and ptx_lines() give typed records (dataclasses) whose
attributes are the keys of the CLI's JSON; each is also a read-only mapping
of those keys (rec["sass_bytes"], == the JSON's dict) and to_dict() gives
the dict itself.  A File may be shared between
threads: its lookups take its lock.  The library is found through CUDWARF_LIB,
beside this package, in a source tree's build/, or where the system's
loader finds libcudwarf.so.1.  A location that cannot be symbolized raises
NotFoundError (no such function, past its end) or ArgumentError (a name
that fits several functions), each saying why as addr2line does; an unknown
function names the nearest.  Paths may be str or os.PathLike
(pathlib.Path); an argument of the wrong type (symbolize(123)) raises
TypeError.
"""
import ctypes as _ctypes
import enum as _enum
import functools as _functools
import os as _os
import threading as _threading
from collections.abc import Mapping as _Mapping
from ctypes import (POINTER as _POINTER, byref as _byref, c_char_p as _c_char_p, c_size_t as _c_size_t,
                    c_uint64 as _c_uint64, c_void_p as _c_void_p)
from dataclasses import dataclass as _dataclass, fields as _fields
from typing import Dict, Iterable, Iterator, List, Optional, Union  # annotations only: deleted at the end

from . import _lib
from ._lib import lib as _dll

__all__ = ["open", "File", "ImageInfo", "Frame", "Row", "DIE", "Unit", "Finding", "demangle", "correlate",
           "ptx_lines", "ptx_predict", "Error", "InputError", "FormatError", "NotFoundError", "ArgumentError",
           "PtxError", "Tag", "At", "Form", "SectionClass", "Correlation", "PtxText", "Instruction", "SourceFrame",
           "Loc", "LocFrame", "SourceLine", "LineFunction", "LineCaller", "FunctionCost", "FileCost", "PtxLine",
           "PtxFrame"]

# The release: the library's (CUDW_VERSION_STRING, `cudwarf --version`,
# the Makefile's VERSION, which the wheel's metadata takes); a test keeps
# them one.
__version__ = "0.2.0"

_MAX_FRAMES = 256         # CUDW_MAX_INLINE_DEPTH


def _names_enum(name, fn, ranges):
    """An IntEnum of the library's names for the numbers in ranges
    (DW_TAG_compile_unit = 0x11, ...): the library's table, not a copy."""
    members = {}
    for lo, hi in ranges:
        for v in range(lo, hi):
            n = fn(v)
            if n:
                members.setdefault(n.decode(), v)
    return _enum.IntEnum(name, members)


Tag = _names_enum("Tag", _dll.cudw_tag_name, [(0, 0x90), (0x4080, 0x4110)])
At = _names_enum("At", _dll.cudw_at_name, [(0, 0x100), (0x2000, 0x2200), (0x3a00, 0x3a40), (0x3fff, 0x4000)])
Form = _names_enum("Form", _dll.cudw_form_name, [(0, 0x40)])


class SectionClass(_enum.IntEnum):
    """What a section's file bytes are, for size accounting: enum
    cudw_size_class (CUDW_SIZE_CODE ...), the classes of `cudwarf size`.
    key: the name `size --json` gives the class ("relocations" for RELOCS)."""
    CODE = 0          # .text.*, and the Mercury capsules .nv.capmerc.text.* (sm_100+)
    DATA = 1          # .nv.constant*, .nv.global.init
    DEBUG = 2         # DWARF sections and their .nv.merc. twins
    NV_DEBUG = 3      # NVIDIA's .nv_debug_*
    METADATA = 4      # .nv.info*, .nv.callgraph, .nv.compat, notes, other .nv.*
    SYMBOLS = 5       # symbol and string tables
    RELOCS = 6        # relocation sections
    RELOCATIONS = 6   # (RELOCS by the name size --json uses)
    OTHER = 7         # any other section with file bytes
    HEADERS = 8       # what no section holds: ELF header, header tables, padding

    @property
    def key(self) -> str:
        return _dll.cudw_size_class_name(int(self)).decode()


_SYM_DEMANGLE, _SYM_PTX = _lib.SYM_DEMANGLE, _lib.SYM_PTX
_FROM = {1: "symbol", 2: "line-table", 3: "die"}
_MISS_NO_FUNCTION, _MISS_AMBIGUOUS, _MISS_PAST_END = 1, 2, 3  # CUDW_MISS_*


class Error(Exception):
    """A library error: code, section, offset, what, detail.  The root of
    the package's exceptions: InputError (a file that is not one cudwarf
    reads: missing, not ELF, not a device ELF), FormatError (a malformed
    section: the section and offset say where), NotFoundError (no such
    image, section or function; also a KeyError), ArgumentError (also a
    ValueError) and PtxError (also a ValueError).  Build one from a
    library error with Error.of(err, context)."""

    code: int
    section: str
    offset: int

    @staticmethod
    def of(err, context: str = "", ptx: Optional[str] = None) -> "Error":
        """The Error subclass err's code is, built from err; ptx: the PTX
        file the call checked against the cubin (the library's "PTX text"
        not-found errors are about it: a PtxError)."""
        c = err.code
        if c == _lib.E_NOT_FOUND and err.what == b"PTX text" and ptx:
            return PtxError._from_library(err, context, ptx)
        cls = (InputError if c in (-2, -3, -4, -19) else NotFoundError if c == _lib.E_NOT_FOUND
               else ArgumentError if c == _lib.E_ARG else _MemoryError if c == -1 else FormatError)
        return cls(err, context)

    def __init__(self, err, context=""):
        self.code = err.code
        self.section = err.section.decode(errors="replace")
        self.offset = err.offset
        self.what = (err.what or b"").decode(errors="replace")
        self.detail = err.detail.decode(errors="replace")
        buf = _ctypes.create_string_buffer(512)
        _dll.cudw_error_format(_byref(err), buf, len(buf))
        self.message = buf.value.decode(errors="replace")
        super().__init__(f"{context}: {self.message}" if context else self.message)


class InputError(Error):
    """The file cannot be read as device code (I/O, not ELF or fatbin, not EM_CUDA)."""


class FormatError(Error):
    """A malformed section or record: section and offset say where."""


class NotFoundError(Error, KeyError):
    """No such image, section, symbol or function."""

    def __str__(self):  # KeyError quotes its argument; say it as Error does
        return Exception.__str__(self)


class ArgumentError(Error, ValueError):
    """An argument the library refuses: a location that is not
    SYMBOL+OFFSET, an SM that is not one, a name of several functions, a
    File used after close()."""


class PtxError(Error, ValueError):
    """A PTX file the package cannot use: path; line and column where in
    it (0 when no line is at fault); text.  One that cannot be read or
    that ptxas would reject (what "PTX"), or, given to correlate(ptx=...),
    not the PTX the cubin was made from (what "PTX text", code
    CUDW_E_NOT_FOUND: the library's message)."""

    def __init__(self, path, line, column, text):  # pylint: disable=super-init-not-called
        self.path, self.line, self.column, self.text = path, line, column, text
        self.code, self.section, self.offset, self.what, self.detail = -8, "", 0, "PTX", text
        where = path + (f":{line}" if line else "") + (f":{column}" if line and column else "")
        self.message = f"{where}: {text}"
        Exception.__init__(self, self.message)

    @classmethod
    def _from_library(cls, err, context, ptx):
        """The library's error err about the PTX file ptx (no line)."""
        e = cls(ptx, 0, 0, err.detail.decode(errors="replace"))
        Error.__init__(e, err, context)
        return e


class _MemoryError(Error, MemoryError):
    """The library ran out of memory."""


def _error(cls, what, detail, context=""):
    """An ArgumentError or NotFoundError the package finds itself, said as
    the library says its own (code CUDW_E_ARG or CUDW_E_NOT_FOUND)."""
    code = {ArgumentError: _lib.E_ARG, NotFoundError: _lib.E_NOT_FOUND}[cls]
    return cls(_lib.Error_(code=code, what=what.encode(), detail=detail.encode()[:223]), context)


def _s(b):
    return b.decode(errors="replace") if b is not None else None


class ImageInfo:
    """One image of the input: label (as `cudwarf list` prints it), kind
    ("elf", "ptx", "nvvm"), sm, variant ("a", "f" or ""), member (archives)."""

    def __init__(self, index, p, f):
        self.index = index
        self.label = _s(p.label)
        self.kind = {1: "ptx", 2: "elf", 8: "nvvm"}.get(p.kind, f"kind {p.kind}")
        self.sm = p.sm
        self.variant = p.variant.decode() if p.variant != b"\0" else ""
        self.member = _s(p.member)
        self._file = f
        self._sections = None
        self._classes = None

    @property
    def sections(self):
        """Names of the image's debug sections (loads the image once)."""
        if self._sections is None:
            self._sections = self._file._debug_sections(self.index) if self.kind == "elf" else []
        return self._sections

    @property
    def section_classes(self) -> Dict[str, SectionClass]:
        """Every section of an ELF image by name, with its SectionClass ({} for PTX and LTO IR)."""
        if self._classes is None:
            self._classes = self._file._section_classes(self.index) if self.kind == "elf" else ({}, {})
        return self._classes[0]

    @property
    def sizes(self) -> Dict[SectionClass, int]:
        """The image's bytes by SectionClass, every class (as `cudwarf size`
        counts them: they add up to the image's size; {} for PTX and LTO IR)."""
        self.section_classes
        return self._classes[1]

    def __repr__(self):
        return f"ImageInfo({self.label!r})"


class Frame:
    """One frame of an answer, innermost first, named as the frames of
    `addr2line --json` (docs/json.md): function (the linkage name, as
    without -C; asked with demangle=True, the demangled name and
    linkage_name the linkage name beside it, as with -C; else linkage_name
    is None), function_demangled (the demangled name either way), path
    (None where no line row names one), line, column, source ("symbol",
    "line-table", "die": what named the function); and image (its label),
    and for the innermost, ptx_line and ptx_text when .nv_debug_line_sass
    covers it.  file: path's earlier name, kept as an alias."""

    __slots__ = ("function", "linkage_name", "function_demangled", "path", "line", "column", "source", "image",
                 "ptx_line", "ptx_text")

    def __init__(self, fr, image, ptx_line=None, ptx_text=None, demangle=False):
        self.function = _s(fr.function_demangled if demangle else fr.function)
        self.linkage_name = _s(fr.function) if demangle else None
        self.function_demangled = _s(fr.function_demangled)
        self.path = _s(fr.file)
        self.line = fr.line
        self.column = fr.column
        self.source = _FROM.get(fr.source)
        self.image = image
        self.ptx_line = ptx_line
        self.ptx_text = ptx_text

    @property
    def file(self) -> Optional[str]:
        """An alias of path (its earlier name), for the code that uses it."""
        return self.path

    def __repr__(self):
        return f"Frame({self.function!r}, {self.path!r}, {self.line})"


class Row:
    """One line-table row, its fields named as `lines --json` names them:
    section, address, symbol, offset (from the symbol), path, line,
    column, is_stmt, end_sequence, context (0, or the 1-based row of the
    sequence it was inlined at), function (the inlined function's name;
    with lines(demangle=True) demangled, and linkage_name the mangled one,
    as `lines --json -C`; else linkage_name is None).
    file: path's earlier name, kept as an alias (the path; the JSON's file
    is the DWARF file number)."""

    __slots__ = ("image", "section", "address", "symbol", "offset", "path", "line", "column", "is_stmt",
                 "end_sequence", "context", "function", "linkage_name")

    @property
    def file(self) -> Optional[str]:
        """An alias of path (its earlier name), for the code that uses it."""
        return self.path

    def __repr__(self):
        return f"Row({self.section}, {self.symbol}+0x{self.offset:x}, {self.path}:{self.line})"


class DIE:
    """One DIE: offset, depth, tag (a Tag) and tag_name, name (linkage
    name first), attrs: {attribute name: value} (addresses relocated;
    strings as str; blocks as bytes), forms: {attribute name: Form}.
    The tree: parent (None at a unit's top) and children, in order (as
    pyelftools: get_parent(), iter_children()).  A DIE's children are
    complete once the iteration that yields them has passed them; units()
    gives whole trees."""

    __slots__ = ("image", "section", "offset", "depth", "tag", "tag_name", "name", "attrs", "forms", "parent",
                 "children")

    def get_parent(self):
        return self.parent

    def iter_children(self):
        return iter(self.children)

    def __repr__(self):
        return f"DIE(0x{self.offset:x} {self.tag_name} {self.name!r})"


class Unit:
    """A compilation unit: image, section, offset, top (its DW_TAG_compile_unit
    DIE, parent None) and dies (every DIE of the unit, in order)."""

    __slots__ = ("image", "section", "offset", "top", "dies")

    def get_top_DIE(self):  # noqa: N802 - pyelftools' name
        return self.top

    def iter_DIEs(self):  # noqa: N802 - pyelftools' name
        return iter(self.dies)

    def __repr__(self):
        return f"Unit(0x{self.offset:x} {self.top!r}, {len(self.dies)} DIEs)"


class Finding:
    """A verify finding: severity ("error", "note"), section, offset, what, detail."""

    __slots__ = ("image", "severity", "section", "offset", "what", "detail")

    def __repr__(self):
        return f"Finding({self.severity} {self.section}+0x{self.offset:x}: {self.detail})"


def _locked(method):
    """method under the File's lock (see File); its signature, name and
    docstring stay method's (functools.wraps: help() and IDEs show them)."""
    @_functools.wraps(method)
    def run(self, *a, **k):
        with self._lock:
            return method(self, *a, **k)
    return run


def _str(v, what):
    """v, which must be a str: a TypeError that says so otherwise (not the
    AttributeError of v.encode())."""
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a str, not {type(v).__name__}")
    return v


def _path(p, what):
    """p, a path (str, bytes or os.PathLike, as open() takes), as a str;
    a TypeError that says so otherwise.  os.fsencode gives the library its
    bytes."""
    if not isinstance(p, (str, bytes, _os.PathLike)):
        raise TypeError(f"{what} must be a path (str, bytes or os.PathLike), not {type(p).__name__}")
    return _os.fsdecode(p)


def demangle(name: str) -> str:
    """The C++ name demangled, or the name itself."""
    _str(name, "name")
    buf = _ctypes.create_string_buffer(4096)
    n = _dll.cudw_demangle(name.encode(), buf, len(buf))
    if n >= len(buf):
        buf = _ctypes.create_string_buffer(n + 1)
        _dll.cudw_demangle(name.encode(), buf, len(buf))
    return buf.value.decode() if n else name


_demangle = demangle  # for the methods whose demangle= flag hides the function


def _parse_sm(sm):
    """"90", "sm_90a", 100 -> (100, b"\\0"): the library's own parser."""
    if sm is None:
        return 0, b"\0"
    n, v = _ctypes.c_uint(), _ctypes.create_string_buffer(1)
    if _dll.cudw_sm_parse(str(sm).encode(), _byref(n), v):
        raise _error(ArgumentError, "sm", f"{sm!r} is not an SM (90, sm_90, 90a, sm_100f)")
    return n.value, v.raw or b"\0"


def _parse_location(location, context):
    """"SYMBOL+0xOFFSET" -> (the location's bytes, the length of its
    SYMBOL, OFFSET): the library's own parser, given the location without
    the spaces, tabs, CRs and LFs around it (as addr2line reads stdin)."""
    b = _str(location, "location").strip(" \t\r\n").encode()
    sym, n, off = _c_char_p(), _c_size_t(), _c_uint64()
    if _dll.cudw_location_parse(b, _byref(sym), _byref(n), _byref(off)):
        raise _error(ArgumentError, "location", f"cannot parse {location!r} (want SYMBOL+0xOFFSET)", context)
    return b, n.value, off.value


class File:
    """An open input: a cubin, fatbin, host ELF or archive.

    Thread safety: one File may be used from several threads.  Lookups
    (symbolize*, correlate) share the File's symbolizer and its frame
    buffer under the File's lock, so they run one at a time per File; for
    lookups in parallel, open a File per thread (the library's handles are
    independent)."""

    def __init__(self, path: Union[str, _os.PathLike], debug_file: Union[str, _os.PathLike, None] = None):
        self._in = _c_void_p()
        self._syms = {}
        self.path = _path(path, "path")
        self.debug_file = _path(debug_file, "debug_file") if debug_file is not None else None
        rc = _dll.cudw_input_open(_byref(self._in), _os.fsencode(self.path))
        if rc:
            err = _dll.cudw_input_error(self._in).contents if self._in else None
            e = Error.of(err, self.path) if err else MemoryError(self.path)
            self.close()
            raise e
        self._frames = (_lib.SymFrame * _MAX_FRAMES)()
        self._lock = _threading.RLock()

    def close(self):
        for s in self._syms.values():
            _dll.cudw_symbolizer_close(s)
        self._syms = {}
        if self._in:
            _dll.cudw_input_close(self._in)
            self._in = _c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # ---- images ----

    def _open(self):
        if not self._in:
            raise _error(ArgumentError, "file", "the file is closed", self.path)
        return self._in

    def images(self) -> List[ImageInfo]:
        """The input's images (ELF, PTX, LTO IR), as `cudwarf list` lists them."""
        n = _dll.cudw_input_count(self._open())
        return [ImageInfo(i, _dll.cudw_input_peek(self._in, i).contents, self) for i in range(n)]

    def _elf_indexes(self, image):
        """ELF image indexes: one (an index or label), or all."""
        ims = [im for im in self.images() if im.kind == "elf"]
        if image is None:
            return [im.index for im in ims]
        for im in ims:
            if image in (im.index, im.label):
                return [im.index]
        raise _error(NotFoundError, "image", f"no ELF image {image!r}", self.path)

    def _load(self, i):
        p = _ctypes.POINTER(_lib.Image)()
        rc = _dll.cudw_input_load(self._open(), i, _byref(p))
        if rc:
            e = Error.of(p.contents.err, _s(_dll.cudw_input_peek(self._in, i).contents.label)) if p else MemoryError()
            _dll.cudw_image_close(p)
            raise e
        return p

    def _section_classes(self, i):
        """({section name: SectionClass}, {SectionClass: bytes}) of ELF image i."""
        p = self._load(i)
        try:
            f = p.contents.elf
            names = {}
            for k in range(1, _dll.cudw_section_count(f)):
                s = _dll.cudw_section_get(f, k)
                names[_s(s.contents.name)] = SectionClass(_dll.cudw_section_size_class(s))
            n = (_c_uint64 * _lib.SIZE_NCLASSES)()
            if _dll.cudw_image_sizes(f, n):
                raise Error.of(_dll.cudw_last_error(f).contents, self.path)
            return names, {c: n[c] for c in SectionClass}
        finally:
            _dll.cudw_image_close(p)

    def _debug_sections(self, i):
        p = self._load(i)
        try:
            f = p.contents.elf
            names = []
            cls = _ctypes.create_string_buffer(64)
            for k in range(1, _dll.cudw_section_count(f)):
                s = _dll.cudw_section_get(f, k).contents
                if _dll.cudw_classify_name(s.name, s.flags, cls) == 0:
                    names.append(_s(s.name))
            return names
        finally:
            _dll.cudw_image_close(p)

    # ---- symbolizing ----

    def _symbolizer(self, sm):
        self._open()
        key = str(sm) if sm is not None else None
        if key not in self._syms:
            n, v = _parse_sm(sm)
            debug = _os.fsencode(self.debug_file) if self.debug_file else None
            opts = _lib.SymOpts(_SYM_DEMANGLE | _SYM_PTX, n, v, debug)
            h = _c_void_p()
            rc = _dll.cudw_symbolizer_open(_byref(h), _os.fsencode(self.path), _byref(opts))
            if rc:
                e = Error.of(_dll.cudw_symbolizer_error(h).contents, self.path) if h else MemoryError()
                _dll.cudw_symbolizer_close(h)
                raise e
            self._syms[key] = h
        return self._syms[key]

    @staticmethod
    def _frames_of(res, frames, dem):
        if not res.found:
            return []
        image = _s(res.image_label)
        n = min(res.nframes, _MAX_FRAMES)
        out = [Frame(frames[k], image, demangle=dem) for k in range(n)]
        if out and res.has_ptx:
            out[0].ptx_line = res.ptx_line
            out[0].ptx_text = _s(res.ptx_text)
        return out

    @_locked
    def symbolize(self, location: str, sm: Union[int, str, None] = None, demangle: bool = False) -> List[Frame]:
        """Frames for "SYMBOL+0xOFFSET" (innermost first; SYMBOL as people
        type it: mangled, demangled or short; blanks around it ignored); []
        when no line row covers it.  A name of no function or past its end
        raises NotFoundError, a name of several ArgumentError, each saying
        why as addr2line does; a location that is not SYMBOL+OFFSET raises
        ArgumentError, one that is not a str TypeError.
        sm: "90", "sm_90a", 100 ... to pick the images.  demangle: each
        frame's function demangled and linkage_name beside it, as
        `addr2line -C --json`."""
        loc, n, off = _parse_location(location, self.path)
        h = self._symbolizer(sm)
        res = _lib.SymResult()
        rc = _dll.cudw_symbolize(h, loc, n, off, _byref(res), self._frames, _MAX_FRAMES)
        if rc:
            raise Error.of(_dll.cudw_symbolizer_error(h).contents, self.path)
        if not res.found:
            why = _ctypes.create_string_buffer(512)
            miss = _dll.cudw_symbolize_why(h, loc, n, _byref(res), why, len(why))
            if miss in (_MISS_NO_FUNCTION, _MISS_AMBIGUOUS, _MISS_PAST_END):
                cls = ArgumentError if miss == _MISS_AMBIGUOUS else NotFoundError
                raise _error(cls, "symbolize", _s(why.value), f"{self.path}: {_s(loc)}")
        return self._frames_of(res, self._frames, demangle)

    @_locked
    def symbolize_address(self, image: Union[int, str], section: int, address: int,
                          sm: Union[int, str, None] = None, demangle: bool = False) -> List[Frame]:
        """Frames for an address of code section `section` (its index) of
        an ELF image (its label, as images() gives it); demangle as
        symbolize()'s."""
        for v, what in ((section, "section"), (address, "address")):
            if not isinstance(v, int):
                raise TypeError(f"{what} must be an int, not {type(v).__name__}")
        h = self._symbolizer(sm)
        n = _dll.cudw_symbolizer_image_count(h)
        which = [i for i in range(n) if _s(_dll.cudw_symbolizer_image(h, i).contents.label) == image]
        if not which:
            raise _error(NotFoundError, "image",
                         f"no ELF image {image!r}" + (f" for sm {sm}" if sm else ""), self.path)
        res = _lib.SymResult()
        if _dll.cudw_symbolize_address(h, which[0], section, address, _byref(res), self._frames, _MAX_FRAMES):
            raise Error.of(_dll.cudw_symbolizer_error(h).contents, self.path)
        return self._frames_of(res, self._frames, demangle)

    @_locked
    def correlate(self, ptx: Union[str, _os.PathLike, None] = None, sm: Union[int, str, None] = None,
                  function: Optional[str] = None, demangle: bool = False) -> List["Correlation"]:
        """Source <-> PTX <-> SASS of every image (or those sm selects, or
        that define function): one Correlation per image, the record of
        `cudwarf correlate --json` as an object (instructions, source_lines,
        functions, files; rec.to_dict() is the JSON's dict).  ptx: the PTX
        file the image was compiled from (checked: PtxError when it is not,
        or cannot be read).  An unknown function raises NotFoundError
        naming the nearest (as the CLI and symbolize() do)."""
        fn = _str(function, "function").encode() if function is not None else None
        ptx = _path(ptx, "ptx") if ptx is not None else None
        h = self._symbolizer(sm)
        p = _ptx_open(ptx) if ptx else None
        try:
            out = []
            opts = _lib.CorrOpts(p, fn or None, 0)  # "": every function, as None
            for i in range(_dll.cudw_symbolizer_image_count(h)):
                c = _c_void_p()
                if _dll.cudw_correlate(h, i, _byref(opts), _byref(c)):
                    e = _dll.cudw_symbolizer_error(h).contents
                    if function and e.code == _lib.E_NOT_FOUND and e.what == b"function":
                        continue  # another image defines it
                    raise Error.of(e, self.path, ptx=ptx)
                try:
                    out.append(_correlation(c, p, demangle))
                finally:
                    _dll.cudw_correlation_close(c)
            if function and not out:  # why, in the resolver's words: the nearest names (as the CLI)
                if _dll.cudw_symbolizer_resolve(h, fn, len(fn), _byref(_c_char_p())):
                    raise Error.of(_dll.cudw_symbolizer_error(h).contents, self.path)
                raise _error(NotFoundError, "function", f"no image defines function {function}", self.path)
            return out
        finally:
            _dll.cudw_ptx_close(p)

    @_locked
    def symbolize_many(self, locations: Iterable[str], sm: Union[int, str, None] = None, frames: int = 16,
                       demangle: bool = False) -> List[List[Frame]]:
        """symbolize() for every location, in one library call per 4096.  A
        location that cannot be symbolized (no such function, ambiguous, past
        its end, no line row) gives [] in its place -- a profiler's batch
        goes on; symbolize() on that one location says why.  locations: an
        iterable of str (one str is a TypeError, not its characters)."""
        if isinstance(locations, (str, bytes)):
            raise TypeError("locations must be an iterable of str locations, not one " + type(locations).__name__)
        h = self._symbolizer(sm)
        out, batch = [], []

        def flush():
            q = (_lib.SymQuery * len(batch))()
            keep = []
            for k, loc in enumerate(batch):
                b, n, off = _parse_location(loc, self.path)
                keep.append(b[:n])
                q[k] = _lib.SymQuery(keep[-1], off)
            res = (_lib.SymResult * len(batch))()
            fr = (_lib.SymFrame * (len(batch) * frames))()
            rc = _dll.cudw_symbolize_batch(h, q, len(batch), res, fr, frames)
            if rc:
                raise Error.of(_dll.cudw_symbolizer_error(h).contents, self.path)
            for k in range(len(batch)):
                if res[k].nframes > frames:  # deeper than the room given: ask again
                    out.append(self.symbolize(batch[k], sm, demangle))
                else:
                    base = _ctypes.cast(_ctypes.byref(fr, k * frames * _ctypes.sizeof(_lib.SymFrame)),
                                       _ctypes.POINTER(_lib.SymFrame))
                    out.append(self._frames_of(res[k], base, demangle))
            batch.clear()

        for loc in locations:
            batch.append(loc)
            if len(batch) == 4096:
                flush()
        if batch:
            flush()
        return out

    # ---- rows, DIEs, verify ----

    def _each_elf(self, image):
        for i in self._elf_indexes(image):
            p = self._load(i)
            try:
                yield _s(_dll.cudw_input_peek(self._in, i).contents.label), p.contents.elf
            finally:
                _dll.cudw_image_close(p)

    def lines(self, image: Union[int, str, None] = None, section: Optional[str] = None,
              demangle: bool = False) -> Iterator[Row]:
        """Rows of every line table (.debug_line, .nv_debug_line_sass and
        the Mercury twins), or of one section, in emission order; with
        demangle=True the inlined functions' names demangled (Row)."""
        if section is not None:
            _str(section, "section")
        shown = {}  # each function demangled once
        for label, f in self._each_elf(image):
            for k in range(1, _dll.cudw_section_count(f)):
                s = _dll.cudw_section_get(f, k)
                name = _s(s.contents.name)
                base = name.replace(".nv.merc.", ".", 1)
                if base not in (".debug_line", ".nv_debug_line_sass") or (section and name != section):
                    continue
                cur, t = _c_uint64(0), _c_void_p()
                while True:
                    rc = _dll.cudw_line_table_next(f, s, _byref(cur), _byref(t))
                    if rc == 1:
                        break
                    if rc:
                        raise Error.of(_dll.cudw_last_error(f).contents, label)
                    it = _ctypes.create_string_buffer(_lib.LINE_ITER_SIZE)
                    _dll.cudw_line_iter_init(t, it, 0)
                    r = _lib.LineRow()
                    try:
                        while True:
                            rc = _dll.cudw_line_next(it, _byref(r))
                            if rc == 1:
                                break
                            if rc:
                                raise Error.of(_dll.cudw_last_error(f).contents, label)
                            row = Row()
                            row.image, row.section = label, name
                            row.address, row.symbol = r.address, _s(r.symbol)
                            row.offset = r.address - r.symbol_value
                            row.path = _s(_dll.cudw_line_file_path(t, r.file))
                            row.line, row.column = r.line, r.column
                            row.is_stmt, row.end_sequence = bool(r.is_stmt), bool(r.end_sequence)
                            row.context, row.function, row.linkage_name = r.context, _s(r.function), None
                            if demangle and row.function:
                                d = shown.get(row.function) or shown.setdefault(row.function,
                                                                                 _demangle(row.function))
                                if d != row.function:
                                    row.function, row.linkage_name = d, row.function
                            yield row
                    finally:
                        _dll.cudw_line_iter_free(it)

    def dies(self, image: Union[int, str, None] = None, section: str = ".debug_info") -> Iterator[DIE]:
        """Every DIE of .debug_info (or another info-like section), in
        order, each linked to its parent and its parent's children."""
        for unit in self._units(image, section):
            yield from unit

    def units(self, image: Union[int, str, None] = None, section: str = ".debug_info") -> List[Unit]:
        """The compilation units, each with its whole DIE tree (Unit)."""
        out = []
        for label, offset, dies in self._units_with_labels(image, section):
            u = Unit()
            u.dies = list(dies)
            u.image, u.section, u.offset = label, section, offset
            u.top = u.dies[0] if u.dies else None
            out.append(u)
        return out

    def _units(self, image, section):
        for _label, _offset, dies in self._units_with_labels(image, section):
            yield dies

    def _units_with_labels(self, image, section):
        _str(section, "section")
        for label, f in self._each_elf(image):
            s = _dll.cudw_section_find(f, section.encode())
            if not s:
                continue
            cur = _c_uint64(0)
            unit = _ctypes.create_string_buffer(_lib.UNIT_SIZE)
            while True:
                rc = _dll.cudw_unit_next(f, s, _byref(cur), unit)
                if rc == 1:
                    break
                if rc:
                    raise Error.of(_dll.cudw_last_error(f).contents, label)
                # cudw_unit: file, section (two pointers), then the header's offset
                offset = _c_uint64.from_buffer(unit, 2 * _ctypes.sizeof(_c_void_p)).value
                yield label, offset, self._unit_dies(label, section, f, unit)

    def _unit_dies(self, label, section, f, unit):
        it = _ctypes.create_string_buffer(_lib.DIE_ITER_SIZE)
        _dll.cudw_die_iter_init(unit, it)
        d = _lib.Die()
        stack = []  # the open ancestors: stack[k] is at depth k
        while True:
            rc = _dll.cudw_die_next(it, _byref(d))
            if rc == 1:
                break
            if rc:
                raise Error.of(_dll.cudw_last_error(f).contents, label)
            x = self._die(label, section, f, d)
            del stack[x.depth:]
            x.parent = stack[-1] if stack else None
            if x.parent is not None:
                x.parent.children.append(x)
            stack.append(x)
            yield x

    @staticmethod
    def _die(label, section, f, d):
        x = DIE()
        x.image, x.section, x.offset, x.depth, x.tag = label, section, d.offset, d.depth, d.tag
        x.tag_name = _s(_dll.cudw_tag_name(d.tag))
        x.tag = Tag(d.tag) if d.tag in Tag._value2member_map_ else d.tag
        x.children, x.forms = [], {}
        name = _c_char_p()
        x.name = _s(name.value) if _dll.cudw_die_name(_byref(d), _byref(name)) == 0 else None
        x.attrs = {}
        ai = _ctypes.create_string_buffer(_lib.ATTR_ITER_SIZE)
        _dll.cudw_attr_iter_init(_byref(d), ai)
        a = _lib.Attr()
        while True:
            rc = _dll.cudw_attr_next(ai, _byref(a))
            if rc == 1:
                break
            if rc:
                raise Error.of(_dll.cudw_last_error(f).contents, label)
            key = _s(_dll.cudw_at_name(a.name)) or f"0x{a.name:x}"
            x.forms[key] = Form(a.form) if a.form in Form._value2member_map_ else a.form
            if a.vclass == _lib.V_STRING:
                x.attrs[key] = _s(a.str)
            elif a.vclass == _lib.V_BLOCK:
                x.attrs[key] = _ctypes.string_at(a.block, a.block_len)
            elif a.vclass == _lib.V_SIGNED:
                x.attrs[key] = a.s
            else:
                x.attrs[key] = a.u
        return x

    def verify(self, image: Union[int, str, None] = None) -> List[Finding]:
        """Every finding of cudw_verify over the ELF images."""
        found = []
        for label, f in self._each_elf(image):
            def on(p, _ctx, label=label):
                w = p.contents.where
                x = Finding()
                x.image, x.severity = label, "note" if p.contents.severity == 2 else "error"
                x.section, x.offset = _s(w.section), w.offset
                x.what, x.detail = _s(w.what), _s(w.detail)
                found.append(x)
            _dll.cudw_verify(f, _lib.FINDING_FN(on), None)
        return found


# ---- PTX and correlation ----

def _ptx_open(path):
    """The PTX file path (a str) parsed; PtxError where it cannot be."""
    h = _c_void_p()
    if _dll.cudw_ptx_open(_os.fsencode(path), _byref(h)):
        if not h:
            raise MemoryError(path)
        d = _dll.cudw_ptx_error(h).contents
        e = PtxError(path, d.line, d.column, d.text.decode(errors="replace"))  # before the close frees d
        _dll.cudw_ptx_close(h)
        raise e
    return h


def _ptx_path(p, number):
    f = _dll.cudw_ptx_file_find(p, number)
    return _s(f.contents.path) if f else None


class _Record(_Mapping):
    """A record of the CLI's JSON as an object: attributes named as the
    JSON's keys.  Also a read-only mapping of those keys, for code written
    against the dicts the package gave before 0.2: rec["key"], "key" in rec,
    rec.get(), keys()/items(), and == a dict of the same content.
    to_dict() gives the JSON's dict (keys the JSON leaves out stay out)."""

    def _absent(self):
        """The keys the JSON leaves out of this record (their attributes are None)."""
        return ()

    def __iter__(self):
        absent = self._absent()
        return (f.name for f in _fields(self) if f.name not in absent)

    def __len__(self):
        return sum(1 for _ in self)

    def __getitem__(self, key):
        if key not in self.__dataclass_fields__ or key in self._absent():
            raise KeyError(key)
        return getattr(self, key)

    def to_dict(self) -> dict:
        return {k: _plain(getattr(self, k)) for k in self}


def _plain(v):
    if isinstance(v, _Record):
        return v.to_dict()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


@_dataclass(eq=False)
class PtxFrame(_Record):
    """A .loc of a PTX line's inline chain, innermost first."""
    function: Optional[str]
    path: Optional[str]
    line: int
    column: int


@_dataclass(eq=False)
class PtxLine(_Record):
    """A PTX instruction line (ptx_lines()): its PTX function, the .loc in
    effect (file number, path, line, column: None, None, 0, 0 before any)
    and that .loc's inline chain."""
    ptx_line: int
    function: Optional[str]
    file: Optional[int]
    path: Optional[str]
    line: int
    column: int
    frames: List[PtxFrame]


def ptx_lines(path: Union[str, _os.PathLike]) -> List[PtxLine]:
    """Every PTX instruction line with the .loc in effect and its inline
    chain: the records of `cudwarf ptx-lines --json`, as PtxLine objects."""
    p = _ptx_open(_path(path, "path"))
    try:
        out, w, ins = [], _lib.PtxWalk(), _lib.PtxInsn()
        while _dll.cudw_ptx_insn_next(p, _byref(w), _byref(ins)) == 0:
            fn = _s(_dll.cudw_ptx_func_get(p, ins.function).contents.name)
            frames, k = [], ins.loc
            while k:
                x = _dll.cudw_ptx_loc_get(p, k).contents
                frames.append(PtxFrame(_s(x.name or x.label) if x.inlined_at else fn, _ptx_path(p, x.file), x.line,
                                       x.column))
                k = x.inlined_at
            if ins.loc:
                L = _dll.cudw_ptx_loc_get(p, ins.loc).contents
                out.append(PtxLine(ins.line, fn, L.file, _ptx_path(p, L.file), L.line, L.column, frames))
            else:
                out.append(PtxLine(ins.line, fn, None, None, 0, 0, frames))
        return out
    finally:
        _dll.cudw_ptx_close(p)


def ptx_predict(ptx: Union[str, _os.PathLike], cubin: Union[str, _os.PathLike],
                section: str = ".debug_line") -> bytes:
    """The bytes of the line section (".debug_line" or
    ".nv.merc.debug_line") ptxas writes for cubin from ptx."""
    ptx, cubin, section = _path(ptx, "ptx"), _path(cubin, "cubin"), _str(section, "section")
    p = _ptx_open(ptx)
    f = _c_void_p()
    try:
        if _dll.cudw_open(_byref(f), _os.fsencode(cubin)):
            raise Error.of(_dll.cudw_last_error(f).contents, cubin) if f else MemoryError(cubin)
        pr = _lib.PtxPrediction()
        if _dll.cudw_ptx_predict(f, p, section.encode(), _byref(pr)):
            raise Error.of(_dll.cudw_last_error(f).contents, cubin, ptx=ptx)
        try:
            return _ctypes.string_at(pr.unit.data, pr.unit.size)
        finally:
            _dll.cudw_ptx_prediction_free(_byref(pr))
    finally:
        _dll.cudw_close(f)
        _dll.cudw_ptx_close(p)


_PTX_FROM = {1: "file", 2: "fatbin", 3: "section"}


# The records of `cudwarf correlate --json` (docs/json.md), one class per
# kind of object there, the attributes in the JSON's order.

@_dataclass(eq=False)
class PtxText(_Record):
    """Where the PTX text of a .nv_debug_ptx_txt section came from: source
    "file" (ptx=), "fatbin" (name: the PTX entry's label) or "section"."""
    source: str
    name: Optional[str]
    section: Optional[str]
    lines: int


@_dataclass(eq=False)
class SourceFrame(_Record):
    """A frame as `addr2line -f -i --json` gives it: function (demangled
    with demangle=True, then linkage_name is the mangled one; else None and
    left out of the dict), path, line, column, source ("symbol",
    "line-table", "die", "none")."""
    function: Optional[str]
    linkage_name: Optional[str]
    path: Optional[str]
    line: int
    column: int
    source: str

    def _absent(self):
        return ("linkage_name",) if self.linkage_name is None else ()


@_dataclass(eq=False)
class LocFrame(_Record):
    """A .loc of the chain the PTX says (Loc), innermost first, with its PTX
    line (function demangled with demangle=True, linkage_name as SourceFrame's)."""
    function: Optional[str]
    linkage_name: Optional[str]
    path: Optional[str]
    line: int
    column: int
    ptx_line: int

    def _absent(self):
        return ("linkage_name",) if self.linkage_name is None else ()


@_dataclass(eq=False)
class Loc(_Record):
    """Where the PTX's .loc says other than the frames: its PTX line, why
    ptxas's table differs (reason), and its chain."""
    ptx_line: int
    reason: Optional[str]
    frames: List[LocFrame]


@_dataclass(eq=False)
class Instruction(_Record):
    """A SASS instruction: section and pc; symbol and offset (None and left
    out of the dict with no symbol); function_symbol and function_offset
    where it lies in another function (else None, left out); size; ptx (the
    index into Correlation.ptx; None and left out where no
    .nv_debug_line_sass row covers it, i.e. ptx_line is None); frames; loc
    (None, left out, where the .loc agrees)."""
    section: Optional[str]
    pc: int
    symbol: Optional[str]
    offset: Optional[int]
    function_symbol: Optional[str]
    function_offset: Optional[int]
    size: int
    ptx: Optional[int]
    ptx_line: Optional[int]
    frames: List[SourceFrame]
    loc: Optional[Loc]

    def _absent(self):
        out = []
        if self.symbol is None:
            out.append("offset")
        if self.function_symbol is None:
            out += ["function_symbol", "function_offset"]
        if self.ptx_line is None:
            out.append("ptx")
        if self.loc is None:
            out.append("loc")
        return out


@_dataclass(eq=False)
class LineFunction(_Record):
    """A function with code on a source line: its exclusive bytes and
    instructions there (function demangled with demangle=True, linkage_name
    as SourceFrame's)."""
    function: Optional[str]
    linkage_name: Optional[str]
    sass_bytes: int
    sass_instructions: int

    def _absent(self):
        return ("linkage_name",) if self.linkage_name is None else ()


@_dataclass(eq=False)
class LineCaller(_Record):
    """A call site a source line's code was inlined at (path, line, function:
    the caller, demangled with demangle=True, linkage_name as SourceFrame's)."""
    path: Optional[str]
    line: int
    function: Optional[str]
    linkage_name: Optional[str]
    sass_bytes: int
    sass_instructions: int

    def _absent(self):
        return ("linkage_name",) if self.linkage_name is None else ()


@_dataclass(eq=False)
class SourceLine(_Record):
    """What a source line costs (path None: instructions no row covers):
    SASS bytes and instructions, exclusive and inclusive of inlined code,
    PTX instructions; the functions with code on it and its call sites."""
    path: Optional[str]
    line: int
    sass_bytes: int
    sass_bytes_inclusive: int
    sass_instructions: int
    sass_instructions_inclusive: int
    ptx_instructions: Optional[int]
    functions: List[LineFunction]
    callers: List[LineCaller]


@_dataclass(eq=False)
class FunctionCost(_Record):
    """What a function costs (ptx_instructions None when only known per
    line; function demangled with demangle=True, linkage_name as
    SourceFrame's)."""
    function: Optional[str]
    linkage_name: Optional[str]
    sass_bytes: int
    sass_bytes_inclusive: int
    sass_instructions: int
    sass_instructions_inclusive: int
    ptx_instructions: Optional[int]

    def _absent(self):
        return ("linkage_name",) if self.linkage_name is None else ()


@_dataclass(eq=False)
class FileCost(_Record):
    """What a source file costs (ptx_instructions None when only known per line)."""
    path: Optional[str]
    sass_bytes: int
    sass_bytes_inclusive: int
    sass_instructions: int
    sass_instructions_inclusive: int
    ptx_instructions: Optional[int]


@_dataclass(eq=False)
class Correlation(_Record):
    """One image's correlation (correlate()): the image's totals, where its
    PTX text came from, every instruction, and the costs per source line,
    function and file, as `cudwarf correlate --json` has them."""
    image: Optional[str]
    sm: int
    code_bytes: int
    sass_bytes: int
    capsule_bytes: int
    instruction_count: int
    with_line: int
    with_ptx: int
    disagree: int
    ptx_instructions_by: str
    ptx: List[PtxText]
    instructions: List[Instruction]
    source_lines: List[SourceLine]
    functions: List[FunctionCost]
    files: List[FileCost]


def _source_frame(fr, dem):
    return SourceFrame(_s(fr.function_demangled if dem else fr.function), _s(fr.function) if dem else None,
                       _s(fr.file), fr.line, fr.column, _FROM.get(fr.source, "none"))


_COUNTERS = ("sass_bytes", "sass_bytes_inclusive", "sass_instructions", "sass_instructions_inclusive")


def _named(name, dem):
    """(the name shown, its linkage name): with dem a mangled name demangled
    and the linkage name beside it, as the CLI's -C"""
    shown = demangle(name) if name and dem else name
    return shown, (name if shown != name else None)


def _source_line(c, i, k, dem):
    v = _POINTER(_lib.CorrLineFn)()
    n = _dll.cudw_corr_line_functions(c, i, _byref(v))
    fns = [LineFunction(*_named(_s(v[j].function), dem), v[j].sass_bytes, v[j].sass_instructions) for j in range(n)]
    w = _POINTER(_lib.CorrCaller)()
    n = _dll.cudw_corr_line_callers(c, i, _byref(w))
    callers = [LineCaller(_s(w[j].file), w[j].line, *_named(_s(w[j].function), dem), w[j].sass_bytes,
                          w[j].sass_instructions) for j in range(n)]
    return SourceLine(_s(k.name), k.line, *(getattr(k, f) for f in _COUNTERS), k.ptx_instructions, fns, callers)


def _loc(c, ins, dem):
    p = _dll.cudw_corr_ptx_get(c, ins.ptx).contents.ptx
    frames, k = [], ins.loc
    while k:
        x = _dll.cudw_ptx_loc_get(p, k).contents
        frames.append(LocFrame(*_named(_s(x.name), dem), _ptx_path(p, x.file), x.line, x.column, x.ptx_line))
        k = x.inlined_at
    return Loc(_dll.cudw_ptx_loc_get(p, ins.loc).contents.ptx_line, _s(_dll.cudw_corr_reason_name(ins.reason)), frames)


def _instruction(c, i, dem, n):
    x = _dll.cudw_corr_insn_get(c, i).contents
    other = x.func and x.func != x.symbol
    no_ptx = (1 << (8 * _ctypes.sizeof(_c_size_t))) - 1
    fr = _dll.cudw_corr_frames(c, i, _byref(n))
    return Instruction(_s(x.section_name), x.pc, _s(x.symbol), x.offset if x.symbol else None,
                       _s(x.func) if other else None, x.func_offset if other else None, x.size,
                       (x.ptx if x.ptx != no_ptx else None) if x.ptx_line else None, x.ptx_line or None,
                       [_source_frame(fr[k], dem) for k in range(n.value)], _loc(c, x, dem) if x.reason else None)


def _correlation(c, ptx, dem):
    s = _dll.cudw_corr_summary_get(c).contents
    texts = []
    for i in range(_dll.cudw_corr_ptx_count(c)):
        t = _dll.cudw_corr_ptx_get(c, i).contents
        texts.append(PtxText(_PTX_FROM[t.from_], _s(t.name), _s(t.section.contents.name), t.lines))
    n = _c_size_t()
    insns = [_instruction(c, i, dem, n) for i in range(_dll.cudw_corr_insn_count(c))]
    lines = [_source_line(c, i, _dll.cudw_corr_line_get(c, i).contents, dem)
             for i in range(_dll.cudw_corr_line_count(c))]
    # a function's or file's PTX count is known only where it is counted by .loc
    known = (lambda k: k.ptx_instructions) if s.ptx_by_loc else (lambda k: None)
    funcs = [FunctionCost(*_named(_s(k.name), dem), *(getattr(k, f) for f in _COUNTERS), known(k))
             for k in (_dll.cudw_corr_function_get(c, i).contents for i in range(_dll.cudw_corr_function_count(c)))]
    files = [FileCost(_s(k.name), *(getattr(k, f) for f in _COUNTERS), known(k))
             for k in (_dll.cudw_corr_file_get(c, i).contents for i in range(_dll.cudw_corr_file_count(c)))]
    return Correlation(_s(s.image), s.sm, s.code_bytes, s.sass_bytes, s.capsule_bytes, s.instructions, s.with_line,
                       s.with_ptx, s.disagree, "loc" if s.ptx_by_loc else "sass", texts, insns, lines, funcs, files)


def correlate(path: Union[str, _os.PathLike], ptx: Union[str, _os.PathLike, None] = None,
              sm: Union[int, str, None] = None, function: Optional[str] = None,
              demangle: bool = False) -> List[Correlation]:
    """File(path).correlate(...): the records of `cudwarf correlate --json`, as Correlation objects."""
    with File(path) as f:
        return f.correlate(ptx=ptx, sm=sm, function=function, demangle=demangle)


def open(path: Union[str, _os.PathLike],  # noqa: A001 - the package's front door
         debug_file: Union[str, _os.PathLike, None] = None) -> File:
    """Open a cubin, fatbin, host ELF or archive (a context manager); path
    and debug_file: a str or os.PathLike (pathlib.Path)."""
    return File(path, debug_file)


# typing's names were for the annotations above; they are not the package's
del Dict, Iterable, Iterator, List, Optional, Union
