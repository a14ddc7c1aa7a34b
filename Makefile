# libcudwarf + cudwarf.  `make` builds build/; `make check` runs every test
# in the normal build and again under ASan+UBSan (build-asan/).
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
CC ?= cc
VERSION = 0.2.0
SOVERSION = 1

PKG_CFLAGS := $(shell pkg-config --cflags libelf 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs libelf 2>/dev/null || echo -lelf) -lzstd -llz4 -liberty -lpthread

WARN = -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
OPT ?= -O2 -g
SAN ?=
# -fvisibility=hidden: only what cudwarf.h declares is exported (its
# visibility pragma); the archive's helpers are made local too (below)
# (CUDW_EXPERIMENTAL: the project's own code sees the experimental chapters)
CFLAGS_ALL = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCUDW_EXPERIMENTAL $(WARN) $(OPT) $(SAN) -fPIC \
             -fvisibility=hidden \
             -Iinclude $(INC_PRIVATE) $(PKG_CFLAGS) $(CFLAGS)
# the library's own headers are the library's: the tool sees only include/
INC_PRIVATE = -Isrc
LDFLAGS_ALL = $(SAN) $(LDFLAGS)

LIB_SRC := $(wildcard src/*.c src/*/*.c)
TOOL_SRC := $(wildcard tools/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tools/page_assets.o
# the correlate page's HTML, CSS and JavaScript: files, embedded at build time
PAGE_ASSETS := tools/page/correlate.html tools/page/correlate.css tools/page/correlate.js
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

all: $(BUILD)/libcudwarf.a $(BUILD)/libcudwarf.so $(BUILD)/cudwarf $(BUILD)/cudwarf.pc

# -MMD: each object depends on the headers it includes (build/**/*.d)
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d)

$(TOOL_OBJ): INC_PRIVATE =

$(BUILD)/tools/page_assets.c: $(PAGE_ASSETS) scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $(PAGE_ASSETS) >$@.tmp && mv $@.tmp $@

$(BUILD)/tools/page_assets.o: $(BUILD)/tools/page_assets.c
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

# One relocatable object whose hidden symbols are local: a program that
# links the archive statically may define its own arena_alloc or wb_put.
$(BUILD)/libcudwarf.a: $(LIB_OBJ)
	@rm -f $@
	$(LD) -r -o $(BUILD)/libcudwarf.o $^
	objcopy --localize-hidden $(BUILD)/libcudwarf.o
	ar rcs $@ $(BUILD)/libcudwarf.o

$(BUILD)/libcudwarf.so: $(LIB_OBJ) src/libcudwarf.map
	$(CC) -shared -Wl,-soname,libcudwarf.so.$(SOVERSION) -Wl,--version-script=src/libcudwarf.map -Wl,-z,defs \
	    -o $@ $(LIB_OBJ) $(LDFLAGS_ALL) $(PKG_LIBS)

# the tool keeps its own copy of the hash index (the archive's is local)
$(BUILD)/cudwarf: $(TOOL_OBJ) $(BUILD)/libcudwarf.a
	$(CC) -o $@ $(TOOL_OBJ) $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/cudwarf.pc: cudwarf.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# (test_stage1 switches the model's behaviours off, an internal call: the
# library's objects, not the archive whose internal names are local)
$(BUILD)/tests/test_stage1: tests/unit/test_stage1.c $(LIB_OBJ) tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Itests/common -o $@ $< $(LIB_OBJ) $(LDFLAGS_ALL) $(PKG_LIBS) -lcmocka

# (test_hmap reaches the hash index directly: its own copy of hmap.o)
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libcudwarf.a $(BUILD)/src/hmap.o tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -Itests/common -o $@ $< $(BUILD)/src/hmap.o $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS) -lcmocka

$(BUILD)/tests/cubin_prep: tests/oracles/cubin_prep.c tests/oracles/cubin_prep_main.c tests/oracles/cubin_prep.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c99 -D_DEFAULT_SOURCE -o $@ tests/oracles/cubin_prep.c tests/oracles/cubin_prep_main.c

$(BUILD)/bench/line_rows: bench/line_rows.c $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/bench/leb128: bench/leb128.c tests/common/leb_ref.h $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/common -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/bench/ptx_read: bench/ptx_read.c $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/bench/symbolize: bench/symbolize.c $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/examples/list_functions: examples/list_functions.c $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/tests/libdw_lines: tests/oracles/libdw_lines.c tests/oracles/cubin_prep.c tests/oracles/cubin_prep.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c99 -D_DEFAULT_SOURCE -o $@ tests/oracles/libdw_lines.c tests/oracles/cubin_prep.c -ldw -lelf

