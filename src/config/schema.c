/*
 * config_schema.c — the one table of configuration keys, the --help text
 * made from it, and did-you-mean suggestions.
 *
 * Every key the config accepts is one row: its snake_case path (list
 * elements marked "[]"), its type, its default and its meaning.  The
 * validator asks the table which keys may appear under a mapping, the
 * command-line parser asks it which `--dotted.keys` exist and whether they
 * take a value, and --help prints it; so a new key is one new row (plus its
 * reading in config.c).  The meanings of the memory keys are the seeds'
 * MemoryArgs descriptions.
 *
 * Suggestions use the edit distance, case-insensitive and with '-' == '_',
 * and are only offered when close: a wrong hint is worse than none.
 */
#include "config/config.h"
#include "util/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const cfg_key keys[] = {
    {"model", T_SECTION, "mapping", NULL, "The model to plan."},
    {"models", T_LIST, "list of mappings", "null",
     "Instead of 'model': several models that never run at the same time.  Each is planned "
     "and emitted as its own module, in module.path/<prefix>, and the modules share one "
     "scratch arena per memory, sized to the largest need and defined once (by the first "
     "model that has one there) as <module.prefix>_arena_<mem>_buffer; persistent and "
     "constant arenas stay each model's own.  module.prefix names the shared arenas "
     "(default shared)."},
    {"models[].path", T_PATH, "path", "(required)", "Path of the .tflite model."},
    {"models[].subgraph", T_UINT, "integer", "0", "Index of the subgraph to plan."},
    {"models[].name", T_STRING, "string", "the model file's name without extension",
     "Name of the model in logs and reports."},
    {"models[].prefix", T_IDENT, "C identifier", "name made a lower-case C identifier",
     "Prefix of the model's symbols, and its module's name and folder."},
    {"model.path", T_PATH, "path", "(required)",
     "Path of the .tflite model; relative to the config file's folder (to the current folder "
     "when given on the command line)."},
    {"model.subgraph", T_UINT, "integer", "0", "Index of the subgraph to plan."},
    {"model.name", T_STRING, "string", "the model file's name without extension",
     "Name of the model in logs and reports."},
    {"module", T_SECTION, "mapping", NULL, "The emitted C module."},
    {"module.path", T_PATH, "path", "out",
     "Folder the module is written to; relative to the config file's folder (to the current "
     "folder without a config file or when given on the command line)."},
    {"module.name", T_STRING, "string", "the prefix", "Name of the emitted module."},
    {"module.prefix", T_IDENT, "C identifier", "model.name made a lower-case C identifier",
     "Prefix of every emitted symbol (<prefix>_model_init, <prefix>_arena_dtcm_buffer, ...)."},
    {"module.target", T_TARGET, "generic|cortex-m4|cortex-m7|cortex-m33|cortex-m55", "generic",
     "Core the module's kernels are specialised for at convert time. generic runs memplan's "
     "reference kernels everywhere; a Cortex-M target runs CONV_2D, DEPTHWISE_CONV_2D, "
     "FULLY_CONNECTED and unbroadcast ADD (int8) with specialised kernels whose inner loops use Helium (MVE) when "
     "the compiler predefines __ARM_FEATURE_MVE (cortex-m55), the DSP extension's SIMD "
     "instructions when it predefines __ARM_FEATURE_DSP (cortex-m4, cortex-m7, cortex-m33), "
     "and portable C otherwise: every path gives the same bytes, so the module still compiles "
     "and runs anywhere. The summary lists the kernel each operator runs."},
    {"module.tables_memory", T_STRING, "memory name", "the platform's first read-only memory",
     "Memory the module's read-only tables (tensor and operator tables, kernel parameters, "
     "per-channel multipliers and shifts) are defined in, with that memory's "
     "<PREFIX>_PUT_CONST_IN_<MEM> macro; the summary, the residency report and the HTML report "
     "count them there.  Without it they are plain .rodata, counted in the platform's first "
     "read-only memory by name (flash, mram), or in none when it has none."},
    {"platform", T_PLATFORM, "name or mapping", MP_DEFAULT_PLATFORM,
     "Target platform: a built-in name (apollo510_evb, apollo4p_evb, apollo330p_evb, "
     "apollo3p_evb, stm32h743, imxrt1060_evk, esp32s3_devkitc), or a mapping of the keys "
     "below.  The keys of a mapping override the platform it starts from: the built-in it "
     "names, the platform of its file, else the default."},
    {"platform.name", T_STRING, "string", MP_DEFAULT_PLATFORM,
     "Built-in platform to start from, or the name of a new platform defined by its "
     "memories."},
    {"platform.file", T_PATH, "path", NULL,
     "A YAML file holding the platform mapping (name, memories, min_alignment, "
     "preferred_memory_order); relative to the config file's folder.  Keys beside it "
     "override the file's."},
    {"platform.memories", T_MEMSIZES, "mapping memory: bytes or {size, read_only, alignment}",
     "the platform's",
     "The memory banks, by name: any C identifier (dtcm, itcm, sram, psram and mram keep "
     "their meaning; mram is read-only).  A size adds a bank or changes its size and keeps "
     "the others; null removes a bank.  Sizes take an optional KiB, MiB or GiB suffix."},
    {"platform.memories[].size", T_SIZE, "bytes", NULL, "Size of the bank."},
    {"platform.memories[].read_only", T_BOOL, "bool", "true for mram, else false",
     "Non-volatile storage (flash, MRAM): holds cold constants only; nothing is written "
     "there at run time."},
    {"platform.memories[].alignment", T_ALIGN, "bytes", "none",
     "Base alignment every arena in this bank needs (a cache line, a DMA burst)."},
    {"platform.min_alignment", T_ALIGN, "bytes", "16",
     "Minimum alignment of every slot and arena; a power of two up to 4096."},
    {"platform.preferred_memory_order", T_MEMLIST, "list of memories",
     "the platform's; for a new platform dtcm, sram, psram, other writable banks by name, "
     "read-only banks",
     "Order in which unpinned tensors prefer the banks, after the order of "
     "memory.constraints.  On the command line a JSON list or dtcm,sram,..."},
    {"memory", T_SECTION, "mapping", NULL, "Memory configuration for the conversion process."},
    {"memory.planner", T_PLANNER, "planner name", "greedy",
     "Memory planner strategy. Defaults to greedy; greedy_by_size, hill_climb and exact "
     "are experimental and opt-in."},
    {"memory.planner_options", T_OPTIONS, "mapping (JSON object)", "{}",
     "Tunables forwarded to the selected planner, validated against that planner's option "
     "schema (each planner's options are listed below; greedy and greedy_by_size have "
     "none). Unknown keys are rejected with a did-you-mean hint. On the CLI this is a JSON "
     "object: --memory.planner-options '{\"iterations\": 2000}'."},
    {"memory.constraints", T_LIST, "list of mappings (JSON list)", "null",
     "Memory constraints (ordered by preference)."},
    {"memory.constraints[].name", T_MEMORY, "memory", "(required)", "Memory type (e.g., DTCM, ITCM)."},
    {"memory.constraints[].max_size", T_SIZE, "bytes", "the platform's size of that memory",
     "Maximum size in bytes of everything placed in that memory."},
    {"memory.constraints[].arena_alignment", T_ALIGN, "bytes", "null",
     "Optional per-arena alignment floor in bytes. When set, applied to both the arena base "
     "symbol and every slot. When None, only the 16-byte implementation floor applies to the "
     "base; per-slot alignment is driven by platform / dtype / tensor hints."},
    {"memory.tensors", T_LIST, "list of rulesets (JSON list)", "[]",
     "Per-tensor attribute rulesets.  They merge field by field from least to most specific: "
     "(type \"*\", no id) < (type, no id) < (type \"*\", id) < (type, id); a later ruleset wins "
     "a tie."},
    {"memory.tensors[].type", T_RULETYPE, "scratch|persistent|constant|*", "*",
     "Role of the tensors the ruleset applies to (ArenaRole)."},
    {"memory.tensors[].id", T_IDS, "list of ids", "null",
     "Tensors the ruleset applies to: tensor indices (as text) or names; null = all."},
    {"memory.tensors[].attributes", T_SECTION, "mapping", NULL,
     "The tensor attributes the ruleset sets."},
    {"memory.tensors[].attributes.memory", T_MEMORY, "memory", "dtcm (preferred, not pinned)",
     "Memory placement for tensors; naming it pins the tensor there. For constants this is the "
     "source (cold-storage) memory where the tensor's bytes live in the image."},
    {"memory.tensors[].attributes.constant_destination_memory", T_MEMORY, "memory", "null",
     "Per-tensor runtime destination memory for constants. When None (default) the constant is "
     "read in place from its source memory; when set the constant is hydrated into a writable "
     "arena slot in the destination memory. Must be a writable memory of the platform."},
    {"memory.in_place", T_INPLACE, "false | true | speed | size", "false",
     "If on, a scratch tensor may share bytes with a tensor its producer is still reading, "
     "exactly where that operator's kernel declares it safe (an elementwise output over its "
     "input, a 1x1 convolution's output trailing its input by a computed number of bytes, a "
     "convolution's output rows trailing its input rows). The plan and report then give a "
     "second lower bound, the in-place bound. It also folds a PAD whose output only a "
     "convolution reads into that convolution's padding (height and width only, padded with the "
     "input zero point or 0), and makes a SPLIT, SPLIT_V, UNPACK, SLICE or STRIDED_SLICE "
     "output that is one contiguous run of its input a view of it, and a CONCATENATION or PACK "
     "whose inputs are runs of its output a view its producers write into (along channels or "
     "columns too, when every input is the output of a convolution or pool that only the "
     "concatenation reads: each producer writes its slice of every output row), unless the plan "
     "without these rewrites is smaller. size (and true): the smallest scratch; a depthwise "
     "convolution also runs channel by channel, with a one-channel temporary and its output on "
     "its input, where that lowers the in-place bound, a slower kernel (the summary names those "
     "operators and the scratch speed would need; memplan profile their price in "
     "instructions). speed: every rewrite and overlap above but those that cost an operator its "
     "fastest kernel: no depthwise convolution runs channel by channel, and, for a Cortex-M "
     "target, no 16x8 convolution writes a strided slice of an elided CONCATENATION (its "
     "specialised kernel needs packed output). "
     "False keeps every tensor's bytes its own, every PAD and every copy."},
    {"memory.op_order", T_STRING, "model | min_peak", "model",
     "The order the operators run in. model: the model's own. min_peak: among the orders that "
     "respect every data dependence, the one whose lower bound (the tensor-level bound; with "
     "memory.in_place, the in-place bound) is lowest, found by a search over the sets of "
     "operators already run that is exact on small or narrow graphs and keeps the best states "
     "beyond a fixed budget; it is kept only when its bound is strictly below the model order's "
     "and the planner then needs strictly less scratch. "
     "Operators with side effects or state (variables, SVDF and LSTM state, custom operators) "
     "keep their order; the graph's inputs and outputs do not change. The module runs the "
     "operators in the order chosen, and the summary and reports give it."},
    {"memory.patch", T_PATCH, "off | auto | mapping", "off",
     "Run the first, high-resolution operators of the network tile by tile (patch-based "
     "inference): each tile of the stage's output is computed from its window of the stage's "
     "input, halo included, through every operator of the stage, so the stage's intermediate "
     "feature maps never exist whole; the per-tile buffers are op-local scratch of the stage. "
     "off: never. auto: search the stages (a chain of convolutions, depthwise convolutions, "
     "pools and ADDs from the model's first operator) and tile grids, keeping a patched plan "
     "only when its scratch is smaller than the unpatched plan's. A mapping {first, last, "
     "rows, cols} patches the operators first .. last (execution order) on rows x cols tiles."},
    {"memory.patch.first", T_UINT, "integer", "(required)",
     "First operator of the patched stage (execution order)."},
    {"memory.patch.last", T_UINT, "integer", "(required)",
     "Last operator of the patched stage; its output is the stage's output."},
    {"memory.patch.rows", T_UINT, "integer", "(required)", "Tile rows over the stage's output."},
    {"memory.patch.cols", T_UINT, "integer", "(required)",
     "Tile columns over the stage's output."},
    {"memory.allocate_arenas", T_BOOL, "boolean", "true",
     "If true, the module will use internal, statically allocated arenas. If false, the caller "
     "must bind every region via <prefix>_bind_arena() / <prefix>_bind_arenas() before "
     "model_init."},
    {"memory.io", T_STRING, "arena | caller", "arena",
     "Where the graph's inputs and outputs live. arena: in the planned arenas, and "
     "ctx.inputs[i].data / ctx.outputs[j].data point there after model_init. caller: in "
     "buffers of the application (a DMA buffer, a sensor driver's), which sets those pointers "
     "before every model_run; they are not planned, and model_run checks their size and "
     "alignment."},
    {"memory.auto_hydrate_constants", T_BOOL, "boolean", "true",
     "Deprecated: retained for backwards compatibility but no longer changes generated runtime "
     "behavior. model_init always invokes hydrate_constants between context_init and the "
     "operator init loop. Override the weak hydrate_constants symbol for custom hydration "
     "mechanisms (DMA / async pre-stage / model swap)."},
    {"memory.dump_residency_json", T_BOOL, "boolean", "false",
     "If true, write a machine-readable residency report (<prefix>_residency.json) alongside "
     "the emitted module. Mirrors the verbose log summary as JSON for tooling that needs to "
     "introspect arena layout, staged-vs-cold residency, and per-tensor placement "
     "post-planning."},
    {"verbose", T_VERBOSE, "0-3", "1",
     "0 errors only; 1 the summary and, when another planner would need fewer bytes, a "
     "hint naming it; 2 also every tensor's resolved attributes, placement and why it is in "
     "its memory (first in preference order, spilled, pinned by a rule, a view's alias); 3 "
     "also each memory's fill at every operator."},
};

