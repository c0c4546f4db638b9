#!/usr/bin/env python3
"""check_tables.py REPORT.json MODEL.o [ELF]
   check_tables.py --batch LIST   (LIST: lines "NAME REPORT.json MODEL.o")
The module's own tables of a residency report (module_tables) against the
cross-compiled module.

MODEL.o is src/<p>_model.c compiled for a 32-bit target with
-fdata-sections.  Checked with arm-none-eabi-nm -S and arm-none-eabi-size -A:
  - every data object of MODEL.o is a reported table, of the reported size
    and section (.rodata, .data, .bss);
  - a reported table the object lacks is one the compiler folded into
    code (a table read only at constant indices: the I/O and CRC tables,
    and the region and kernel tables of a one-region, one-operator model);
    the report is then an upper bound by that table's bytes;
  - the object's .rodata, .data and .bss sections add up to the report's
    rodata, data and bss less the folded tables, byte for byte.
With ELF (a linked image), every reported read-only table the image holds
must lie in the address range of the report's memory, given as
--range LO:HI (hex).
Prints one line per problem; exits 1 on any."""
import json, subprocess, sys

NM, SIZE = "arm-none-eabi-nm", "arm-none-eabi-size"


def symbols(path):
    out = subprocess.run([NM, "-S", path], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2].lower() in "rdb":
            syms[f[3]] = (int(f[0], 16), int(f[1], 16), f[2].lower())
    return syms


def sections(path):
    out = subprocess.run([SIZE, "-A", path], check=True, capture_output=True, text=True).stdout
    tot = {"rodata": 0, "data": 0, "bss": 0}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or not f[0].startswith("."):
            continue
        for k in tot:
            if f[0] == "." + k or f[0].startswith("." + k + "."):
                tot[k] += int(f[1])
    return tot


def check(report, obj, elf=None, rng=None):
    """The problems found, and the bytes folded into code."""
    rep = json.load(open(report))
    t = rep.get("module_tables")
    if t is None:
        return ["no module_tables"], 0, None
    items = {it["symbol"]: it for it in t["items"]}
    kind = {"rodata": "r", "data": "d", "bss": "b"}
    bad = []
    objs = symbols(obj)
    for name, (_, size, k) in sorted(objs.items()):
        it = items.get(name)
        if it is None:
            bad.append(f"{name}: a {size}-byte object the report does not count")
        elif it["size"] != size or kind[it["section"]] != k:
            bad.append(f"{name}: {size} bytes in '{k}', reported {it['size']} in {it['section']}")
    folded = {"rodata": 0, "data": 0, "bss": 0}
    for name, it in items.items():
        if name not in objs:
            folded[it["section"]] += it["size"]
    tot = sections(obj)
    for k in tot:
        if tot[k] != t[k] - folded[k]:
            bad.append(f".{k}: the object holds {tot[k]} bytes, the report {t[k]} "
                       f"({folded[k]} folded into code)")
    if sum(it["size"] for it in t["items"] if it["params"]) != t["params"]:
        bad.append("params is not the sum of the params tables")
    if elf:
        img = symbols(elf)
        for name, it in items.items():
            if it["section"] != "rodata" or name not in img:
                continue
            addr, size, _ = img[name]
            if size != it["size"]:
                bad.append(f"{name}: {size} bytes in the image, reported {it['size']}")
            if rng and not (rng[0] <= addr and addr + size <= rng[1]):
                bad.append(f"{name}: at 0x{addr:08x}, outside {t['memory']} "
                           f"[0x{rng[0]:08x}, 0x{rng[1]:08x})")
    return bad, sum(folded.values()), t


def main(argv):
    if len(argv) == 3 and argv[1] == "--batch":
        n_bad = 0
        for line in open(argv[2]):
            name, report, obj = line.split()
            bad, folded, t = check(report, obj)
            if bad:
                n_bad += 1
                print(f"FAIL {name}:")
                for b in bad:
                    print(f"    {b}")
            else:
                print(f"ok   {name}: {t['rodata']} B rodata, {t['data']} B data, {t['bss']} B bss, "
                      f"exact; folded into code: {folded} bytes")
        return 1 if n_bad else 0
    rng = None
    if "--range" in argv:
        i = argv.index("--range")
        lo, hi = argv[i + 1].split(":")
        rng = (int(lo, 16), int(hi, 16))
        del argv[i:i + 2]
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    bad, folded, _ = check(argv[1], argv[2], argv[3] if len(argv) == 4 else None, rng)
    for b in bad:
        print(f"{argv[1]}: {b}")
    if not bad:
        print(f"exact; folded into code: {folded} bytes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
