/* .debug_macinfo (DWARF 2/3): a list per unit of
 *   01 ULEB line, string      define
 *   02 ULEB line, string      undef
 *   03 ULEB line, ULEB file   start_file
 *   04                        end_file
 *   ff ULEB constant, string  vendor_ext
 *   00                        end of the unit's list
 * CUDA 13.0 writes a lone 00 (formats.md 6). */
#include "rec_common.h"

int cudw_macinfo_next(cudw_file *f, const cudw_section *s, uint64_t *cursor, cudw_macinfo_entry *e)
{
    uint64_t at = *cursor;
    int start = rec_section_start(f, s, at, "macinfo");
    if (start != CUDW_OK)
        return start;
    memset(e, 0, sizeof *e);
    e->offset = at;
    cur_t c = cur_make(f, s, at, s->data_size, "macinfo entry");
    int rc = cur_u8(&c, "type", &e->type); /* at < size */
    switch (e->type) {
    case 0x00: /* the end of a unit's list */
    case CUDW_DW_MACINFO_end_file:
        break;
    case CUDW_DW_MACINFO_define:
    case CUDW_DW_MACINFO_undef:
    case CUDW_DW_MACINFO_vendor_ext:
        if ((rc = cur_uleb(&c, e->type == CUDW_DW_MACINFO_vendor_ext ? "constant" : "line",
                           e->type == CUDW_DW_MACINFO_vendor_ext ? &e->constant : &e->line)) ||
            (rc = cur_str(&c, "string", &e->string)))
            return rc;
        break;
    case CUDW_DW_MACINFO_start_file:
        if ((rc = cur_uleb(&c, "line", &e->line)) || (rc = cur_uleb(&c, "file", &e->file)))
            return rc;
        break;
    default:
        return cur_fail_at(&c, at, CUDW_E_BAD_EXPR, "unknown type 0x%02x", e->type);
    }
    *cursor = cur_off(&c);
    return rc;
}

const char *cudw_macinfo_name(uint8_t type)
{
    switch (type) {
    case 0x00: return "end of list";
    case CUDW_DW_MACINFO_define: return "DW_MACINFO_define";
    case CUDW_DW_MACINFO_undef: return "DW_MACINFO_undef";
    case CUDW_DW_MACINFO_start_file: return "DW_MACINFO_start_file";
    case CUDW_DW_MACINFO_end_file: return "DW_MACINFO_end_file";
    case CUDW_DW_MACINFO_vendor_ext: return "DW_MACINFO_vendor_ext";
    default: return NULL;
    }
}
