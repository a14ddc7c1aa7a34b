#!/usr/bin/env python3
"""Every constant of the headers given (include/cudwarf/dwarf.h, nvidia.h) against the library's own names:
CUDW_DW_TAG_x = v must satisfy cudw_tag_name(v) == "DW_TAG_x", and so on for
every group; a register class must spell registers the way its comment says.
The names come from the library's tables (const_names.c, reloc_names.c), which
the reference comparisons (llvm-dwarfdump, eu-readelf, GNU readelf) check
value by value, so a wrong number in the header fails here.
usage: check_constants.py LIBCUDWARF_SO HEADER..."""
import ctypes
import re
import sys

lib = ctypes.CDLL(sys.argv[1])
text = "".join(open(h).read() for h in sys.argv[2:])
consts = [(m.group(1), int(m.group(2), 0)) for m in re.finditer(r"^\s+CUDW_(\w+) = (0x[0-9a-f]+|\d+),", text, re.M)]


def namer(fn, argt, *extra):
    f = getattr(lib, fn)
    f.restype = ctypes.c_char_p
    f.argtypes = [argt] + [ctypes.c_int] * len(extra)
    return lambda v: (f(v, *extra) or b"").decode()


groups = [  # prefix, the name the library gives a value
    ("DW_TAG_", namer("cudw_tag_name", ctypes.c_uint32)),
    ("DW_AT_", namer("cudw_at_name", ctypes.c_uint32)),
    ("DW_FORM_", namer("cudw_form_name", ctypes.c_uint32)),
    ("DW_OP_", namer("cudw_op_name", ctypes.c_uint8)),
    ("DW_LANG_", namer("cudw_lang_name", ctypes.c_uint64)),
    ("DW_ATE_", namer("cudw_ate_name", ctypes.c_uint64)),
    ("DW_INL_", namer("cudw_inline_name", ctypes.c_uint64)),
    ("DW_ACCESS_", namer("cudw_access_name", ctypes.c_uint64)),
    ("DW_CFA_", namer("cudw_cfa_name", ctypes.c_uint8)),
    ("DW_MACINFO_", namer("cudw_macinfo_name", ctypes.c_uint8)),
    ("DW_LNS_", namer("cudw_line_op_name", ctypes.c_uint8, 0)),
    ("DW_LNE_", namer("cudw_line_op_name", ctypes.c_uint8, 1)),
    ("R_CUDA_", namer("cudw_reloc_type_name", ctypes.c_uint32)),
    ("R_MERCURY_", namer("cudw_reloc_type_name", ctypes.c_uint32)),
]
addr = namer("cudw_address_class_name", ctypes.c_uint64)
reg_fn = lib.cudw_register_name
reg_fn.restype = ctypes.c_size_t
reg_fn.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]


def reg(v):
    buf = ctypes.create_string_buffer(32)
    reg_fn(v, buf, 32)
    return buf.value.decode()


# register n = 3 of each class, as cudw_register_name spells it
spell = {"CC": "CC3", "P": "P3", "ADDR": "ADDR3", "R_HALF": "R1.hi", "R": "R3", "LOCAL": "LOCAL3",
         "LOCALREG": "LOCALREG3", "UP": "UP3", "UR_HALF": "UR1.hi", "UR": "UR3", "SPILL": "SPILL3"}
bad, seen = [], {}
for name, v in consts:
    if name.startswith("ADDR_"):
        key, got, want = "ADDR_", addr(v), name[5:]
    elif name.startswith("REGCLASS_"):
        key, got, want = "REGCLASS_", reg(v << 24 | 3), spell.get(name[9:], "?")
    else:
        key, fn = next(((p, f) for p, f in groups if name.startswith(p)), (None, None))
        if fn is None:
            bad.append(f"{name}: no group")
            continue
        got, want = fn(v), name
    seen[key] = seen.get(key, 0) + 1
    if got != want:
        bad.append(f"CUDW_{name} = {v:#x}: the library names it '{got}'")
for b in bad:
    print("FAIL", b)
if len(consts) < 600:
    print(f"FAIL only {len(consts)} constants read from {' '.join(sys.argv[2:])}")
    bad.append(1)
print(f"{'ok  ' if not bad else 'FAIL'} {len(consts)} constants in {len(seen)} groups equal the library's names")
sys.exit(1 if bad else 0)
