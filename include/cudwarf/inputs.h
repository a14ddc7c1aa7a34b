/* cudwarf/inputs.h - Fatbins and the inputs users have; where an image's bytes go.
 * A chapter of the cudwarf.h manual: include <cudwarf.h>, which includes
 * every chapter in order (each uses what the ones before it declare). */
#ifndef CUDWARF_INPUTS_H
#define CUDWARF_INPUTS_H

#ifndef CUDWARF_H
#error "include <cudwarf.h>, not its chapters"
#endif

/* ------------------------------------------------------------------ */
/* Fatbins and the inputs users have                                   */
/* ------------------------------------------------------------------ */

/* A fatbin blob: containers back to back (zero padding between them, as in
 * an executable's .nv_fatbin), each a 16-byte header and its entries. */
enum {
    CUDW_FATBIN_PTX = 1,
    CUDW_FATBIN_ELF = 2,
    CUDW_FATBIN_NVVM = 8         /* LTO IR (nvcc -dlto; fatbinary's kind=nvvm) */
};
#define CUDW_FATBIN_64BIT 0x1ull
#define CUDW_FATBIN_DEBUG 0x2ull
#define CUDW_FATBIN_LINUX 0x10ull
#define CUDW_FATBIN_LZ4 0x2000ull    /* LZ4 block format (--compress-mode=speed) */
#define CUDW_FATBIN_ZSTD 0x8000ull   /* a zstd frame (default, size, balance) */
/* Set beside LZ4 or ZSTD on compressed LTO IR: the stored bytes are then
 * neither an LZ4 block nor a zstd frame (an encoding cudwarf does not know,
 * docs/fatbin.md); cudw_fatbin_image refuses them with CUDW_E_UNSUPPORTED. */
#define CUDW_FATBIN_ENCODED 0x10000ull
/* The target variant (nvcc -gencode ...,code=sm_90a / sm_100f): the ELF
 * header does not say it (sm_90 and sm_90a images have the same e_flags);
 * the entry does. */
#define CUDW_FATBIN_ARCH_SPECIFIC 0x100000ull   /* sm_Na */
#define CUDW_FATBIN_FAMILY 0x200000ull          /* sm_Nf */
/* "a", "f" or "" for an entry's flags. */
const char *cudw_fatbin_variant(uint64_t flags);

typedef struct cudw_fatbin_entry {
    unsigned container, index;   /* 0-based */
    uint64_t offset;             /* of the entry header in the blob */
    const uint8_t *header;       /* raw header bytes (header_size of them) */
    uint16_t kind;               /* CUDW_FATBIN_PTX / _ELF / _NVVM (others: shown raw) */
    uint16_t field2;             /* 0x0101 in every entry seen; meaning unknown */
    uint32_t header_size;
    uint64_t payload_size;       /* stored bytes, padded to 8 */
    uint32_t compressed_size;    /* 0 when not compressed */
    uint32_t options_offset;     /* from the entry start, 0 if none */
    uint16_t minor, major;       /* ELF 1.8, PTX ISA major.minor */
    uint32_t sm;
    const char *name;            /* the --ident (name_length bytes, NUL-terminated copy), or NULL */
    uint32_t name_length;
    uint64_t flags;
    uint64_t field48;            /* 0 in every entry seen */
    uint64_t decompressed_size;  /* when compressed */
    const uint8_t *payload;      /* as stored */
    uint64_t stored_size;        /* compressed_size when compressed, else payload_size */
    const uint8_t *options;      /* options data (ptxas options, or binary; a copy), or NULL */
    uint32_t options_length;
} cudw_fatbin_entry;

typedef struct cudw_fatbin cudw_fatbin;

/* The largest decompressed image cudwarf will allocate (CUDW_E_LIMIT beyond). */
#define CUDW_MAX_IMAGE_SIZE (1ull << 30)

