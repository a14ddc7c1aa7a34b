"""ctypes declarations of libcudwarf (include/cudwarf.h): the structures
Python reads field by field, and buffers for the ones it only hands back.
Only what the package uses is declared."""
import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_int, c_size_t, c_uint, c_uint8, c_uint16, c_uint32,
                    c_uint64, c_int64, c_void_p)


def _candidates():
    env = os.environ.get("CUDWARF_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libcudwarf.so", "libcudwarf.so.1"):
        yield os.path.join(here, name)                                   # beside the package
        yield os.path.join(here, "..", "..", "build", name)            # a source tree's build/
    found = ctypes.util.find_library("cudwarf")                        # installed
    if found:
        yield found
    yield "libcudwarf.so.1"


def _load():
    errors = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise OSError("libcudwarf not found (set CUDWARF_LIB to its path): " + "; ".join(errors or ["nowhere to look"]))


lib = _load()


class Error_(Structure):
    _fields_ = [("code", c_int), ("section", c_char * 64), ("offset", c_uint64), ("what", c_char_p),
                ("detail", c_char * 224)]


class InputImage(Structure):
    _fields_ = [("label", c_char_p), ("tag", c_char_p), ("kind", c_int), ("sm", c_uint), ("variant", c_char),
                ("entry", c_void_p), ("container", c_size_t), ("offset", c_uint64), ("member", c_char_p),
                ("elf", c_void_p), ("data", c_void_p), ("size", c_size_t)]


class Image(Structure):
    _fields_ = [("info", POINTER(InputImage)), ("data", c_void_p), ("size", c_size_t), ("elf", c_void_p),
                ("err", Error_)]


class Section(Structure):
    _fields_ = [("index", c_uint), ("name", c_char_p), ("type", c_uint32), ("flags", c_uint64), ("addr", c_uint64),
                ("offset", c_uint64), ("size", c_uint64), ("link", c_uint32), ("info", c_uint32),
                ("align", c_uint64), ("entsize", c_uint64), ("data", c_void_p), ("data_size", c_uint64)]


class SymOpts(Structure):
    _fields_ = [("flags", c_uint), ("sm", c_uint), ("variant", c_char), ("debug_file", c_char_p)]


class SymFrame(Structure):
    _fields_ = [("function", c_char_p), ("function_demangled", c_char_p), ("file", c_char_p), ("line", c_uint64),
                ("column", c_uint64), ("source", c_int)]


class SymResult(Structure):
    _fields_ = [("found", c_int), ("image", c_size_t), ("image_label", c_char_p), ("other_images", c_size_t),
                ("symbol", c_char_p), ("offset", c_uint64), ("section", c_uint), ("address", c_uint64),
                ("nframes", c_size_t), ("inline_source", c_int), ("sources_disagree", c_int),
                ("names_recovered", c_int), ("names_dropped", c_int), ("has_ptx", c_int), ("ptx_section", c_char_p),
                ("ptx_line", c_uint64), ("ptx_text", c_char_p)]


class SymQuery(Structure):
    _fields_ = [("symbol", c_char_p), ("offset", c_uint64)]


class LineRow(Structure):
    _fields_ = [("address", c_uint64), ("symbol", c_char_p), ("symbol_value", c_uint64), ("symtab", c_uint),
                ("file", c_uint64), ("line", c_uint64), ("column", c_uint64), ("is_stmt", c_uint8),
                ("basic_block", c_uint8), ("end_sequence", c_uint8), ("merc_flag", c_uint8),
                ("context", c_uint64), ("function_offset", c_uint64), ("function", c_char_p), ("sequence", c_uint64),
                ("index", c_uint64), ("op_offset", c_uint64)]


class Die(Structure):
    _fields_ = [("unit", c_void_p), ("offset", c_uint64), ("depth", c_uint), ("code", c_uint64), ("tag", c_uint32),
                ("has_children", c_uint8), ("abbrev", c_void_p), ("attr_offset", c_uint64)]


class Attr(Structure):
    _fields_ = [("name", c_uint32), ("form", c_uint32), ("indirect", c_uint8), ("vclass", c_uint8),
                ("offset", c_uint64), ("size", c_uint64), ("u", c_uint64), ("s", c_int64), ("str", c_char_p),
                ("block", POINTER(c_uint8)), ("block_len", c_uint64), ("reloc", c_void_p)]


class Finding(Structure):
    _fields_ = [("severity", c_int), ("where", Error_)]


class PtxDiag(Structure):
    _fields_ = [("code", c_int), ("line", c_uint64), ("column", c_uint64), ("text", c_char * 200)]