#define N_KEYS (sizeof keys / sizeof keys[0])

const cfg_key *cfg_keys(size_t *n) {
  *n = N_KEYS;
  return keys;
}

const cfg_key *cfg_key_find(const char *path) {
  for (size_t i = 0; i < N_KEYS; i++)
    if (!strcmp(keys[i].path, path)) return &keys[i];
  return NULL;
}

size_t cfg_key_children(const char *parent, const char **names, size_t max) {
  size_t pl = strlen(parent), n = 0;
  for (size_t i = 0; i < N_KEYS && n < max; i++) {
    const char *p = keys[i].path;
    const char *rest;
    if (pl == 0) {
      rest = p;
    } else {
      if (strncmp(p, parent, pl) != 0 || p[pl] != '.') continue;
      rest = p + pl + 1;
    }
    if (strchr(rest, '.') || strchr(rest, '[')) continue;
    names[n++] = rest;
  }
  return n;
}

/* ---- help -------------------------------------------------------------------- */

/* Append `text` wrapped at 78 columns, continuation lines indented by
 * `indent`; `col` is the column the cursor is at (0: a fresh line). */
static void wrap_at(mp_buf *b, const char *text, size_t indent, size_t col) {
  const char *p = text;
  while (*p) {
    while (*p == ' ') p++;
    const char *e = p;
    while (*e && *e != ' ') e++;
    size_t wlen = (size_t)(e - p);
    if (wlen == 0) break;
    if (col == 0) {
      for (size_t i = 0; i < indent; i++) mp_buf_putc(b, ' ');
      col = indent;
    } else if (col + 1 + wlen > 78) {
      mp_buf_putc(b, '\n');
      for (size_t i = 0; i < indent; i++) mp_buf_putc(b, ' ');
      col = indent;
    } else {
      mp_buf_putc(b, ' ');
      col++;
    }
    mp_buf_append(b, p, wlen);
    col += wlen;
    p = e;
  }
  mp_buf_putc(b, '\n');
}