/* Parse a blob the caller keeps alive.  On failure the handle (when not
 * NULL) holds the error: cudw_fatbin_error.  name labels errors. */
int cudw_fatbin_parse(const void *blob, size_t size, const char *name, cudw_fatbin **out);
const cudw_error *cudw_fatbin_error(const cudw_fatbin *fb);
size_t cudw_fatbin_count(const cudw_fatbin *fb);
const cudw_fatbin_entry *cudw_fatbin_get(const cudw_fatbin *fb, size_t i);
/* "ELF", "PTX", "NVVM"; NULL for a kind nobody has named. */
const char *cudw_fatbin_kind_name(unsigned kind);
/* Entry i's image, decompressed (zstd, LZ4) and checked against the size
 * the header gives; trimmed to the ELF's own size or the PTX text.  Other
 * kinds stored uncompressed come with fatbinary's zero padding to 8 bytes:
 * the header records no exact size for them (docs/fatbin.md).  *data
 * points into the blob or into a buffer the handle owns. */
int cudw_fatbin_image(cudw_fatbin *fb, size_t i, const uint8_t **data, size_t *size);
void cudw_fatbin_close(cudw_fatbin *fb);

/* What a user hands a tool: a cubin, a fatbin file, a host ELF (object,
 * executable, .so), or an "ar" archive (static library) of those.  A host
 * ELF's fatbin containers are found three ways (docs/fatbin.md):
 *  - walking .nv_fatbin and __nv_relfatbin, which hold nothing else;
 *  - scanning every other section with file bytes for the container magic
 *    0xBA55ED50, keeping a hit only when the whole container checks out
 *    (NVIDIA's libraries keep thousands in .ldata, .rodata, .cask_resource
 *    and load them themselves; the magic also occurs as plain bytes);
 *  - following the __fatBinC_Wrapper_t records of .nvFatBinSegment.
 * Images are labelled
 *    FILE                                     a cubin
 *    FILE[C.E: KIND sm_N 'ident']             entry E of container C of a fatbin file
 *    FILE[SECTION#C.E: KIND sm_N 'ident']     ... of the C-th container of SECTION
 *    LIB(MEMBER)  LIB(MEMBER)[...]            the same inside an archive member
 * which is unique within the input. */
enum { CUDW_INPUT_CUBIN = 1, CUDW_INPUT_FATBIN, CUDW_INPUT_HOST, CUDW_INPUT_ARCHIVE };

/* How a container was found (bits of cudw_input_container.found_by). */
#define CUDW_FOUND_SECTION 1u   /* walking .nv_fatbin / __nv_relfatbin, or the fatbin file */
#define CUDW_FOUND_SCAN 2u      /* its magic in another section, the whole container valid */
#define CUDW_FOUND_WRAPPER 4u   /* a .nvFatBinSegment wrapper record points at it */

typedef struct cudw_input_container {
    const char *owner;           /* "app.so", "lib.a(x.o)": what its labels start with */
    const char *member;          /* archives: the member holding it; else NULL */
    const char *section;         /* the host section holding it; NULL in a fatbin file */
    unsigned section_index;
    unsigned ordinal;            /* its number among the containers of that section (or file) */
    uint64_t section_offset;     /* where it starts in the section (or fatbin file) */
    uint64_t file_offset;        /* ... in the host file (an archive member's bytes) */
    uint64_t size;               /* its 16-byte header and every entry */
    unsigned found_by;           /* CUDW_FOUND_* */
    unsigned wrapper_version;    /* of the first wrapper record naming it (1, 2), else 0 */
    uint64_t wrapper_offset;     /* that record's offset in .nvFatBinSegment */
    size_t first_image, nimages; /* its entries, in cudw_input order */
} cudw_input_container;

