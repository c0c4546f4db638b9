#!/usr/bin/env python3
"""conform_gen.py — the conformance suite's generator and judge
(tests/suite_conformance.sh drives it).

    conform_gen.py generate OUT --corpus DIR --memplan BIN [--jobs N] [--target CORE]
                            [--filter REGEX] [--convert-args OPTIONS] | [--variants TEXT]
    conform_gen.py summarise OUT [--refusals FILE]

generate: every case of the corpus's manifest.json goes through `memplan
convert` (its model, the default configuration, a prefix of its own).
memplan alone decides what it supports: a case whose convert exits 1 with
"error: operator N (OP) is not supported: why" is refused, with the reason
"OP: why"; any other failure of convert (another exit status, another
message, a sanitizer report, a module written anyway) is a failure of the
suite.  A case
convert accepts is converted a second time with --module.target CORE
(cortex-m55 from the suite: the kernels a firmware engineer gets for that
core) for the Cortex-M55 images; the host runs the default (generic)
module.  Each module written gets its glue (OUT/m/<prefix>/conf_glue.c: the module's sources in
one translation unit, compiled with its kernels, adapted to conform.h),
then OUT/build.mk builds one host binary holding every case, Cortex-M55
images for QEMU's mps3-an547, the cases packed so that each image's
arenas fit the board's SRAM (scratch) and QSPI (constants), and Cortex-M4F
images for QEMU's mps2-an386 (tests/target/an386.ld, the same layout in
larger banks) of the cases whose target module runs a specialised kernel
(mpk_*_fast.c and the 1x1 and im2col convolutions), so that their DSP
paths meet TFLM's outputs too.  OUT/cases.json records every case's
verdict so far.

--filter selects the cases (a regular expression on the folder) and
--convert-args adds options to both converts.  --variants (one per line:
"NAME FILTER [CONVERT OPTIONS...]") runs several such selections in one
build: a case of variant k > 0 is converted into prefix cf<i>v<k>, and its
lines (CONF PASS / FAIL) name "<folder>@NAME", so that every variant is
judged on its own.  The variants share the kernel objects: their modules
must carry the same kernels.

summarise: reads OUT/cases.json and the run logs (OUT/host.log,
OUT/m55/*.log, OUT/m4f/*.log) and the expected refusals (the "case" lines
of tests/expected_refusals.txt, $MEMPLAN_EXPECTED_REFUSALS or --refusals
FILE: one line per case
convert refuses today, with its reason) and prints, per (operator,
dtype), the cases, how many memplan ran, how many matched TFLM on the host
and on the targets, and how many convert refused as listed; then every
expected refusal and every failure.  Exits 1 when any case that memplan
converted did not match everywhere it ran, when a convert failed otherwise
than by refusing an operator, when a case was refused but is not listed
or is listed with another reason, when a listed case ran this time (a
stale entry: delete it), or when an entry names no case of the corpus or
the wrong operator and dtype for it.  With variants, all of that per
variant: a table, refusals and failures each, and a last line
"conformance NAME: ..." each.
"""
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

UNSUPPORTED = re.compile(r"error: operator (\d+) \(([A-Za-z0-9_]+)\) is not supported: (.*?)(?:; reads |$)",
                         re.M)
DTYPES = {"float32": 0, "int32": 2, "uint8": 3, "int64": 4, "bool": 6, "int16": 7, "int8": 9,
          "uint64": 12, "uint32": 15}
