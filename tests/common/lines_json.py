"""The rows of a `cudwarf lines --json` table, one dict each.

lines --json gives every row whole; lines --json --compact keeps what
does not change out of the rows (docs/json.md):
each sequence names its symbol once, the file table gives the paths and
the "functions" list the inlined functions' names, and a row leaves out
the fields at their default.  rows() puts every fact back on each row, as
the comparisons with libdw, llvm and nvlink want them.
"""


def rows(table):
    if "rows" in table:  # lines --json: every row whole already
        yield from table["rows"]
        return
    files = table.get("files", [])
    names = {f["offset"]: f["name"] for f in table.get("functions", [])}
    default_stmt = table.get("default_is_stmt", True)
    for k, seq in enumerate(table["sequences"]):
        n = 0
        for r in seq["rows"]:
            hidden = r.get("hidden", False)
            n += not hidden
            file = r.get("file", 1)
            context = r.get("context", 0)
            yield {
                "address": r["address"],
                "symbol": seq["symbol"],
                "offset": r["address"] - seq["symbol_value"],
                "file": file,
                "path": files[file - 1]["path"] if 1 <= file <= len(files) else None,
                "line": r.get("line", 1),
                "column": r.get("column", 0),
                "is_stmt": r.get("is_stmt", default_stmt),
                "end_sequence": r.get("end_sequence", False),
                "context": context,
                "function_offset": r.get("function_offset"),
                "function": names.get(r.get("function_offset")) if context else None,
                "hidden": hidden,
                "merc_flag": r.get("merc_flag", 0),
                "ptx": r.get("ptx"),
                "sequence": k,
                "row": 0 if hidden else n,
            }