$(BUILD)/tests/reencode: tests/tools/reencode.c $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN := $(FUZZ_TARGETS:%=$(BUILD)/tests/replay_%)
FUZZ_HDRS := tests/fuzz/fuzz.h tests/common/exercise.h tests/common/telf.h tests/common/leb_ref.h

$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_HDRS) $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/common -Itests/fuzz -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c \
	    $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/tests/mutate: tests/tools/mutate.c $(FUZZ_HDRS) $(BUILD)/libcudwarf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/common -Itests/fuzz -o $@ $< $(BUILD)/libcudwarf.a $(LDFLAGS_ALL) $(PKG_LIBS)

# libFuzzer builds (clang): build-fuzz/fuzz_<target>, renamed into place so a
# campaign running the old binaries is not disturbed; see tests/fuzz/README.md
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g" \
	    SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" build-fuzz/libcudwarf.a
	for t in $(FUZZ_TARGETS); do \
	    clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DCUDW_EXPERIMENTAL -O1 -g -Iinclude -Itests/common -Itests/fuzz \
	        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o build-fuzz/fuzz_$$t.new tests/fuzz/fuzz_$$t.c \
	        build-fuzz/libcudwarf.a $(PKG_LIBS) && mv build-fuzz/fuzz_$$t.new build-fuzz/fuzz_$$t || exit 1; done

tests: all $(BUILD)/tests/reencode $(BUILD)/tests/mutate $(REPLAY_BIN) $(UNIT_BIN) $(BUILD)/tests/cubin_prep $(BUILD)/tests/libdw_lines $(BUILD)/examples/list_functions \
    $(BUILD)/bench/leb128

# Every test, normal build then sanitizers; the last line is the total of
# both (scripts/check.sh).  SUITES="dies lines": only those suites
# (tests/run.sh --list names them).
check: deps
	scripts/check.sh "$(MAKE)" $(BUILD) $(SUITES)

deps:
	scripts/install-deps.sh

# Build and run the README's quick start on the bundled example.
demo: deps
	$(MAKE) all
	$(BUILD)/cudwarf addr2line -e examples/tiny_sm90_G.cubin -f -i -p -C tiny_kernel+0x40
	$(BUILD)/cudwarf correlate -C --top 2 examples/tiny_sm90_G.cubin
	$(BUILD)/cudwarf size examples/tiny_sm90_G.cubin
	$(BUILD)/cudwarf resources -C examples/tiny_sm90_G.cubin
	$(BUILD)/cudwarf correlate --html -o $(BUILD)/tiny.html examples/tiny_sm90_G.cubin
	@echo "the page: $(BUILD)/tiny.html"
	PYTHONPATH=python python3 -c 'import cudwarf; print(cudwarf.open("examples/tiny_sm90_G.cubin").symbolize("tiny_kernel+0x40")[0].line)'

# The Python package goes where Debian's Python looks for PREFIX
# (/usr/local/lib/python3.N/dist-packages); PYDIR=... puts it elsewhere.
PYTHON ?= python3
PYDIR ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages
DOCDIR ?= $(PREFIX)/share/doc/cudwarf

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PYDIR)/cudwarf $(DESTDIR)$(DOCDIR)
	install -m 644 include/cudwarf.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/include/cudwarf
	install -m 644 include/cudwarf/*.h $(DESTDIR)$(PREFIX)/include/cudwarf/
	install -m 644 $(BUILD)/libcudwarf.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libcudwarf.so $(DESTDIR)$(PREFIX)/lib/libcudwarf.so.$(VERSION)
	ln -sf libcudwarf.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libcudwarf.so.$(SOVERSION)
	ln -sf libcudwarf.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libcudwarf.so
	install -m 755 $(BUILD)/cudwarf $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' cudwarf.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cudwarf.pc
	install -m 644 man/cudwarf.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 python/cudwarf/__init__.py python/cudwarf/_lib.py $(DESTDIR)$(PYDIR)/cudwarf/
	install -m 644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 755 python/examples/profile.py $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/cudwarf.h $(DESTDIR)$(PREFIX)/lib/libcudwarf.a \
	    $(DESTDIR)$(PREFIX)/lib/libcudwarf.so $(DESTDIR)$(PREFIX)/lib/libcudwarf.so.$(SOVERSION) \
	    $(DESTDIR)$(PREFIX)/lib/libcudwarf.so.$(VERSION) $(DESTDIR)$(PREFIX)/bin/cudwarf \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/cudwarf.pc $(DESTDIR)$(PREFIX)/share/man/man1/cudwarf.1
	rm -rf $(DESTDIR)$(PYDIR)/cudwarf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PREFIX)/include/cudwarf

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all tests check deps demo install uninstall clean fuzz
