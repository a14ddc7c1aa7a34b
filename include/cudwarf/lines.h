/* cudwarf/lines.h - Line tables: reading rows and opcodes, looking addresses up, writing programs as ptxas does.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_LINES_H
#define CUDWARF_LINES_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

/* ------------------------------------------------------------------ */
/* Line tables: .debug_line, .nv_debug_line_sass, their .nv.merc. twins */
/* ------------------------------------------------------------------ */

/* NVIDIA's extended opcodes (docs/lines.md; elfutils names the first two
 * DW_LNE_NVIDIA_inlined_call and DW_LNE_NVIDIA_set_function_name), the
 * short names of CUDW_DW_LNE_NVIDIA_* in cudwarf/dwarf.h. */
#define CUDW_LNE_INLINED_CALL CUDW_DW_LNE_NVIDIA_inlined_call   /* ULEB context, ULEB function-name offset */
#define CUDW_LNE_SET_FUNCTION CUDW_DW_LNE_NVIDIA_set_function_name /* ULEB function-name offset */
#define CUDW_LNE_MERC_ENTRY CUDW_DW_LNE_NVIDIA_0x92 /* u8 flag: 1 before a function's entry row, 0 after (Mercury only) */

/* "DW_LNS_copy", "DW_LNE_end_sequence", "DW_LNE_NVIDIA_inlined_call", ...:
 * the name of a standard (extended = 0) or extended (extended = 1)
 * line-program opcode; NULL when it has none (a special opcode). */
const char *cudw_line_op_name(uint8_t op, int extended);

typedef struct cudw_line_file {
    const char *name;     /* as stored */
    const char *path;     /* directory joined with name; directory 0 is the unit's
                             comp_dir (name alone when the table has no unit) */
    uint64_t dir, mtime, size;
} cudw_line_file;

typedef struct cudw_line_table {
    cudw_file *file;
    const cudw_section *section;
    uint64_t offset;          /* of the unit header */
    uint64_t unit_length;
    uint64_t end;             /* offset just past the table */
    uint16_t version;         /* 2 or 3 */
    uint64_t header_length;
    uint64_t program_offset;  /* first opcode */
    uint8_t min_inst_length, default_is_stmt, line_range, opcode_base;
    int8_t line_base;
    const uint8_t *std_opcode_lengths;  /* opcode_base - 1 entries */
    size_t ndirs;
    const char *const *dirs;  /* dirs[0] is DWARF directory 1 */
    size_t nfiles;
    const cudw_line_file *files;  /* files[0] is DWARF file 1 */
    const char *comp_dir;     /* DW_AT_comp_dir of the unit whose stmt_list names this
                                 table (directory 0 and relative paths join it), or NULL */
    /* NVIDIA's .debug_str base word: present when header_length leaves
     * exactly 4 bytes after the file table (formats.md 2.2).  Function names
     * of inlined rows are .debug_str[str_base + operand]. */
    uint8_t has_str_base;
    uint64_t str_base;               /* relocated */
    uint32_t str_base_raw;           /* the word's bytes as stored */
    uint64_t str_base_offset;        /* section offset of the word */
    const cudw_reloc *str_base_reloc;
    const cudw_section *str_section; /* .debug_str (or its Mercury twin), or NULL */
} cudw_line_table;

/* The table whose header is at offset of sec, parsed on first use and
 * cached.  cudw_line_table_next walks a section: *cursor starts at 0;
 * CUDW_DONE at the end. */
int cudw_line_table_get(cudw_file *f, const cudw_section *sec, uint64_t offset, const cudw_line_table **out);
int cudw_line_table_next(cudw_file *f, const cudw_section *sec, uint64_t *cursor, const cudw_line_table **out);

/* One opcode of a line program (the raw view, for dumps). */
enum cudw_lop_kind { CUDW_LOP_SPECIAL = 1, CUDW_LOP_STANDARD, CUDW_LOP_EXTENDED };