typedef struct cudw_input_image {
    const char *label;           /* see above; unique within the input */
    const char *tag;             /* the label's part in brackets without the kind:
                                    ".nv_fatbin#0.1", "0.1"; "" for a cubin */
    int kind;                    /* CUDW_FATBIN_ELF, _PTX, _NVVM or another entry kind */
    unsigned sm;                 /* from the entry header (or a cubin's ELF header) */
    char variant;                /* 'a', 'f' or 0 (entry flags; a cubin cannot say) */
    const cudw_fatbin_entry *entry;  /* NULL for a cubin */
    size_t container;            /* index for cudw_input_container_get; (size_t)-1 for a cubin */
    uint64_t offset;             /* of the entry header in its section (or fatbin file) */
    const char *member;          /* archives: the member holding it ("x.o"); else NULL */
    /* Filled by cudw_input_image_get only: */
    cudw_file *elf;              /* ELF images: opened */
    const uint8_t *data;         /* the image bytes (ELF or PTX text) */
    size_t size;
} cudw_input_image;

typedef struct cudw_input cudw_input;

/* Like cudw_open: on failure *out still holds the error (close it).  A
 * host ELF without device code opens with 0 images. */
int cudw_input_open(cudw_input **out, const char *path);
int cudw_input_type(const cudw_input *in);
const cudw_error *cudw_input_error(const cudw_input *in);
size_t cudw_input_count(const cudw_input *in);
/* Image i as listed (label, kind, SM, entry), without decompressing it. */
const cudw_input_image *cudw_input_peek(const cudw_input *in, size_t i);
size_t cudw_input_container_count(const cudw_input *in);
const cudw_input_container *cudw_input_container_get(const cudw_input *in, size_t i);
const cudw_fatbin *cudw_input_fatbin(const cudw_input *in);   /* the first container's; NULL for a cubin */

/* Image i, decompressed and (for ELF) opened, kept on the input until
 * cudw_input_image_release or close; errors on the input.  For one thread
 * at a time; cudw_input_load is the way for several. */
int cudw_input_image_get(cudw_input *in, size_t i, const cudw_input_image **out);
void cudw_input_image_release(cudw_input *in, size_t i);

/* Image i, loaded for the caller alone: decompressed into its own buffer
 * and, for an ELF image, opened as a cudw_file of its own.  Any number of
 * threads may load images of one input at once (each its own images);
 * nothing on the input changes.  Like cudw_open, *out holds the error on
 * failure (except CUDW_E_NOMEM: NULL).  cudw_image_close releases it and
 * returns the host file's pages it read to the system, so a walk over
 * every image of a 500 MB library stays within the largest image. */
typedef struct cudw_image {
    const cudw_input_image *info;    /* label, kind, SM, entry */
    const uint8_t *data;             /* the image bytes */
    size_t size;
    cudw_file *elf;                  /* ELF images; NULL for the others */
    cudw_error err;
} cudw_image;
int cudw_input_load(const cudw_input *in, size_t i, cudw_image **out);
void cudw_image_close(cudw_image *im);
void cudw_image_free(cudw_image *im); /* its name in 0.1 */

/* "90", "sm_90", "90a", "sm_100f", "compute_90"... -> *sm and *variant
 * ('a', 'f' or 0).  CUDW_E_ARG when text is not one. */
int cudw_sm_parse(const char *text, unsigned *sm, char *variant);
/* 1 when image im is for sm_N with that variant (sm_90a images are not
 * sm_90 ones); a cubin, whose header cannot tell, matches either. */
int cudw_input_image_is(const cudw_input_image *im, unsigned sm, char variant);

/* "sm_75, sm_90a" into buf: the distinct SMs of the input's images of
 * kind (CUDW_FATBIN_ELF, _PTX: "compute_90"), in order; for the one
 * message every command gives an --sm the input lacks.  Returns buf. */
char *cudw_input_sms(const cudw_input *in, int kind, char *buf, size_t n);

void cudw_input_close(cudw_input *in);

/* ------------------------------------------------------------------ */
/* Sizes: where an image's bytes go (cudwarf size)                     */
/* ------------------------------------------------------------------ */