class PtxFile(Structure):
    _fields_ = [("number", c_uint64), ("path", c_char_p), ("mtime", c_uint64), ("size", c_uint64),
                ("has_stamp", c_uint8), ("ptx_line", c_uint64)]


class PtxLoc(Structure):
    _fields_ = [("ptx_line", c_uint64), ("file", c_uint64), ("line", c_uint64), ("column", c_uint64),
                ("label", c_char_p), ("label_imm", c_uint64), ("function_offset", c_uint64), ("name", c_char_p),
                ("inlined_at", c_size_t), ("function", c_size_t)]


class PtxFunc(Structure):
    _fields_ = [("name", c_char_p), ("entry", c_uint8), ("header_line", c_uint64), ("brace_line", c_uint64),
                ("end_line", c_uint64), ("first_loc", c_size_t), ("nlocs", c_size_t)]


class PtxInsn(Structure):
    _fields_ = [("line", c_uint64), ("text", c_void_p), ("len", c_size_t), ("function", c_size_t),
                ("loc", c_size_t)]


class PtxWalk(Structure):
    _fields_ = [("pos", c_uint64), ("line", c_uint64), ("function", c_size_t), ("loc", c_size_t)]


class LineOut(Structure):
    _fields_ = [("data", POINTER(c_uint8)), ("size", c_size_t), ("sites", c_void_p), ("nsites", c_size_t),
                ("err", Error_)]


class PtxPrediction(Structure):
    _fields_ = [("ops", c_void_p), ("nops", c_size_t),
                ("rows", POINTER(LineRow)), ("nrows", c_size_t), ("unit", LineOut), ("table", c_void_p),
                ("line_sass", POINTER(Section))]


class CorrPtx(Structure):
    _fields_ = [("from_", c_int), ("name", c_char_p), ("section", POINTER(Section)), ("ptx", c_void_p),
                ("lines", c_uint64)]


class CorrInsn(Structure):
    _fields_ = [("section", c_uint), ("section_name", c_char_p), ("pc", c_uint64), ("symbol", c_char_p),
                ("offset", c_uint64), ("func", c_char_p), ("func_offset", c_uint64), ("size", c_uint32), ("bytes", POINTER(c_uint8)), ("ptx_line", c_uint64),
                ("ptx", c_size_t), ("line", c_size_t), ("loc", c_size_t), ("reason", c_int)]


class CorrCost(Structure):
    _fields_ = [("name", c_char_p), ("line", c_uint64), ("sass_bytes", c_uint64), ("sass_bytes_inclusive", c_uint64),
                ("sass_instructions", c_uint64), ("sass_instructions_inclusive", c_uint64),
                ("ptx_instructions", c_uint64)]


class CorrLineFn(Structure):
    _fields_ = [("function", c_char_p), ("sass_bytes", c_uint64), ("sass_instructions", c_uint64)]


class CorrCaller(Structure):
    _fields_ = [("file", c_char_p), ("line", c_uint64), ("function", c_char_p), ("sass_bytes", c_uint64),
                ("sass_instructions", c_uint64)]


class CorrSummary(Structure):
    _fields_ = [("image", c_char_p), ("sm", c_uint), ("code_bytes", c_uint64), ("sass_bytes", c_uint64),
                ("capsule_bytes", c_uint64), ("instructions", c_uint64), ("with_ptx", c_uint64),
                ("with_line", c_uint64), ("disagree", c_uint64), ("ptx_by_loc", c_int)]


class CorrOpts(Structure):
    _fields_ = [("ptx", c_void_p), ("function", c_char_p), ("flags", c_uint)]


# The library says which ABI it has and how big its structures are: a
# library that does not match this package is refused at import, never
# read with the wrong layout.
ABI_VERSION = 6
try:
    lib.cudw_abi_version.restype = ctypes.c_uint
    lib.cudw_abi_version.argtypes = []
    lib.cudw_struct_size.restype = c_size_t
    lib.cudw_struct_size.argtypes = [c_char_p]
    _abi = lib.cudw_abi_version()
except AttributeError:
    _abi = None
if _abi != ABI_VERSION:
    raise ImportError(f"libcudwarf has ABI {_abi}; this cudwarf package needs ABI {ABI_VERSION} "
                      "(install the package and the library of one release)")


def struct_size(name):
    return lib.cudw_struct_size(name.encode())