static void wrap(mp_buf *b, const char *text, size_t indent) { wrap_at(b, text, indent, 0); }

/* The CLI spelling of a key path: kebab-case. */
static void put_cli(mp_buf *b, const char *path) {
  for (const char *p = path; *p; p++) mp_buf_putc(b, *p == '_' ? '-' : *p);
}

char *mp_config_help_text(void) {
  mp_buf b;
  mp_buf_init(&b);
  mp_buf_puts(&b,
              "usage: memplan convert [--path CONFIG.yaml] [--KEY VALUE ...] [options]\n"
              "\n"
              "Plan a model from a YAML config and emit a C module.  Every configuration key\n"
              "below can be given in the file or on the command line as --KEY VALUE (or\n"
              "--KEY=VALUE), which wins over the file; the whole config can be given on the\n"
              "command line.  Kebab-case and snake_case name the same key\n"
              "(--memory.planner-options == --memory.planner_options).  Booleans are\n"
              "--KEY, --no-KEY's last part (--memory.no-allocate-arenas) or --KEY true|false.\n"
              "Mappings and lists are JSON on the command line; a single entry of a mapping\n"
              "can be set with a longer key (--memory.planner-options.iterations 2000,\n"
              "--platform.memories.dtcm 262144).\n"
              "\n"
              "options:\n"
              "  --path FILE           the YAML config; relative paths in it resolve against\n"
              "                        its folder\n"
              "  --report FILE         also write an HTML report of the plan to FILE\n"
              "  --allow-unsupported   plan models with operators memplan has no kernel for\n"
              "  --force               replace files in module.path that memplan did not\n"
              "                        write (by default convert stops and names them)\n"
              "  --verbose N           as the key 'verbose' below\n"
              "  --quiet               no hint line when another planner would need fewer\n"
              "                        bytes\n"
              "  --help                this text\n"
              "\n"
              "configuration keys (type; default):\n");
  for (size_t i = 0; i < N_KEYS; i++) {
    const cfg_key *k = &keys[i];
    bool element = strchr(k->path, '[') != NULL;
    mp_buf_puts(&b, "\n  ");
    if (!element) mp_buf_puts(&b, "--");
    if (element) mp_buf_puts(&b, k->path);
    else put_cli(&b, k->path);
    mp_buf_printf(&b, "  (%s", k->type_name);
    if (k->def && k->def[0] == '(') mp_buf_printf(&b, "; %.*s", (int)strlen(k->def) - 2, k->def + 1);
    else if (k->def) mp_buf_printf(&b, "; default: %s", k->def);
    mp_buf_puts(&b, ")\n");
    wrap(&b, k->help, 6);
    if (k->type == T_PLANNER) {
      mp_buf_puts(&b, "      planners:\n");
      for (uint32_t p = 0; p < mp_planner_count(); p++) {
        const mp_planner *pl = mp_planner_at(p);
        mp_buf_printf(&b, "        %-16s", pl->name);
        wrap_at(&b, pl->help ? pl->help : "", 25, 24);
      }
    }
    if (k->type == T_OPTIONS) {
      for (uint32_t p = 0; p < mp_planner_count(); p++) {
        const mp_planner *pl = mp_planner_at(p);
        if (pl->n_options == 0) continue;
        mp_buf_printf(&b, "      %s options:\n", pl->name);
        for (uint32_t o = 0; o < pl->n_options; o++) {
          const mp_option_spec *os = &pl->options[o];
          mp_buf_printf(&b, "        %-22s integer %lld..%lld", os->key, (long long)os->min,
                        (long long)os->max);
          if (os->has_default) mp_buf_printf(&b, ", default %lld", (long long)os->def);
          mp_buf_putc(&b, '\n');
          if (os->help) wrap(&b, os->help, 10);
        }
      }
    }
  }
  mp_buf_puts(&b, "\nbuilt-in platforms (bytes):\n");
  for (const char *const *n = mp_platform_builtin_names(); *n; n++) {
    mp_platform p;
    mp_platform_builtin(*n, &p);
    mp_buf_printf(&b, "  %-16s", p.name);
    for (uint32_t o = 0; o < p.n_order; o++)
      mp_buf_printf(&b, " %s %llu%s", mp_platform_memory_name(&p, p.order[o]),
                    (unsigned long long)p.size[p.order[o]], p.read_only[p.order[o]] ? " (read-only)" : "");
    for (int m = 0; m < MP_MEM_COUNT; m++) {
      bool in_order = false;
      for (uint32_t o = 0; o < p.n_order; o++) in_order |= p.order[o] == (mp_memory)m;
      if (p.present[m] && !in_order)
        mp_buf_printf(&b, " %s %llu (pinned only)", mp_platform_memory_name(&p, (mp_memory)m),
                      (unsigned long long)p.size[m]);
    }
    mp_buf_putc(&b, '\n');
  }
  mp_buf_puts(&b, "  (in preferred order; min_alignment 16)\n"
                  "\n"
                  "example:\n"
                  "  model:    {path: model.tflite}\n"
                  "  platform: apollo4p_evb\n"
                  "  memory:\n"
                  "    planner: hill_climb\n"
                  "    planner_options: {iterations: 2000}\n"
                  "    constraints: [{name: dtcm, max_size: 256KiB}]\n"
                  "    tensors:\n"
                  "      - {type: constant, attributes: {memory: mram, constant_destination_memory: sram}}\n");
  if (b.failed) {
    mp_buf_free(&b);
    return NULL;
  }
  /* hand over the buffer's malloc'd storage */
  return b.data;
}