typedef struct cudw_line_op {
    uint64_t offset, size;    /* section offset and bytes of the opcode */
    uint8_t kind;             /* enum cudw_lop_kind */
    uint8_t opcode;           /* the opcode, or the extended sub-opcode */
    uint64_t ext_len;         /* extended: the length field */
    uint64_t u;               /* advance_pc, set_file, set_column, fixed_advance_pc,
                                 set_address (relocated), 0x90 context, 0x91/0x92 operand,
                                 unknown standard: first operand */
    int64_t s;                /* advance_line */
    uint64_t u2;              /* 0x90: function-name offset */
    const cudw_reloc *reloc;  /* set_address: its relocation, or NULL */
    const char *symbol;       /* set_address: the symbol it is relocated against
                                 (from reloc; an encoder's input: u is then
                                 symbol_value + addend), or NULL */
    uint64_t symbol_value;
    const uint8_t *raw;       /* extended operand bytes (after the sub-opcode) */
    uint64_t raw_len;
    uint64_t addr_adv;        /* special, const_add_pc: address advance */
    int64_t line_adv;         /* special: line advance */
} cudw_line_op;

/* Next opcode at section offset *pos of t's program (start at
 * t->program_offset); CUDW_DONE at t->end. */
int cudw_line_op_next(const cudw_line_table *t, uint64_t *pos, cudw_line_op *out);

/* Whether every opcode of t's program decodes: CUDW_OK, or the error (on
 * the file's handle) that cudw_line_next would stop at.  After CUDW_OK no
 * cudw_line_next on t fails but for memory; several times faster than
 * decoding the rows, for printers that check before they print. */
int cudw_line_table_check(const cudw_line_table *t);

/* One row of the line-number matrix (the rows view). */
typedef struct cudw_line_row {
    uint64_t address;         /* relocated: symbol value + addend + advances */
    const char *symbol;       /* the sequence's DW_LNE_set_address symbol, or NULL */
    uint64_t symbol_value;
    unsigned symtab;          /* the symbol table it is from (.symtab, .nv.merc.symtab) */
    uint64_t file, line, column;
    uint8_t is_stmt, basic_block, end_sequence;
    uint8_t merc_flag;        /* last 0x92 operand in this sequence (0 if none) */
    uint64_t context;         /* 0, or the 1-based row of this sequence it was inlined at */
    uint64_t function_offset; /* 0x90/0x91 operand */
    const char *function;     /* inlined function's name when context != 0 (or after 0x91), else NULL */
    uint64_t sequence;        /* 0-based sequence number in the table */
    uint64_t index;           /* 1-based row number within its sequence */
    uint64_t op_offset;       /* section offset of the opcode that made the row */
} cudw_line_row;

/* Iterator state.  The caller provides the storage (a local variable:
 * walking allocates nothing) and the library owns the fields: read none
 * of them, and expect them to change between versions. */
typedef struct cudw_line_iter {
    const cudw_line_table *table;
    uint64_t pos;
    cudw_line_row state;
    const char *symbol;
    uint64_t symbol_value;
    unsigned symtab;
    cudw_line_row *seq;       /* the rows of the current sequence, for call sites */
    size_t nseq, capseq;
    unsigned flags;
    uint64_t seq_pos;         /* where the current sequence's program starts */
    int keeping;              /* seq holds this sequence's rows (from its first inlined row on) */
    uint64_t fn_off;          /* the last function-name offset looked up ... */
    const char *fn;           /* ... and its name (inlined rows come in runs) */
    int fn_known;
    uint64_t prev_address, prev_line, prev_file, prev_context, prev_fn; /* the last row */
    int prev_valid;
    int seq_shndx;            /* section of the sequence's symbol, -1 unknown */
} cudw_line_iter;

/* Iterator flags. */
#define CUDW_LINE_KEEP_SEQUENCE 1u  /* keep the current sequence's rows (malloc'd;
                                       cudw_line_iter_free releases them) so
                                       cudw_line_callsite can resolve contexts.
                                       Only sequences with inlined rows are kept:
                                       at the first one, the sequence is decoded
                                       again up to it. */

/* Row numbers are ptxas's: a row that repeats the one before it (same
 * address, file, line and context) where a function starts (the
 * sequence's own symbol, or a FUNC symbol of a callee ptxas placed in its
 * section) is the entry row ptxas writes twice and does not count.  So is
 * the first row at a callee's start on the line (and in the context) of
 * the row before it, whatever its file, written after a lone advance
 * (`advance_line 0; copy`): ptxas wrote no entry row there, only its
 * repeat.  It comes with the index of the row before, and
 * contexts never name it. */