MEMORIES = ["ITCM", "DTCM", "SRAM", "PSRAM", "MRAM"]
# what a sanitizer (ASan, UBSan, LSan) prints: a report is a failure
SANITIZER = re.compile(r"ERROR: (?:Address|Leak|Undefined)Sanitizer|runtime error: |SUMMARY: \w+Sanitizer")
# the expected refusals: $MEMPLAN_EXPECTED_REFUSALS, as for the other tests, else the repository's
REFUSALS = os.environ.get("MEMPLAN_EXPECTED_REFUSALS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "expected_refusals.txt")

# The an547 image (tests/target/an547.ld): scratch arenas in SRAM (4 MiB),
# constant blobs in QSPI (8 MiB), 64 spare bytes around each area; module
# code in ITCM (512 KiB) and tables in SRAMC (2 MiB) with the harness.
IMAGE_SCRATCH = 4 * 1024 * 1024 - 4096
IMAGE_CONST = 8 * 1024 * 1024 - 4096
IMAGE_CASES = 160  # code and tables of a module: under 2 KiB each

# A call of a specialised kernel in a module's sources.
SPECIALISED = re.compile(r"\bmpk_\w+_(?:fast|1x1|im2col)\(")


def specialised(mdir):
    """Does the module in mdir call a specialised kernel (its sources, src/*.c)?"""
    src = os.path.join(mdir, "src")
    for f in sorted(os.listdir(src)):
        if f.endswith(".c") and SPECIALISED.search(open(os.path.join(src, f), errors="replace").read()):
            return True
    return False


def pack(cases):
    """Images of cases (prefix, scratch, const) that fit the an547 board."""
    images, cur = [], None
    for p, scratch, const in cases:
        if (cur is None or cur["scratch"] + scratch > IMAGE_SCRATCH or cur["const"] + const > IMAGE_CONST
                or len(cur["cases"]) == IMAGE_CASES):
            cur = {"scratch": 0, "const": 0, "cases": []}
            images.append(cur)
        cur["scratch"] += scratch
        cur["const"] += const
        cur["cases"].append(p)
    return images


def same_files(a, b):
    """Do folders a and b hold the same files, byte for byte?"""
    names = sorted(os.listdir(a))
    if names != sorted(os.listdir(b)):
        return False
    return all(open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read() for f in names)


def die(msg):
    sys.exit("conform_gen: " + msg)


def convert(memplan, corpus, mdir, case, prefix, extra=()):
    """Run memplan convert on one case into mdir: (verdict, detail)."""
    cmd = [memplan, "convert", os.path.join(corpus, case["folder"], "model.tflite"),
           "--module.path", mdir, "--module.prefix", prefix, "--verbose", "0",
           "--memory.dump-residency-json"] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    m = UNSUPPORTED.search(text)
    if SANITIZER.search(text):
        lines = [l for l in text.splitlines() if SANITIZER.search(l)]
        return "convert-failed", "memplan convert exited %d with a sanitizer report: %s" % (
            p.returncode, " | ".join(lines[:3]))
    if p.returncode == 1 and m:
        if os.path.exists(mdir):
            return "convert-failed", "convert refused the model but wrote %s" % mdir
        return "unsupported", "%s: %s" % (m.group(2), m.group(3))
    if p.returncode != 0:
        lines = [l for l in text.splitlines() if "error" in l] or text.splitlines()[-1:]
        return "convert-failed", "memplan convert exited %d: %s" % (p.returncode, " | ".join(lines[:3]))
    return "ran", ""


def convert_both(memplan, corpus, out, case, target):
    """The host's module (the default target) in OUT/m/<prefix>, and the
    Cortex-M55's (--module.target target) in OUT/t/<prefix>; both with the
    case's variant's convert options last."""
    p, extra = case["prefix"], case["args"]
    verdict = convert(memplan, corpus, os.path.join(out, "m", p), case, p, extra)
    if verdict[0] != "ran" or target == "generic":
        return verdict
    v, detail = convert(memplan, corpus, os.path.join(out, "t", p), case, p,
                        ["--module.target", target] + extra)
    if v != "ran":
        return "convert-failed", "with --module.target %s (the default target converts): %s" % (target, detail)
    return verdict


def io_counts(mdir, prefix):
    """(inputs, outputs) of the module, from its header."""
    text = open(os.path.join(mdir, "include", prefix + "_model.h")).read()
    n = [re.search(r"#define %s_NUM_%s (\d+)u" % (prefix.upper(), k), text) for k in ("INPUTS", "OUTPUTS")]
    return tuple(int(m.group(1)) if m else -1 for m in n)


def regions_of(mdir, prefix):
    rep = json.load(open(os.path.join(mdir, prefix + "_residency.json")))
    regions, scratch, const = [], 0, 0
    n = len(rep["arenas"])
    for a in rep["arenas"]:
        kind = {"scratch": 0, "persistent": 1}.get(a["role"], 2 if a.get("staged") else 3)
        regions.append((a["region_id"], a["size"], kind))
        if kind == 3:
            const += a["size"] + a["alignment"]
        else:
            scratch += a["size"] + a["alignment"]
    k = n
    for a in rep["arenas"]:  # the staged sources come last, in arena order
        if a.get("staged"):
            regions.append((k, a["size"], 3))
            const += a["size"] + a["alignment"]
            k += 1
    return regions, scratch, const


def write_glue(mdir, prefix, case, regions):
    up = prefix.upper()
    out_dtypes = []
    for t in case["outputs"]:
        if t["dtype"] not in DTYPES:
            die("%s: output dtype %s" % (case["folder"], t["dtype"]))
        out_dtypes.append(str(DTYPES[t["dtype"]]))
    g = []
    g.append("/* Conformance glue of %s (%s), written by tests/conformance/conform_gen.py. */"
             % (prefix, case["folder"]))
    g.append("#ifdef CONF_TARGET /* arenas where the an547 image has room (an547.ld) */")
    for mem in MEMORIES:
        g.append('#define %s_PUT_IN_%s __attribute__((section(".bss.mp_sram")))' % (up, mem))
        g.append('#define %s_PUT_CONST_IN_%s __attribute__((section(".rodata.mp_mram")))' % (up, mem))
    g.append("#endif")
    g.append('#include "src/%s_model.c"' % prefix)
    g.append('#include "src/%s_arenas.c"' % prefix)
    g.append('#include "conform.h"\n')
    g.append("typedef char %s_conf_io[(%s_NUM_INPUTS == %du && %s_NUM_OUTPUTS == %du) ? 1 : -1];"
             % (prefix, up, len(case["inputs"]), up, len(case["outputs"])))
    g.append("static %s_model_context_t %s_conf_ctx;" % (prefix, prefix))
    g.append("static int32_t %s_conf_init(void) {\n  %s_model_context_t c = %s_MODEL_CONTEXT_INIT;\n"
             "  %s_conf_ctx = c;\n  return %s_model_init(&%s_conf_ctx);\n}"
             % (prefix, prefix, up, prefix, prefix, prefix))
    g.append("static int32_t %s_conf_run(void) { return %s_model_run(&%s_conf_ctx); }"
             % (prefix, prefix, prefix))
    g.append("static int32_t %s_conf_failed_op(void) { return %s_conf_ctx.failed_op; }"
             % (prefix, prefix))
    g.append("static int32_t %s_conf_reset(void) { return %s_reset_state(&%s_conf_ctx); }"
             % (prefix, prefix, prefix))
    g.append("static void *%s_conf_io_of(int output, uint32_t i, size_t *size) {\n"
             "  %s_io_t *x = output ? &%s_conf_ctx.outputs[i] : &%s_conf_ctx.inputs[i];\n"
             "  *size = x->size;\n  return x->data;\n}" % (prefix, prefix, prefix, prefix))
    g.append("static void *%s_conf_base(uint32_t r) { return %s_arena_buffer((%s_arena_region_t)r); }"
             % (prefix, prefix, prefix))
    g.append("static const conf_region %s_conf_regions[] = {%s};" % (
        prefix, ", ".join("{%du, %du, %d}" % r for r in regions)))
    g.append("static const uint8_t %s_conf_dtypes[] = {%s};" % (prefix, ", ".join(out_dtypes)))
    g.append("const conf_case conf_case_%s = {\n    \"%s\", %du, %du, %s_conf_dtypes, %du, %s_conf_regions,\n"
             "    %s_conf_init, %s_conf_run, %s_conf_failed_op, %s_conf_io_of, %s_conf_base, %s_status_str,\n"
             "    %du, %s_conf_reset, \"%s\"};"
             % (prefix, case["folder"], len(case["inputs"]), len(case["outputs"]), prefix, len(regions),
                prefix, prefix, prefix, prefix, prefix, prefix, prefix,
                case.get("runs", 1) if case.get("stateful") else 1, prefix, case["label"]))
    with open(os.path.join(mdir, "conf_glue.c"), "w") as f:
        f.write("\n".join(g) + "\n")


def write_registry(path, prefixes, root):
    lines = ['#include "conform.h"\n', "const char conf_root[] = \"%s\";" % root]
    lines += ["extern const conf_case conf_case_%s;" % p for p in prefixes]
    lines.append("const conf_case *const conf_cases[] = {")
    lines += ["    &conf_case_%s," % p for p in prefixes]
    lines.append("    NULL};")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def variants_of(args):
    """The variants to run: [{name, filter, args}].  --variants TEXT, one
    per line "NAME FILTER [CONVERT OPTIONS...]" (FILTER a regular
    expression without blanks on the case folder, "." for every case); else
    one unnamed variant of --filter and --convert-args."""
    if args.get("variants") is None:
        return [{"name": "", "filter": args.get("filter") or "",
                 "args": shlex.split(args.get("convert-args") or "")}]
    if args.get("filter") or args.get("convert-args"):
        die("--variants replaces --filter and --convert-args")
    variants = []
    for n, line in enumerate(args["variants"].splitlines(), 1):
        f = line.split(None, 2)
        if not f:
            continue
        if len(f) < 2 or not re.match(r"^[A-Za-z0-9_.+-]+$", f[0]):
            die("variant %d: expected 'NAME FILTER [CONVERT OPTIONS...]', got '%s'" % (n, line))
        if f[0] in [v["name"] for v in variants]:
            die("variant %d: %s is named twice" % (n, f[0]))
        variants.append({"name": f[0], "filter": f[1], "args": shlex.split(f[2] if len(f) > 2 else "")})
    if not variants:
        die("--variants names no variant")
    return variants


def generate(args):
    out, corpus, memplan = args["out"], args["corpus"], args["memplan"]
    corpus = os.path.abspath(corpus)
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    cases = manifest["cases"]
    variants = variants_of(args)
    # every variant's cases, each a record of its own: variant k > 0 has
    # the prefixes cf<i>v<k>, and its lines name "<folder>@<variant>"
    todo = []
    for k, v in enumerate(variants):
        filt = re.compile(v["filter"])
        chosen = [dict(c, prefix="cf%d" % i + ("v%d" % k if k else ""), variant=v["name"],
                       label=c["folder"] + ("@" + v["name"] if v["name"] else ""), args=v["args"])
                  for i, c in enumerate(cases) if filt.search(c["folder"])]
        if not chosen:  # a filter that selects nothing checks nothing
            die("no case of %s matches the filter '%s'%s"
                % (corpus, v["filter"], " (variant %s)" % v["name"] if v["name"] else ""))
        todo += chosen
    target = args.get("target") or "generic"
    os.makedirs(os.path.join(out, "m"), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=int(args.get("jobs") or 2)) as ex:
        verdicts = list(ex.map(lambda c: convert_both(memplan, corpus, out, c, target), todo))
    tsub = "m" if target == "generic" else "t"
    ran, sized = [], []
    for c, (verdict, detail) in zip(todo, verdicts):
        c["verdict"], c["detail"] = verdict, detail
        if verdict != "ran":
            continue
        p = c["prefix"]
        mdir, tdir = os.path.join(out, "m", p), os.path.join(out, tsub, p)
        bad = [d for d in (mdir, tdir) if io_counts(d, p) != (len(c["inputs"]), len(c["outputs"]))]
        if bad:
            c["verdict"], c["detail"] = "convert-failed", (
                "the module in %s has %d inputs and %d outputs, the case %d and %d"
                % ((bad[0],) + io_counts(bad[0], p) + (len(c["inputs"]), len(c["outputs"]))))
            continue
        regions, _, _ = regions_of(mdir, p)
        tregions, scratch, const = regions_of(tdir, p)
        if scratch > IMAGE_SCRATCH or const > IMAGE_CONST:
            c["verdict"], c["detail"] = "too-big", "its arenas do not fit the an547 image"
            continue
        write_glue(mdir, p, c, regions)
        if tdir != mdir:
            write_glue(tdir, p, c, tregions)
        ran.append(c)
        c["m4f"] = tdir != mdir and specialised(tdir)
        sized.append((p, scratch, const))
    images = pack(sized)
    images4 = pack([s for s, c in zip(sized, ran) if c["m4f"]])
    where = {p: k for k, im in enumerate(images) for p in im["cases"]}
    for c in ran:
        c["image"] = where[c["prefix"]]
    write_registry(os.path.join(out, "registry_host.c"), [c["prefix"] for c in ran], corpus)
    for k, im in enumerate(images):
        write_registry(os.path.join(out, "registry_m55_%d.c" % k), im["cases"], corpus)
    for k, im in enumerate(images4):
        write_registry(os.path.join(out, "registry_m4f_%d.c" % k), im["cases"], corpus)
    # the kernels every module carries, from the first module that calls
    # any (a module whose operators were all folded or aliased has none)
    with_k = [c for c in ran if os.path.isdir(os.path.join(out, "m", c["prefix"], "kernels"))]
    kdir = os.path.join(out, "m", with_k[0]["prefix"], "kernels") if with_k else ""
    tkdir = os.path.join(out, tsub, with_k[0]["prefix"], "kernels") if with_k else ""
    kernels = sorted(f[:-2] for f in os.listdir(kdir) if f.endswith(".c")) if with_k else []
    tkernels = sorted(f[:-2] for f in os.listdir(tkdir) if f.endswith(".c")) if with_k else []
    # the variants share those objects: each one's modules must carry the
    # same kernels (its first module with kernels, for either target)
    for v in variants[1:]:
        first = next((c for c in with_k if c["variant"] == v["name"]), None)
        for sub, ref in (("m", kdir), (tsub, tkdir)):
            if first and not same_files(os.path.join(out, sub, first["prefix"], "kernels"), ref):
                die("variant %s: the module of %s carries other kernels than %s: run it on its own"
                    % (v["name"], first["folder"], ref))
    mk = ["# conformance build, written by tests/conformance/conform_gen.py", "O := " + os.path.abspath(out),
          "KDIR := " + kdir, "TKDIR := " + tkdir, ""]
    mk.append("HOST_KOBJS := " + " ".join("$(O)/host/k_%s.o" % k for k in kernels))
    mk.append("M55_KOBJS := " + " ".join("$(O)/m55/k_%s.o" % k for k in tkernels))
    mk.append("$(O)/host/k_%.o: $(KDIR)/%.c\n\t@mkdir -p $(dir $@)\n\t$(HOST_CC) $(HOST_KCFLAGS) -c $< -o $@")
    mk.append("$(O)/m55/k_%.o: $(TKDIR)/%.c\n\t@mkdir -p $(dir $@)\n\t$(ARM_CC) $(M55_CFLAGS) -c $< -o $@")
    mk.append("M4F_KOBJS := " + " ".join("$(O)/m4f/k_%s.o" % k for k in tkernels))
    mk.append("$(O)/m4f/k_%.o: $(TKDIR)/%.c\n\t@mkdir -p $(dir $@)\n\t$(ARM_CC) $(M4F_CFLAGS) -c $< -o $@")
    glue_flags = "-I$(O)/%s/%s/include -I%s -I$(CONF_DIR) -D%s_WITH_KERNELS=1"
    if not with_k:  # no kernel folder to include
        glue_flags = "-I$(O)/%s/%s/include %.0s-I$(CONF_DIR) -D%s_WITH_KERNELS=1"
    for c in ran:
        p = c["prefix"]
        mk.append("$(O)/host/%s.o: $(O)/m/%s/conf_glue.c\n\t@mkdir -p $(dir $@)\n\t$(HOST_CC) $(HOST_CFLAGS) %s -c $< -o $@"
                  % (p, p, glue_flags % ("m", p, "$(KDIR)", p.upper())))
        mk.append("$(O)/m55/%s.o: $(O)/%s/%s/conf_glue.c\n\t@mkdir -p $(dir $@)\n\t$(ARM_CC) $(M55_CFLAGS) -DCONF_TARGET %s -c $< -o $@"
                  % (p, tsub, p, glue_flags % (tsub, p, "$(TKDIR)", p.upper())))
        if c["m4f"]:
            mk.append("$(O)/m4f/%s.o: $(O)/%s/%s/conf_glue.c\n\t@mkdir -p $(dir $@)\n\t$(ARM_CC) $(M4F_CFLAGS) -DCONF_TARGET %s -c $< -o $@"
                      % (p, tsub, p, glue_flags % (tsub, p, "$(TKDIR)", p.upper())))
    mk.append("HOST_OBJS := " + " ".join("$(O)/host/%s.o" % c["prefix"] for c in ran))
    mk.append("$(O)/host/registry.o: $(O)/registry_host.c\n\t$(HOST_CC) $(HOST_CFLAGS) -I$(CONF_DIR) -c $< -o $@")
    mk.append("$(O)/host/conform: $(HOST_OBJS) $(HOST_KOBJS) $(O)/host/registry.o $(HOST_SUPPORT)\n"
              "\t$(HOST_CC) $(HOST_LDFLAGS) $^ -lm -o $@")
    # the images of one core: OUT/<sub>/img<k>.elf from <VAR>_CFLAGS, _LDFLAGS, _KOBJS, _SUPPORT
    for sub, var, ims in (("m55", "M55", images), ("m4f", "M4F", images4)):
        elfs = []
        for k, im in enumerate(ims):
            objs = " ".join("$(O)/%s/%s.o" % (sub, p) for p in im["cases"])
            mk.append("$(O)/%s/registry_%d.o: $(O)/registry_%s_%d.c\n\t$(ARM_CC) $(%s_CFLAGS) -I$(CONF_DIR) -c $< -o $@"
                      % (sub, k, sub, k, var))
            mk.append("$(O)/%s/img%d.elf: %s $(O)/%s/registry_%d.o $(%s_KOBJS) $(%s_SUPPORT)\n"
                      "\t$(ARM_CC) $(%s_LDFLAGS) $^ $(M55_LIBS) -o $@" % (sub, k, objs, sub, k, var, var, var))
            elfs.append("$(O)/%s/img%d.elf" % (sub, k))
        mk.append("IMAGES%s := %s" % ("" if sub == "m55" else "4", " ".join(elfs)))
    mk.append("host: $(O)/host/conform\nimages: $(IMAGES)\nimages4: $(IMAGES4)\n.PHONY: host images images4")
    with open(os.path.join(out, "build.mk"), "w") as f:
        f.write("\n".join(mk) + "\n")
    with open(os.path.join(out, "images.txt"), "w") as f:
        f.write("".join("img%d %d\n" % (k, len(im["cases"])) for k, im in enumerate(images)))
    with open(os.path.join(out, "images4.txt"), "w") as f:
        f.write("".join("img%d %d\n" % (k, len(im["cases"])) for k, im in enumerate(images4)))
    # every case's row, so that summarise can judge entries for cases this run left out
    json.dump({c["folder"]: [c["op"], c["dtype"]] for c in cases}, open(os.path.join(out, "corpus.json"), "w"),
              indent=0, sort_keys=True)
    json.dump([{"name": v["name"], "filter": v["filter"], "args": v["args"]} for v in variants],
              open(os.path.join(out, "variants.json"), "w"), indent=0)
    keep = ("folder", "op", "dtype", "prefix", "variant", "label", "verdict", "detail", "image", "m4f")
    json.dump([{k: c[k] for k in keep if k in c} for c in todo], open(os.path.join(out, "cases.json"), "w"),
              indent=0)
    n_uns = sum(c["verdict"] == "unsupported" for c in todo)
    print("conform_gen: %d cases%s, %d converted, %d refused, %d convert failures, %d target images, "
          "%d Cortex-M4F images (%d cases with a specialised kernel)"
          % (len(todo), " of %d variants" % len(variants) if len(variants) > 1 else "", len(ran), n_uns,
             len(todo) - len(ran) - n_uns, len(images), len(images4), sum(c["m4f"] for c in ran)))


def results(log):
    """folder -> (passed, detail), from one log."""
    got = {}
    if not os.path.exists(log):
        return got
    for line in open(log, errors="replace"):
        m = re.match(r"CONF (PASS|FAIL) ([^\s:]+):? ?(.*)$", line.rstrip("\n"))
        if m:
            got.setdefault(m.group(2), (m.group(1) == "PASS", m.group(3)))
    return got


def target_results(out, sub):
    """(ran, folder -> (passed, detail)) from OUT/<sub>/*.log."""
    d = os.path.join(out, sub)
    if not os.path.isdir(d) or not any(f.endswith(".log") for f in os.listdir(d)):
        return False, {}
    got = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".log"):
            got.update(results(os.path.join(d, f)))
    return True, got