_LAYOUTS = {"cudw_error": Error_, "cudw_input_image": InputImage, "cudw_image": Image, "cudw_section": Section,
            "cudw_symbolizer_opts": SymOpts, "cudw_sym_frame": SymFrame, "cudw_sym_result": SymResult,
            "cudw_sym_query": SymQuery, "cudw_line_row": LineRow, "cudw_die": Die, "cudw_attr": Attr,
            "cudw_finding": Finding, "cudw_ptx_diag": PtxDiag, "cudw_ptx_file": PtxFile, "cudw_ptx_loc": PtxLoc,
            "cudw_ptx_func": PtxFunc, "cudw_ptx_insn": PtxInsn, "cudw_ptx_walk": PtxWalk,
            "cudw_ptx_prediction": PtxPrediction, "cudw_corr_ptx": CorrPtx, "cudw_corr_insn": CorrInsn,
            "cudw_corr_cost": CorrCost, "cudw_corr_line_fn": CorrLineFn, "cudw_corr_caller": CorrCaller, "cudw_corr_summary": CorrSummary, "cudw_correlate_opts": CorrOpts}
_wrong = [f"{n} ({ctypes.sizeof(t)} here, {struct_size(n)} in the library)" for n, t in _LAYOUTS.items()
          if ctypes.sizeof(t) != struct_size(n)]
if _wrong:
    raise ImportError("libcudwarf's structures are not this package's: " + ", ".join(_wrong))

# Numbers of the header's enums Python reads (the tests compare them with
# the header; a change raises the ABI version).
V_SIGNED, V_STRING, V_BLOCK = 3, 5, 6            # enum cudw_vclass
SYM_DEMANGLE, SYM_PTX = 1, 2                     # CUDW_SYM_*
E_NOT_FOUND, E_ARG = -16, -17                    # CUDW_E_NOT_FOUND, CUDW_E_ARG
SIZE_NCLASSES = 9                                # CUDW_SIZE_NCLASSES (enum cudw_size_class: cudwarf.SectionClass)

# Opaque to Python: the library only writes them; their sizes are the library's.
UNIT_SIZE, LINE_ITER_SIZE, DIE_ITER_SIZE, ATTR_ITER_SIZE = (struct_size(n) for n in (
    "cudw_unit", "cudw_line_iter", "cudw_die_iter", "cudw_attr_iter"))

FINDING_FN = ctypes.CFUNCTYPE(None, POINTER(Finding), c_void_p)


def _decl(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)


_decl("cudw_error_format", c_size_t, POINTER(Error_), c_char_p, c_size_t)
_decl("cudw_input_open", c_int, POINTER(c_void_p), c_char_p)
_decl("cudw_input_error", POINTER(Error_), c_void_p)
_decl("cudw_input_count", c_size_t, c_void_p)
_decl("cudw_input_peek", POINTER(InputImage), c_void_p, c_size_t)
_decl("cudw_input_load", c_int, c_void_p, c_size_t, POINTER(POINTER(Image)))
_decl("cudw_image_close", None, POINTER(Image))
_decl("cudw_input_close", None, c_void_p)
_decl("cudw_open", c_int, POINTER(c_void_p), c_char_p)
_decl("cudw_close", None, c_void_p)
_decl("cudw_last_error", POINTER(Error_), c_void_p)
_decl("cudw_section_count", c_uint, c_void_p)
_decl("cudw_section_get", POINTER(Section), c_void_p, c_uint)
_decl("cudw_section_find", POINTER(Section), c_void_p, c_char_p)
_decl("cudw_classify_name", c_int, c_char_p, c_uint64, c_void_p)
_decl("cudw_size_class_name", c_char_p, c_int)
_decl("cudw_section_size_class", c_int, POINTER(Section))
_decl("cudw_image_sizes", c_int, c_void_p, POINTER(c_uint64))
_decl("cudw_symbolizer_open", c_int, POINTER(c_void_p), c_char_p, POINTER(SymOpts))
_decl("cudw_symbolizer_error", POINTER(Error_), c_void_p)
_decl("cudw_symbolizer_close", None, c_void_p)
_decl("cudw_symbolize", c_int, c_void_p, c_char_p, c_size_t, c_uint64, POINTER(SymResult), POINTER(SymFrame),
      c_size_t)
_decl("cudw_symbolize_why", c_int, c_void_p, c_char_p, c_size_t, c_void_p, c_char_p, c_size_t)
_decl("cudw_symbolizer_resolve", c_int, c_void_p, c_char_p, c_size_t, POINTER(c_char_p))
_decl("cudw_symbolizer_image_count", c_size_t, c_void_p)
_decl("cudw_symbolizer_image", POINTER(InputImage), c_void_p, c_size_t)
_decl("cudw_symbolize_address", c_int, c_void_p, c_size_t, c_uint, c_uint64, POINTER(SymResult),
      POINTER(SymFrame), c_size_t)
