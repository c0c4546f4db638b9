/*
 * profile_harness.c — the bare-metal program `memplan profile` builds
 * around a module: start-up code, semihosting, a linker script per
 * emulated board, and a main() that runs the model once with a callback
 * timing every operator.
 *
 * The one idea: under QEMU's `-icount shift=0` the virtual clock advances
 * by one tick per instruction executed, so SysTick (counting the
 * processor clock, its 24-bit wraps counted in its interrupt) counts
 * instructions up to a fixed ratio.  The image measures that ratio itself
 * on a loop of exactly 2,000,000 instructions and prints raw ticks; the
 * command converts.  The stack is painted at reset and scanned after the
 * run for its high-water mark.
 *
 * What it does not do: model caches, wait states or the number of beats
 * an instruction takes; these are instruction counts, not cycles.
 */
#include "cli.h"

#include <string.h>

/* ---- start-up, shared by every board --------------------------------------- */

static const char startup_c[] =
    "/* prof_startup.c - reset, faults and SysTick for memplan profile. */\n"
    "#include \"prof_semihost.h\"\n"
    "#include <stdint.h>\n"
    "extern uint32_t __bss_start__, __bss_end__, __stack_limit, __stack_top;\n"
    "int main(void);\n"
    "void Reset_Handler(void);\n"
    "void Fault_Handler(void);\n"
    "void SysTick_Handler(void);\n"
    "volatile uint32_t prof_wraps;\n"
    "void SysTick_Handler(void) { prof_wraps++; }\n"
    "#define CPACR (*(volatile uint32_t *)0xE000ED88u)\n"
    "void Reset_Handler(void) {\n"
    "  CPACR |= 0xFu << 20; /* CP10, CP11: the FPU (and MVE) */\n"
    "  __asm volatile(\"dsb\\n\\tisb\" ::: \"memory\");\n"
    "  for (uint32_t *p = &__bss_start__; p < &__bss_end__; p++) *p = 0;\n"
    "  /* paint the stack below this frame: main's high-water mark */\n"
    "  uint32_t *sp;\n"
    "  __asm volatile(\"mov %0, sp\" : \"=r\"(sp));\n"
    "  for (uint32_t *p = &__stack_limit; p < sp - 16; p++) *p = 0xA5A5A5A5u;\n"
    "  prof_exit(main());\n"
    "}\n"
    "void Fault_Handler(void) {\n"
    "  prof_puts(\"PROF FAULT\");\n"
    "  prof_exit(3);\n"
    "}\n"
    "typedef void (*vector)(void);\n"
    "__attribute__((section(\".vectors\"), used)) const vector prof_vectors[16] = {\n"
    "    (vector)(uintptr_t)&__stack_top, Reset_Handler, Fault_Handler, Fault_Handler,\n"
    "    Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, 0, 0, 0,\n"
    "    Fault_Handler, Fault_Handler, 0, Fault_Handler, SysTick_Handler};\n";

static const char semihost_h[] =
    "/* prof_semihost.h - Arm semihosting for memplan profile. */\n"
    "#ifndef PROF_SEMIHOST_H\n"
    "#define PROF_SEMIHOST_H\n"
    "#include <stdint.h>\n"
    "void prof_puts(const char *s);\n"
    "void prof_exit(int code);\n"
    "long prof_read_file(const char *path, void *buf, uint32_t cap);\n"
    "#endif\n";

static const char semihost_c[] =
    "/* prof_semihost.c - BKPT 0xAB: write, exit with a status, read a host file. */\n"
    "#include \"prof_semihost.h\"\n"
    "static uintptr_t call(uint32_t op, const void *arg) {\n"
    "  register uintptr_t r0 __asm__(\"r0\") = op;\n"
    "  register uintptr_t r1 __asm__(\"r1\") = (uintptr_t)arg;\n"
    "  __asm__ volatile(\"bkpt 0xAB\" : \"+r\"(r0) : \"r\"(r1) : \"memory\");\n"
    "  return r0;\n"
    "}\n"
    "void prof_puts(const char *s) {\n"
    "  call(0x04u, s);\n"
    "  call(0x04u, \"\\n\");\n"
    "}\n"
    "void prof_exit(int code) {\n"
    "  uint32_t block[2] = {0x20026u, (uint32_t)code};\n"
    "  call(0x20u, block);\n"
    "  for (;;) {\n"
    "  }\n"
    "}\n"
    "long prof_read_file(const char *path, void *buf, uint32_t cap) {\n"
    "  uint32_t len = 0;\n"
    "  while (path[len]) len++;\n"
    "  uintptr_t open_args[3] = {(uintptr_t)path, 1u, len};\n"
    "  intptr_t h = (intptr_t)call(0x01u, open_args);\n"
    "  if (h < 0) return -1;\n"
    "  uintptr_t fa[1] = {(uintptr_t)h};\n"
    "  intptr_t size = (intptr_t)call(0x0Cu, fa);\n"
    "  long r = -1;\n"
    "  if (size >= 0 && (uintptr_t)size <= cap) {\n"
    "    uintptr_t ra[3] = {(uintptr_t)h, (uintptr_t)buf, (uintptr_t)size};\n"
    "    if (call(0x06u, ra) == 0) r = (long)size;\n"
    "  }\n"
    "  call(0x02u, fa);\n"
    "  return r;\n"
    "}\n";

