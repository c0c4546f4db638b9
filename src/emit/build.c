/*
 * emit_build.c — the build files of an emitted module: CMakeLists.txt and
 * module.mk, so that the module builds on its own (a static library) and
 * drops into a CMake or a GNU make firmware project.
 *
 * Both list the module's files explicitly (no globbing, so a stale file in
 * the folder never joins the build) and offer one switch: leave memplan's
 * reference kernels out, for an application that links its own.  Compiler
 * and flags are the project's; the module only asks for C99.
 */
#include "emit/parts.h"
#include "emit/text.h"

#include <string.h>

/* A build target name: the module name when it is a plain word, else
 * <prefix>_model. */
static const char *target_name(const emit_ctx *e, char *buf, size_t n) {
  const char *s = e->module_name;
  bool ok = *s != '\0';
  for (const char *c = s; *c; c++)
    ok &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
          *c == '_' || *c == '-';
  if (ok)
    snprintf(buf, n, "%s", s);
  else
    snprintf(buf, n, "%s_model", e->prefix);
  return buf;
}

static bool is_c_file(const char *name) {
  size_t l = strlen(name);
  return l > 2 && !strcmp(name + l - 2, ".c");
}

void emit_cmake(const emit_ctx *e, mp_buf *b) {
  char tn[96];
  const char *t = target_name(e, tn, sizeof tn), *u = e->up, *p = e->prefix;
  mp_buf_printf(b, "# CMakeLists.txt of the memplan module \"%s\".\n#\n", t);
  emit_provenance(e, b, "# ");
  mp_buf_printf(b,
      "#\n"
      "# On its own (a static library):  cmake -S . -B build && cmake --build build\n"
      "# In a firmware project:          add_subdirectory(<this folder>), then link %s\n"
      "# and include \"%s_model.h\".  Placement and toolchain macros (%s_PUT_IN_<MEM>,\n"
      "# ...) are compile definitions, e.g.\n"
      "#   target_compile_definitions(%s PRIVATE \"%s_PUT_IN_DTCM=__attribute__((section(\\\".bss.dtcm\\\")))\")\n"
      "cmake_minimum_required(VERSION 3.13)\n"
      "project(%s LANGUAGES C)\n\n",
      t, p, u, t, u, t);
  if (e->n_with_kernel)
    mp_buf_printf(b, "option(%s_WITH_KERNELS \"Build memplan's reference kernels into %s (OFF: "
                     "link your own)\" ON)\n\n",
                  u, t);
  mp_buf_printf(b, "add_library(%s STATIC\n  src/%s_model.c", t, p);
  if (e->allocate) mp_buf_printf(b, "\n  src/%s_arenas.c", p);
  mp_buf_puts(b, ")\n");
  mp_buf_printf(b, "target_include_directories(%s PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)\n", t);
  mp_buf_printf(b, "set_target_properties(%s PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)\n", t);
  if (e->n_with_kernel) {
    mp_buf_printf(b, "target_include_directories(%s PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/kernels)\n"
                     "if(%s_WITH_KERNELS)\n"
                     "  target_compile_definitions(%s PRIVATE %s_WITH_KERNELS=1)\n"
                     "  target_sources(%s PRIVATE",
                  t, u, t, u, t);
    for (uint32_t i = 0; i < emit_runtime_count(); i++)
      if (is_c_file(emit_runtime_at(i)->name))
        mp_buf_printf(b, "\n    kernels/%s", emit_runtime_at(i)->name);
    mp_buf_printf(b, ")\n  if(NOT MSVC)\n    target_link_libraries(%s PUBLIC m)\n  endif()\nendif()\n",
                  t);
  }
}

void emit_makefile(const emit_ctx *e, mp_buf *b) {
  char tn[96];
  const char *t = target_name(e, tn, sizeof tn), *p = e->prefix;
  /* make variables: the module prefix in upper case */
  char v[96];
  snprintf(v, sizeof v, "%s_MODULE", e->up);
  mp_buf_printf(b, "# module.mk of the memplan module \"%s\" (GNU make).\n#\n", t);
  emit_provenance(e, b, "# ");
  mp_buf_printf(b,
      "#\n"
      "# In a firmware Makefile:\n"
      "#     include path/to/module.mk\n"
      "#     SRCS     += $(%s_SRCS)\n"
      "#     CPPFLAGS += $(%s_CPPFLAGS)\n"
      "# On its own, a static library in $(%s_BUILD):\n"
      "#     make -f path/to/module.mk CC=arm-none-eabi-gcc CFLAGS='-mcpu=cortex-m55 -mthumb -O2'\n",
      v, v, v);
  if (e->n_with_kernel)
    mp_buf_printf(b, "# %s_KERNELS=0 leaves memplan's reference kernels out (link your own).\n", v);
  mp_buf_printf(b, "\n%s_DIR := $(patsubst %%/,%%,$(dir $(lastword $(MAKEFILE_LIST))))\n", v);
  mp_buf_printf(b, "%s_SRCS := $(%s_DIR)/src/%s_model.c", v, v, p);
  if (e->allocate) mp_buf_printf(b, " $(%s_DIR)/src/%s_arenas.c", v, p);
  mp_buf_puts(b, "\n");
  mp_buf_printf(b, "%s_CPPFLAGS := -I$(%s_DIR)/include", v, v);
  if (e->n_with_kernel) mp_buf_printf(b, " -I$(%s_DIR)/kernels", v);
  mp_buf_puts(b, "\n");
  if (e->n_with_kernel) {
    mp_buf_printf(b, "%s_KERNELS ?= 1\nifeq ($(%s_KERNELS),1)\n%s_CPPFLAGS += -D%s_WITH_KERNELS=1\n%s_SRCS +=",
                  v, v, v, e->up, v);
    for (uint32_t i = 0; i < emit_runtime_count(); i++)
      if (is_c_file(emit_runtime_at(i)->name))
        mp_buf_printf(b, " \\\n    $(%s_DIR)/kernels/%s", v, emit_runtime_at(i)->name);
    mp_buf_puts(b, "\nendif\n");
  }
  mp_buf_printf(b,
      "\n%s_BUILD ?= $(%s_DIR)/build\n"
      "%s_LIB := $(%s_BUILD)/lib%s.a\n"
      "%s_OBJS := $(patsubst $(%s_DIR)/%%.c,$(%s_BUILD)/%%.o,$(%s_SRCS))\n"
      "%s_GOAL := $(.DEFAULT_GOAL)\n\n"
      "$(%s_LIB): $(%s_OBJS)\n"
      "\t$(AR) rcs $@ $^\n\n"
      "$(%s_BUILD)/%%.o: $(%s_DIR)/%%.c\n"
      "\t@mkdir -p $(dir $@)\n"
      "\t$(CC) -std=c99 $(CFLAGS) $(%s_CPPFLAGS) $(CPPFLAGS) -c $< -o $@\n\n"
      "# Included, the library must not become the includer's default goal.\n"
      "ifneq ($(words $(MAKEFILE_LIST)),1)\n"
      ".DEFAULT_GOAL := $(%s_GOAL)\n"
      "endif\n",
      v, v, v, v, t, v, v, v, v, v, v, v, v, v, v, v);
}