def load_refusals(path):
    """The "case OP DTYPE FOLDER REASON" lines of the expected refusals, in
    order: dicts of op, dtype, folder, reason and line.  A malformed line,
    or a folder listed twice, ends the program."""
    entries, seen = [], {}
    for n, line in enumerate(open(path), 1):
        f = line.strip().split(None, 4)
        if not f or f[0].startswith("#") or f[0] != "case":
            continue
        if len(f) != 5:
            die("%s:%d: expected 'case OP DTYPE FOLDER REASON'" % (path, n))
        if f[3] in seen:
            die("%s:%d: case %s is listed already, on line %d" % (path, n, f[3], seen[f[3]]))
        seen[f[3]] = n
        entries.append({"op": f[1], "dtype": f[2], "folder": f[3], "reason": f[4], "line": n})
    return entries


def refusal_failures(path, entries, corpus, cases):
    """What is wrong between the expected refusals (entries, read from
    path) and this run's verdicts (cases: those of the run, each with
    folder, op, dtype, verdict, detail; corpus: folder -> [op, dtype] of
    every case of the corpus).  Returns (failures, folder -> entry of the
    cases refused as listed)."""
    failures, refused = [], {}
    listed = {e["folder"]: e for e in entries}
    for e in entries:
        row = corpus.get(e["folder"])
        if row is None:
            failures.append("%s:%d: the corpus has no case %s" % (path, e["line"], e["folder"]))
        elif row != [e["op"], e["dtype"]]:
            failures.append("%s:%d: %s is a case of %s %s, not of %s %s"
                            % (path, e["line"], e["folder"], row[0], row[1], e["op"], e["dtype"]))
    for c in cases:
        e = listed.get(c["folder"])
        if c["verdict"] == "unsupported":
            if e is None:
                failures.append("%s: convert refused it, and %s does not list it: %s"
                                % (c["folder"], path, c["detail"]))
            elif not c["detail"].startswith(e["reason"]):
                failures.append("%s: %s:%d lists it as refused with \"%s\", but convert says \"%s\""
                                % (c["folder"], path, e["line"], e["reason"], c["detail"]))
            else:
                refused[c["folder"]] = e
        elif e is not None and c["verdict"] == "ran":
            failures.append("%s:%d: stale: %s is listed as refused (\"%s\") but converts now: delete the line"
                            % (path, e["line"], c["folder"], e["reason"]))
    return failures, refused