/* Walk the rows in emission order. */
void cudw_line_iter_init(const cudw_line_table *t, cudw_line_iter *it, unsigned flags);
int cudw_line_next(cudw_line_iter *it, cudw_line_row *out);
void cudw_line_iter_free(cudw_line_iter *it);

/* The call-site row of an inlined row (context c: row c of the same
 * sequence).  CUDW_DONE when r is not inlined; CUDW_E_BAD_OFFSET when the
 * context points outside the rows seen so far.  Needs
 * CUDW_LINE_KEEP_SEQUENCE, whose memory grows with the sequence;
 * cudw_line_lookup resolves chains in constant memory instead. */
int cudw_line_callsite(const cudw_line_iter *it, const cudw_line_row *r, const cudw_line_row **site);

/* The inlined function named by a DW_LNE 0x90/0x91 operand: the string at
 * .debug_str[t->str_base + off], or NULL when that is outside .debug_str
 * (or unterminated). */
const char *cudw_line_function_name(const cudw_line_table *t, uint64_t off);

/* Path of DWARF file number idx of t (1-based); NULL when out of range. */
const char *cudw_line_file_path(const cudw_line_table *t, uint64_t idx);

/* Address to source: the row covering symbol+offset and its inline call
 * stack, innermost first.  frames[0] is where the address is (in the
 * innermost inlined function, or the function itself); frames[k] is the
 * call site, in frames[k]'s function, of frames[k-1]'s function. */
#define CUDW_MAX_INLINE_DEPTH 256

typedef struct cudw_line_frame {
    const char *function;  /* inlined function's name; for the outermost frame
                              the function symbol containing the address */
    const char *path;      /* NULL for file 0 */
    uint64_t file, line, column;
} cudw_line_frame;

typedef struct cudw_line_hit {
    const cudw_line_table *table;
    cudw_line_row row;     /* the covering row: the last one at the highest
                              address <= the target within its sequence */
    size_t nframes;
    cudw_line_frame frames[CUDW_MAX_INLINE_DEPTH];
} cudw_line_hit;

/* Look offset up in the sequences of line section sec whose
 * DW_LNE_set_address names symbol (offsets count from the symbol's
 * value).  CUDW_OK with *hit filled, CUDW_DONE when no row covers it. */
int cudw_line_lookup(cudw_file *f, const cudw_section *sec, const char *symbol, uint64_t offset,
                     cudw_line_hit *hit);

/* ---- Writing line programs ---- */

/* Header parameters.  cudw_line_params_nvidia() gives what ptxas and nvlink
 * write: version 2, 8-byte addresses, min_inst_length 1, default_is_stmt 1,
 * line_base -5, line_range 14, opcode_base 10. */
typedef struct cudw_line_params {
    uint16_t version;         /* 2 or 3 */
    uint8_t addr_size;        /* 4 or 8 */
    uint8_t min_inst_length, default_is_stmt, line_range, opcode_base;
    int8_t line_base;
} cudw_line_params;

cudw_line_params cudw_line_params_nvidia(void);

typedef struct cudw_line_header_in {
    const char *const *dirs;        /* include_directories (DWARF 1..ndirs) */
    size_t ndirs;
    const cudw_line_file *files;    /* name, dir, mtime, size (path unused) */
    size_t nfiles;
    uint8_t has_str_base;           /* write NVIDIA's .debug_str base word */
    uint32_t str_base;              /* its bytes */
    const char *str_base_symbol;    /* if set, a 32-bit relocation site on the word
                                       (ptxas: the .debug_str section symbol) */
} cudw_line_header_in;

/* A place the caller must relocate: DW_LNE_set_address operands (against
 * the row's symbol, addend = address - symbol value; the bytes are 0, as
 * ptxas writes them) and the .debug_str base word. */
typedef struct cudw_reloc_site {
    uint64_t offset;      /* from the start of the unit */
    const char *symbol;
    int64_t addend;
    uint8_t width;        /* 8 (or 4 for 4-byte addresses / the base word) */
} cudw_reloc_site;

typedef struct cudw_line_out {
    uint8_t *data;        /* the whole unit: header + program (malloc'd) */
    size_t size;
    cudw_reloc_site *sites;   /* malloc'd */
    size_t nsites;
    cudw_error err;       /* on failure: what and where (offset = row index) */
} cudw_line_out;