/* What a section's file bytes are, for size accounting.  The classes of
 * an image add up to its size exactly: CUDW_SIZE_HEADERS is every byte no
 * section holds (ELF header, program and section header tables, alignment
 * padding); bytes two sections share count once, for the one that starts
 * first (the lower index on a tie). */
enum cudw_size_class {
    CUDW_SIZE_CODE,       /* .text.*: SASS; .nv.capmerc.text.*: the Mercury capsule (sm_100+) */
    CUDW_SIZE_DATA,       /* .nv.constant*, .nv.global.init: constants, initialized globals */
    CUDW_SIZE_DEBUG,      /* DWARF sections and their .nv.merc. twins */
    CUDW_SIZE_NV_DEBUG,   /* NVIDIA's debug sections (.nv_debug_*) */
    CUDW_SIZE_METADATA,   /* .nv.info*, .nv.callgraph, .nv.compat, notes, other .nv.* */
    CUDW_SIZE_SYMBOLS,    /* symbol and string tables */
    CUDW_SIZE_RELOCS,     /* relocation sections */
    CUDW_SIZE_OTHER,      /* any other section with file bytes */
    CUDW_SIZE_HEADERS,    /* what no section holds */
    CUDW_SIZE_NCLASSES
};

/* "code", "data", "debug", "nv_debug", "metadata", "symbols", "relocations",
 * "other", "headers"; NULL beyond. */
const char *cudw_size_class_name(int c);
int cudw_section_size_class(const cudw_section *s);
/* bytes[c] for every class; they sum to cudw_header(f)->size.  CUDW_OK, or
 * CUDW_E_NOMEM (on f). */
int cudw_image_sizes(cudw_file *f, uint64_t bytes[CUDW_SIZE_NCLASSES]);

/* The code sections one by one: .text.NAME, and on sm_100 and later the
 * Mercury capsule .nv.capmerc.text.NAME (capsule 1) that the driver
 * finalizes.  *cursor starts at 0; CUDW_DONE after the last.  function is
 * NAME; data and size its bytes in the file (size 0 and data NULL when it
 * has none). */
typedef struct cudw_code_section {
    unsigned section;
    const char *function;
    int capsule;
    const uint8_t *data;
    uint64_t size;
} cudw_code_section;
int cudw_code_next(const cudw_file *f, unsigned *cursor, cudw_code_section *out);

/* 1 when f has code (a code section with bytes), 0 for an image that
 * holds only notes, call graphs and relocation actions (an executable's
 * first container has one per SM): commands that work on code skip those
 * unless asked for them by --sm. */
int cudw_has_code(const cudw_file *f);

/* Identical copies: which of many byte strings (images, kernels) are the
 * same bytes, and what the extra copies cost.  The caller hashes each
 * copy's bytes (cudw_dup_hash: 128 bits), numbers it (item) and says what
 * one copy counts (size: its bytes, or what it takes stored). */
typedef struct cudw_dup {
    uint64_t hash[2];     /* cudw_dup_hash of the bytes */
    uint64_t size;        /* what one copy counts; part of the key */
    size_t item;          /* the caller's number for this copy */
} cudw_dup;

/* One set of identical copies: d[start .. start + count) after
 * cudw_dup_sets sorted d; wasted = (count - 1) * size. */
typedef struct cudw_dup_set {
    size_t start, count;
    uint64_t wasted;
} cudw_dup_set;

void cudw_dup_hash(const void *data, size_t n, uint64_t out[2]);
/* Sort d[0..n) by content (equal copies in item order) and collect the
 * sets of two or more copies, the most wasteful first, in *sets (malloc'd:
 * free it); *wasted is the sum of their wasted.  The number of sets, or -1
 * out of memory (*sets NULL). */
long cudw_dup_sets(cudw_dup *d, size_t n, cudw_dup_set **sets, uint64_t *wasted);

#endif /* CUDWARF_INPUTS_H */