def summarise(args):
    """Judge every variant of the run on its own (its table, its refusals,
    its failures); 1 when any of them failed."""
    out = args["out"]
    cases = json.load(open(os.path.join(out, "cases.json")))
    corpus = json.load(open(os.path.join(out, "corpus.json")))
    vpath = os.path.join(out, "variants.json")
    variants = json.load(open(vpath)) if os.path.exists(vpath) else [{"name": "", "filter": "", "args": []}]
    refusals_path = args.get("refusals") or REFUSALS
    refusals = load_refusals(refusals_path)
    host = results(os.path.join(out, "host.log"))
    have_m55, m55 = target_results(out, "m55")
    have_m55 = have_m55 and os.path.exists(os.path.join(out, "images.txt"))
    have_m4f, m4f = target_results(out, "m4f")
    shown = os.path.relpath(refusals_path)
    shown = refusals_path if shown.startswith("..") else shown
    status = 0
    for k, v in enumerate(variants):
        vcases = [c for c in cases if c.get("variant", "") == v["name"]]
        if len(variants) > 1:
            print("%s== variant %s: the cases matching '%s', converted with %s"
                  % ("\n" if k else "", v["name"], v["filter"], " ".join(v["args"]) or "no option"))
        status |= summarise_variant(v["name"], vcases, corpus, refusals, shown, host,
                                    m55 if have_m55 else None, m4f if have_m4f else None)
    return status


