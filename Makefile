# memplan build.
#
#   make            release build: build/release/memplan
#   make check      the whole test suite, built with ASan + UBSan
#   make check-quick the inner loop (about three minutes): the unit tests
#                   but the six corpus-wide ones, and a sample of the
#                   suites (tests/run.sh, QUICK=1)
#   make fuzz       libFuzzer targets (clang), see fuzz/README.md
#   make bench      benchmarks, writes bench/RESULTS.md
#   make install    install under PREFIX (default /usr/local), staged under
#                   DESTDIR: the memplan binary, memplan.1, bash and zsh
#                   completion, include/memplan.h, libmemplan.a, memplan.pc
#
# Sources are found by wildcard: a new src/<stage>/*.c joins the library, a
# new tests/test_*.c becomes a test binary, a new tools/*.c a program.  The
# test generators (tests/support/gen: synthetic problems, the model writer,
# the fixtures) form a library of their own that tests, tools and the bench
# link; libmemplan.a holds only what users call.

CC       ?= cc
MODE     ?= release
BUILD    := build/$(MODE)

PKGS     := yaml-0.1 jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -ljansson)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wformat=2 -Wno-format-nonliteral -Wundef -Wcast-qual
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE

ifeq ($(MODE),asan)
  OPT    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
            -fno-sanitize-recover=all
  LDOPT  := -fsanitize=address,undefined
else ifeq ($(MODE),debug)
  OPT    := -O0 -g
  LDOPT  :=
else
  OPT    := -O2 -g
  LDOPT  :=
endif

CFLAGS_ALL  := $(CSTD) $(WARN) $(OPT) -Iinclude -Isrc -Iruntime/kernels -Itests/support \
               -Itests/support/gen $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL := $(LDOPT) $(LDFLAGS)
LIBS        := $(PKG_LIBS) -lm

STAGES     := util read planners config lower graph plan emit
LIB_SRCS   := $(foreach s,$(STAGES),$(sort $(wildcard src/$(s)/*.c)))
# memplan's reference kernels (C99, also copied into emitted modules) join
# the library so that tests can run lowered operators on the host.
KERNEL_SRCS := $(sort $(wildcard runtime/kernels/ref/*.c runtime/kernels/cm/*.c))
LIB_SRCS   += $(KERNEL_SRCS)
TOOL_SRCS  := $(sort $(wildcard tools/*.c))
CLI_SRCS   := $(sort $(wildcard cli/*.c))
CLI_OBJS   := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TEST_SRCS  := $(sort $(wildcard tests/test_*.c))
TESTLIB_SRCS := $(sort $(wildcard tests/support/*.c))
GEN_SRCS   := $(sort $(wildcard tests/support/gen/*.c))

LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/%.o)
# The kernel runtime embedded as C strings: emitted modules carry a copy.
RUNTIME_FILES := $(sort $(wildcard runtime/kernels/*.h runtime/kernels/ref/*.c \
                   runtime/kernels/cm/*.h runtime/kernels/cm/*.c))
LIB_OBJS   += $(BUILD)/gen/emit_runtime.o
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/%.o)
GEN_OBJS   := $(GEN_SRCS:%.c=$(BUILD)/%.o)
GENLIB     := $(BUILD)/libmemplan_gen.a
TOOLS      := $(TOOL_SRCS:tools/%.c=$(BUILD)/%)
TESTS      := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
LIB        := $(BUILD)/libmemplan.a

.PHONY: all check check-quick tests fuzz bench clean format install uninstall
# keep objects between runs (they are intermediates of the link rules)
.SECONDARY:
all: $(LIB) $(BUILD)/memplan $(TOOLS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/gen/emit_runtime.c: $(RUNTIME_FILES) src/emit/runtime.sh
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@sh src/emit/runtime.sh $(RUNTIME_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/emit_runtime.o: $(BUILD)/gen/emit_runtime.c src/emit/parts.h src/emit/text.h
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@rm -f $@
	@echo "  AR      $@"
	@ar qcs $@ $^

# The test generators: tests, tools and the bench link them, users do not.
$(GENLIB): $(GEN_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	@ar qcs $@ $^

$(BUILD)/memplan: $(CLI_OBJS) $(LIB)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $(CLI_OBJS) $(LIB) $(LIBS) -o $@

$(BUILD)/%: $(BUILD)/tools/%.o $(GENLIB) $(LIB)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $< $(GENLIB) $(LIB) $(LIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TESTLIB_OBJS) $(GENLIB) $(LIB)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $< $(TESTLIB_OBJS) $(GENLIB) $(LIB) $(LIBS) -lcmocka -o $@

tests: $(TESTS) $(BUILD)/memplan $(TOOLS)

# The test suite: everything under ASan + UBSan.
check:
	$(MAKE) MODE=asan tests
	MODE=asan ./tests/run.sh

check-quick:
	$(MAKE) MODE=asan tests
	MODE=asan QUICK=1 ./tests/run.sh

fuzz:
	./fuzz/run.sh

bench:
	$(MAKE) MODE=release all
	./bench/run.sh

# ---- install ---------------------------------------------------------------
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
VERSION    := $(shell sed -n 's/^\#define MP_VERSION "\(.*\)"/\1/p' include/memplan.h)

# memplan.pc is written for this PREFIX; libmemplan.a needs libyaml, jansson
# and libm: `pkg-config --static --libs memplan`.
install: $(LIB) $(BUILD)/memplan
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(BUILD)/memplan $(DESTDIR)$(BINDIR)/memplan
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libmemplan.a
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(patsubst $(PREFIX)%,$${prefix}%,$(LIBDIR))' \
	  'includedir=$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))' '' \
	  'Name: memplan' \
	  'Description: ahead-of-time memory planner for TinyML models' \
	  'Version: $(VERSION)' \
	  'Requires.private: $(PKGS)' \
	  'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lmemplan' \
	  'Libs.private: -lm' > $(DESTDIR)$(LIBDIR)/pkgconfig/memplan.pc
	install -m 644 include/memplan.h $(DESTDIR)$(INCLUDEDIR)/memplan.h
	install -m 644 docs/memplan.1 $(DESTDIR)$(MANDIR)/man1/memplan.1
	install -m 644 completions/memplan.bash $(DESTDIR)$(BASHCOMPDIR)/memplan
	install -m 644 completions/_memplan $(DESTDIR)$(ZSHCOMPDIR)/_memplan

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/memplan $(DESTDIR)$(LIBDIR)/libmemplan.a \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/memplan.pc $(DESTDIR)$(INCLUDEDIR)/memplan.h \
	  $(DESTDIR)$(MANDIR)/man1/memplan.1 $(DESTDIR)$(BASHCOMPDIR)/memplan \
	  $(DESTDIR)$(ZSHCOMPDIR)/_memplan

format:
	clang-format -i include/*.h src/*/*.c src/*/*.h cli/*.c cli/*.h tools/*.c tests/*.c \
	  tests/support/*.[ch] tests/support/gen/*.[ch]

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(TESTLIB_OBJS:.o=.d) $(GEN_OBJS:.o=.d) $(TOOL_SRCS:%.c=$(BUILD)/%.d) $(TEST_SRCS:%.c=$(BUILD)/%.d)