/* The sections every board lays out the same way; CODE, ROM and RAM are
 * the board's. */
#define LD_SECTIONS                                                                           \
  "ENTRY(Reset_Handler)\n"                                                                    \
  "SECTIONS\n"                                                                                \
  "{\n"                                                                                       \
  "  .text : { KEEP(*(.vectors)) *(.text*) *(.glue_7) *(.glue_7t) } > CODE\n"                 \
  "  .rodata : { *(.rodata*) } > ROM\n"                                                       \
  "  .ARM.extab : { *(.ARM.extab* .gnu.linkonce.armextab.*) } > ROM\n"                        \
  "  .ARM.exidx : { *(.ARM.exidx* .gnu.linkonce.armexidx.*) } > ROM\n"                        \
  "  .init_array : { *(.init_array*) } > ROM\n"                                               \
  "  .fini_array : { *(.fini_array*) } > ROM\n"                                               \
  "  .data : { *(.data*) } > RAM\n"                                                           \
  "  .bss (NOLOAD) : { . = ALIGN(4); __bss_start__ = .; *(.bss*) *(COMMON) . = ALIGN(4);\n"   \
  "                    __bss_end__ = .; } > RAM\n"                                            \
  "  end = .;\n"                                                                              \
  "  __end__ = .;\n"                                                                          \
  "  .stack (NOLOAD) : { . = ALIGN(8); __stack_limit = .; . += 0x10000; __stack_top = .; } > RAM\n" \
  "}\n"

static const cli_profile_board boards[] = {
    {"mps3-an547", "Cortex-M55", "cortex-m55",
     "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard",
     "/* QEMU mps3-an547 (Corstone SSE-300, Cortex-M55), secure aliases. */\n"
     "MEMORY\n{\n"
     "  CODE (rx)  : ORIGIN = 0x10000000, LENGTH = 512K\n" /* ITCM: the boot vectors */
     "  ROM  (r)   : ORIGIN = 0x38000000, LENGTH = 8M\n"   /* QSPI flash */
     "  RAM  (rwx) : ORIGIN = 0x31000000, LENGTH = 4M\n"   /* SRAM */
     "}\n" LD_SECTIONS},
    {"mps2-an386", "Cortex-M4F", "cortex-m4",
     "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16",
     "/* QEMU mps2-an386 (Cortex-M4 with FPU). */\n"
     "MEMORY\n{\n"
     "  CODE (rx)  : ORIGIN = 0x00000000, LENGTH = 2M\n"
     "  ROM  (r)   : ORIGIN = 0x00200000, LENGTH = 2M\n"
     "  RAM  (rwx) : ORIGIN = 0x20000000, LENGTH = 4M\n"
     "}\n" LD_SECTIONS},
    {"mps2-an500", "Cortex-M7", "cortex-m7",
     "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16",
     "/* QEMU mps2-an500 (Cortex-M7 with FPU). */\n"
     "MEMORY\n{\n"
     "  CODE (rx)  : ORIGIN = 0x00000000, LENGTH = 2M\n"
     "  ROM  (r)   : ORIGIN = 0x00200000, LENGTH = 2M\n"
     "  RAM  (rwx) : ORIGIN = 0x20000000, LENGTH = 4M\n"
     "}\n" LD_SECTIONS},
};

const cli_profile_board *cli_profile_board_find(const char *name) {
  for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++)
    if (!strcmp(boards[i].name, name)) return &boards[i];
  return NULL;
}

const char *cli_profile_board_names(void) { return "mps3-an547, mps2-an386, mps2-an500"; }

const char *cli_profile_startup_c(void) { return startup_c; }
const char *cli_profile_semihost_h(void) { return semihost_h; }
const char *cli_profile_semihost_c(void) { return semihost_c; }

/* main() for the module of prefix p (P in capitals): inputs from the
 * files (n_files of them, absolute paths, already checked to be plain
 * text without quotes or backslashes) or pseudo-random bytes, one run
 * timed operator by operator. */