_decl("cudw_symbolize_batch", c_int, c_void_p, POINTER(SymQuery), c_size_t, POINTER(SymResult), POINTER(SymFrame),
      c_size_t)
_decl("cudw_location_parse", c_int, c_char_p, POINTER(c_char_p), POINTER(c_size_t), POINTER(c_uint64))
_decl("cudw_line_table_next", c_int, c_void_p, POINTER(Section), POINTER(c_uint64), POINTER(c_void_p))
_decl("cudw_line_file_path", c_char_p, c_void_p, c_uint64)
_decl("cudw_line_iter_init", None, c_void_p, c_void_p, c_uint)
_decl("cudw_line_next", c_int, c_void_p, POINTER(LineRow))
_decl("cudw_line_iter_free", None, c_void_p)
_decl("cudw_unit_next", c_int, c_void_p, POINTER(Section), POINTER(c_uint64), c_void_p)
_decl("cudw_die_iter_init", None, c_void_p, c_void_p)
_decl("cudw_die_next", c_int, c_void_p, POINTER(Die))
_decl("cudw_attr_iter_init", None, POINTER(Die), c_void_p)
_decl("cudw_attr_next", c_int, c_void_p, POINTER(Attr))
_decl("cudw_die_name", c_int, POINTER(Die), POINTER(c_char_p))
_decl("cudw_tag_name", c_char_p, c_uint32)
_decl("cudw_at_name", c_char_p, c_uint32)
_decl("cudw_form_name", c_char_p, c_uint32)
_decl("cudw_verify", c_size_t, c_void_p, FINDING_FN, c_void_p)
_decl("cudw_demangle", c_size_t, c_char_p, c_char_p, c_size_t)
_decl("cudw_sm_parse", c_int, c_char_p, POINTER(c_uint), c_char_p)
_decl("cudw_ptx_open", c_int, c_char_p, POINTER(c_void_p))
_decl("cudw_ptx_close", None, c_void_p)
_decl("cudw_ptx_error", POINTER(PtxDiag), c_void_p)
_decl("cudw_ptx_name", c_char_p, c_void_p)
_decl("cudw_ptx_loc_get", POINTER(PtxLoc), c_void_p, c_size_t)
_decl("cudw_ptx_func_get", POINTER(PtxFunc), c_void_p, c_size_t)
_decl("cudw_ptx_file_find", POINTER(PtxFile), c_void_p, c_uint64)
_decl("cudw_ptx_warning_count", c_size_t, c_void_p)
_decl("cudw_ptx_warning_get", POINTER(PtxDiag), c_void_p, c_size_t)
_decl("cudw_ptx_insn_next", c_int, c_void_p, POINTER(PtxWalk), POINTER(PtxInsn))
_decl("cudw_ptx_predict", c_int, c_void_p, c_void_p, c_char_p, POINTER(PtxPrediction))
_decl("cudw_ptx_prediction_free", None, POINTER(PtxPrediction))
_decl("cudw_correlate", c_int, c_void_p, c_size_t, POINTER(CorrOpts), POINTER(c_void_p))
_decl("cudw_correlation_close", None, c_void_p)
_decl("cudw_corr_summary_get", POINTER(CorrSummary), c_void_p)
_decl("cudw_corr_ptx_count", c_size_t, c_void_p)
_decl("cudw_corr_ptx_get", POINTER(CorrPtx), c_void_p, c_size_t)
_decl("cudw_corr_insn_count", c_size_t, c_void_p)
_decl("cudw_corr_insn_get", POINTER(CorrInsn), c_void_p, c_size_t)
_decl("cudw_corr_frames", POINTER(SymFrame), c_void_p, c_size_t, POINTER(c_size_t))
_decl("cudw_corr_reason_name", c_char_p, c_int)
_decl("cudw_corr_line_functions", c_size_t, c_void_p, c_size_t, POINTER(POINTER(CorrLineFn)))
_decl("cudw_corr_line_callers", c_size_t, c_void_p, c_size_t, POINTER(POINTER(CorrCaller)))
for _k in ("line", "function", "file"):
    _decl(f"cudw_corr_{_k}_count", c_size_t, c_void_p)
    _decl(f"cudw_corr_{_k}_get", POINTER(CorrCost), c_void_p, c_size_t)
