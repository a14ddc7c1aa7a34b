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
    for name in ("libcudwarf.so", "libcudwarf.so.0"):
        yield os.path.join(here, name)                                   # beside the package
        yield os.path.join(here, "..", "..", "build", name)            # a source tree's build/
    found = ctypes.util.find_library("cudwarf")                        # installed
    if found:
        yield found
    yield "libcudwarf.so.0"


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
                ("basic_block", c_uint8), ("end_sequence", c_uint8), ("hidden", c_uint8), ("merc_flag", c_uint8),
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


# Opaque to Python: the library only writes them.  Generous sizes; the
# tests compare them with the C sizes.
UNIT_SIZE, LINE_ITER_SIZE, DIE_ITER_SIZE, ATTR_ITER_SIZE = 512, 1024, 256, 128

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
_decl("cudw_image_free", None, POINTER(Image))
_decl("cudw_input_close", None, c_void_p)
_decl("cudw_open", c_int, POINTER(c_void_p), c_char_p)
_decl("cudw_close", None, c_void_p)
_decl("cudw_last_error", POINTER(Error_), c_void_p)
_decl("cudw_section_count", c_uint, c_void_p)
_decl("cudw_section_get", POINTER(Section), c_void_p, c_uint)
_decl("cudw_section_find", POINTER(Section), c_void_p, c_char_p)
_decl("cudw_classify_name", c_int, c_char_p, c_uint64, c_void_p)
_decl("cudw_symbolizer_open", c_int, POINTER(c_void_p), c_char_p, POINTER(SymOpts))
_decl("cudw_symbolizer_error", POINTER(Error_), c_void_p)
_decl("cudw_symbolizer_close", None, c_void_p)
_decl("cudw_symbolize", c_int, c_void_p, c_char_p, c_size_t, c_uint64, POINTER(SymResult), POINTER(SymFrame),
      c_size_t)
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
_decl("cudw_verify", c_size_t, c_void_p, FINDING_FN, c_void_p)
_decl("cudw_demangle", c_size_t, c_char_p, c_char_p, c_size_t)