def summarise_variant(name, cases, corpus, refusals, shown, host, m55, m4f):
    """The table, the expected refusals and the failures of one variant's
    cases (m55, m4f: None when those runs did not happen); 1 when it
    failed.  Its last line is "conformance[ NAME]: ..."."""
    have_m55, have_m4f = m55 is not None, m4f is not None
    failures, refused = refusal_failures(shown, refusals, corpus, cases)
    rows, order = {}, []
    for c in cases:
        key = (c["op"], c["dtype"])
        if key not in rows:
            rows[key] = dict(cases=0, ran=0, host=0, m55=0, m4f_ran=0, m4f=0, refused=0, inexact=0)
            order.append(key)
        r = rows[key]
        r["cases"] += 1
        if c["verdict"] == "unsupported":  # judged by refusal_failures
            r["refused"] += c["folder"] in refused
            continue
        if c["verdict"] != "ran":
            failures.append("%s: %s" % (c["folder"], c["detail"]))
            continue
        r["ran"] += 1
        inexact = False
        runs = [(host, "host"), (m55, "m55")] if have_m55 else [(host, "host")]
        if have_m4f and c.get("m4f"):
            r["m4f_ran"] += 1
            runs.append((m4f, "m4f"))
        for where, core in runs:
            passed, detail = where.get(c.get("label", c["folder"]), (False, "no result (the run stopped before it)"))
            if passed:
                r[core] += 1
                inexact |= detail != ""
            else:
                failures.append("%s (%s): %s" % (c["folder"], core, detail))
        r["inexact"] += inexact
    w = max([len("%s %s" % k) for k in order] + [20])

    def m4f_cell(r):
        return "%d/%d" % (r["m4f"], r["m4f_ran"]) if have_m4f else "-"
    print("%-*s %6s %6s %8s %8s %8s %8s %8s" % (w, "operator dtype", "cases", "ran", "host ok",
                                                "m55 ok" if have_m55 else "m55", "m4f ok", "refused",
                                                "inexact"))
    tot = dict(cases=0, ran=0, host=0, m55=0, m4f_ran=0, m4f=0, refused=0, inexact=0)
    for key in order:
        r = rows[key]
        for k in tot:
            tot[k] += r[k]
        print("%-*s %6d %6d %8d %8s %8s %8d %8d" % (w, "%s %s" % key, r["cases"], r["ran"], r["host"],
                                                    r["m55"] if have_m55 else "-", m4f_cell(r),
                                                    r["refused"], r["inexact"]))
    print("%-*s %6d %6d %8d %8s %8s %8d %8d" % (w, "total", tot["cases"], tot["ran"], tot["host"],
                                                tot["m55"] if have_m55 else "-", m4f_cell(tot),
                                                tot["refused"], tot["inexact"]))
    print("(m4f ok: of the cases whose Cortex-M target module runs a specialised kernel, those that "
          "matched on the Cortex-M4F)")
    print("(refused: convert refused the case as the expected refusals list it)")
    print("(inexact: float32 cases that matched within the tolerance, not bit for bit, somewhere)")
    ran = {c["folder"] for c in cases}
    print("\nexpected refusals (%s):%s" % (shown, "" if refusals else " none"))
    for e in refusals:
        print("  %-8s %-28s %s" % ("refused" if e["folder"] in refused else "FAIL" if e["folder"] in ran else "not run",
                                   e["folder"], e["reason"]))
    what = "conformance%s:" % (" " + name if name else "")
    if failures:
        print("\n%d failures:" % len(failures))
        for f in failures:
            print("  FAIL %s%s" % ("%s: " % name if name else "", f))
        print("%s FAIL: %d failures" % (what, len(failures)))
        return 1
    print("\n%s %d of %d converted cases match TFLM on the host%s%s; %d refused as expected"
          % (what, tot["host"], tot["ran"], " and on the Cortex-M55" if have_m55 else "",
             " (%d with a specialised kernel on the Cortex-M4F too)" % tot["m4f"] if have_m4f else "",
             tot["refused"]))
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ("generate", "summarise"):
        die(__doc__.split("\n\n")[1])
    args = {"out": argv[2]}
    i = 3
    while i < len(argv):
        if not argv[i].startswith("--") or i + 1 >= len(argv):
            die("bad argument " + argv[i])
        args[argv[i][2:]] = argv[i + 1]
        i += 2
    if argv[1] == "generate":
        for k in ("corpus", "memplan"):
            if k not in args:
                die("generate needs --" + k)
        generate(args)
        return 0
    return summarise(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