/* Encode rows (a sequence ends at each end_sequence row; rows of a
 * sequence ascend in address) into one line-number program unit, choosing
 * opcodes as ptxas does (docs/line-encoding.md): set_file, the Mercury
 * 0x92 flag and the 0x90 inlined-call context when they change, a special
 * opcode when the line and address advance fit, otherwise advance_line,
 * advance_pc, copy; advance_pc then DW_LNE_end_sequence.  Fields used:
 * address, symbol, symbol_value, file, line, is_stmt, end_sequence,
 * context, function_offset, merc_flag.  Free with cudw_line_out_free. */
int cudw_line_encode(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_row *rows,
                     size_t n, cudw_line_out *out);

/* Encode opcodes (the records cudw_line_op_next yields, in order) into one
 * unit: the other layer of cudw_line_encode, for a writer that must
 * reproduce a producer's exact order (gimli's LineInstruction).  An
 * opcode decoded from a table comes out as it was stored (its LEB operands
 * at least `size` long, extended operand bytes from raw); one built by
 * hand leaves size, ext_len and raw 0 and gives the operands in u, s, u2
 * (set_address: u, and symbol/symbol_value for its relocation site; an
 * advance_pc goes out as ptxas writes it).  So re-encoding every opcode of
 * a decoded table gives its bytes back. */
int cudw_line_encode_ops(const cudw_line_params *p, const cudw_line_header_in *h, const cudw_line_op *ops,
                         size_t n, cudw_line_out *out);
void cudw_line_out_free(cudw_line_out *out);

/* A program built row by row (gimli's write::LineProgram): directories and
 * files added by name -- or by path, split as ptxas splits it
 * (cudw_line_header_from_paths) -- and rows appended in order (a sequence
 * ends at each end_sequence row), then encoded by cudw_line_encode.  What
 * it is given is copied.  Numbers come back from 1; errors (CUDW_E_ARG: a
 * missing name; CUDW_E_NOMEM) are on the builder. */
typedef struct cudw_line_builder cudw_line_builder;
/* p NULL: cudw_line_params_nvidia() */
int cudw_line_builder_open(cudw_line_builder **out, const cudw_line_params *p);
/* a directory entry (each call adds one: a table may name one twice) */
int cudw_line_builder_dir(cudw_line_builder *b, const char *dir, uint64_t *number);
/* a file entry: name in directory dir (0: the unit's own) */
int cudw_line_builder_file(cudw_line_builder *b, const char *name, uint64_t dir, uint64_t mtime, uint64_t size,
                           uint64_t *number);
/* a file by its path: the directory before the last '/' is the first
 * entry of that name, added when there is none */
int cudw_line_builder_path(cudw_line_builder *b, const char *path, uint64_t mtime, uint64_t size, uint64_t *number);
/* write NVIDIA's .debug_str base word (symbol: a relocation site on it) */
void cudw_line_builder_str_base(cudw_line_builder *b, uint32_t base, const char *symbol);
/* the fields cudw_line_encode reads; the row's function name is not kept */
int cudw_line_builder_row(cudw_line_builder *b, const cudw_line_row *row);
/* the unit (free with cudw_line_out_free); the builder stays usable */
int cudw_line_builder_finish(cudw_line_builder *b, cudw_line_out *out);
const cudw_error *cudw_line_builder_error(const cudw_line_builder *b);
void cudw_line_builder_close(cudw_line_builder *b);

/* Build header tables from full paths the way ptxas does: each path split
 * at its last '/', directories numbered from 1 in order of first
 * appearance without duplicates, a path with no '/' gets directory 0.
 * *out_dirs (ndirs malloc'd strings) and *out_files (n entries whose names
 * point into paths) are malloc'd: free each directory, then both arrays.
 * CUDW_E_ARG when a path is NULL, CUDW_E_NOMEM; nothing is allocated then. */
int cudw_line_header_from_paths(const char *const *paths, const uint64_t *mtimes, const uint64_t *sizes,
                                size_t n, char ***out_dirs, size_t *ndirs, cudw_line_file **out_files);

#endif /* CUDWARF_LINES_H */