void cli_profile_main_c(FILE *f, const char *p, const char *P, const char *const *files,
                        size_t n_files) {
  fprintf(f,
          "/* prof_main.c - memplan profile: one run of %s, timed op by op. */\n"
          "#include \"%s_model.h\"\n"
          "#include \"prof_semihost.h\"\n"
          "#include <stdint.h>\n"
          "#include <stdio.h>\n"
          "extern volatile uint32_t prof_wraps;\n"
          "extern uint32_t __stack_limit, __stack_top;\n"
          "#define SYST ((volatile uint32_t *)0xE000E010u)\n"
          "#define ICSR (*(volatile uint32_t *)0xE000ED04u)\n"
          "static uint64_t ticks(void) {\n"
          "  uint32_t w, v, pending;\n"
          "  do {\n"
          "    w = prof_wraps;\n"
          "    v = SYST[2];\n"
          "    pending = ICSR & (1u << 26);\n"
          "  } while (w != prof_wraps);\n"
          "  if (pending && v > 0x800000u) w++;\n"
          "  return (uint64_t)w * 0x1000000u + (0xFFFFFFu - v);\n"
          "}\n"
          "static uint64_t op_ticks[%s_NUM_OPS ? %s_NUM_OPS : 1], op_start;\n"
          "static void on_op(const %s_op_t *op, %s_op_event_t ev, void *user) {\n"
          "  uint64_t t = ticks();\n"
          "  (void)user;\n"
          "  if (ev == %s_OP_STARTED) op_start = t;\n"
          "  else op_ticks[op->index] += t - op_start;\n"
          "}\n"
          "static void put(const char *what, unsigned long long a, unsigned long long b) {\n"
          "  char line[96];\n"
          "  snprintf(line, sizeof line, \"PROF %%s %%llu %%llu\", what, a, b);\n"
          "  prof_puts(line);\n"
          "}\n",
          p, p, P, P, p, p, P);
  fprintf(f, "static const char *const input_files[] = {");
  for (size_t i = 0; i < n_files; i++) fprintf(f, "\"%s\", ", files[i]);
  fprintf(f, "0};\n");
  fprintf(f,
          "int main(void) {\n"
          "  static %s_model_context_t ctx = %s_MODEL_CONTEXT_INIT;\n"
          "  uint32_t r = 1000000u;\n"
          "  uint64_t t0, t1;\n"
          "  SYST[1] = 0xFFFFFFu;\n"
          "  SYST[2] = 0;\n"
          "  SYST[0] = 7u;\n"
          "  while (SYST[2] == 0u) {\n"
          "  }\n"
          "  ICSR = 1u << 25;\n"
          "  prof_wraps = 0;\n"
          "  t0 = ticks();\n"
          "  __asm__ volatile(\"1: subs %%0, %%0, #1\\n\\tbne 1b\" : \"+r\"(r));\n"
          "  t1 = ticks();\n"
          "  put(\"CALIB\", t1 - t0, 2000000u);\n"
          "  t0 = ticks();\n"
          "  int32_t st = %s_model_init(&ctx);\n"
          "  t1 = ticks();\n"
          "  put(\"INIT\", t1 - t0, (unsigned long long)(uint32_t)st);\n"
          "  if (st != 0) return 4;\n"
          "  uint32_t seed = 0x2545F491u;\n"
          "  for (uint32_t i = 0; i < %s_NUM_INPUTS; i++) {\n"
          "    uint8_t *d = (uint8_t *)ctx.inputs[i].data;\n"
          "    if (input_files[0]) {\n"
          "      long n = prof_read_file(input_files[i], d, (uint32_t)ctx.inputs[i].size);\n"
          "      if (n != (long)ctx.inputs[i].size) {\n"
          "        put(\"BADINPUT\", i, (unsigned long long)ctx.inputs[i].size);\n"
          "        return 5;\n"
          "      }\n"
          "    } else {\n"
          "      for (size_t k = 0; k < ctx.inputs[i].size; k++) {\n"
          "        seed ^= seed << 13;\n"
          "        seed ^= seed >> 17;\n"
          "        seed ^= seed << 5;\n"
          "        d[k] = (uint8_t)seed;\n"
          "      }\n"
          "    }\n"
          "  }\n"
          "  ctx.callback = on_op;\n"
          "  t0 = ticks();\n"
          "  st = %s_model_run(&ctx);\n"
          "  t1 = ticks();\n"
          "  put(\"RUN\", t1 - t0, (unsigned long long)(uint32_t)st);\n"
          "  if (st != 0) return 6;\n"
          "  for (uint32_t i = 0; i < %s_NUM_OPS; i++) put(\"OP\", i, op_ticks[i]);\n"
          "  uint32_t *s = &__stack_limit;\n"
          "  while (s < &__stack_top && *s == 0xA5A5A5A5u) s++;\n"
          "  put(\"STACK\", (unsigned long long)((uintptr_t)&__stack_top - (uintptr_t)s),\n"
          "      (unsigned long long)((uintptr_t)&__stack_top - (uintptr_t)&__stack_limit));\n"
          "  return 0;\n"
          "}\n",
          p, P, p, P, p, P);
}
