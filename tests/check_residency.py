#!/usr/bin/env python3
"""check_residency.py — validate memplan residency reports.

usage: check_residency.py [--models DIR ...] -- REPORT.json ...
       check_residency.py REPORT.json ...

Each report must validate against docs/residency.schema.json and be
consistent with itself and with the files it names:
  - model.ops / model.tensors count the ops and the tensor ids;
  - every tensor's region, lifetime, alias and placement reason points at
    something that exists (a spilled tensor's op lies in its lifetime);
  - module_tables adds up (its items per section, its params) and each
    memory's `tables` is the read-only tables' bytes when they live there;
  - every sidecar file exists beside the report with the recorded size and
    CRC-32 (zlib's);
  - model.sha256 is the SHA-256 of the model, when a file of that name is
    in the report's folder, the current one or a --models folder.
Prints one line per report and exits 1 when any fails.
"""
import hashlib
import json
import os
import sys
import zlib

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = json.load(open(os.path.join(ROOT, "docs", "residency.schema.json")))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def problems(path):
    try:
        rep = json.load(open(path))
    except (OSError, ValueError) as e:
        yield f"cannot read: {e}"
        return
    errs = sorted(VALIDATOR.iter_errors(rep), key=lambda e: list(e.absolute_path))
    for e in errs[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        yield f"schema: at {where}: {e.message}"
    if errs:
        return
    m = rep["model"]
    ops, tensors, arenas = rep["ops"], rep["tensors"], rep["arenas"]
    pl = rep["planner"]
    if ("in_place_mode" in pl) != bool(pl.get("in_place")):
        yield f"planner: in_place {pl.get('in_place')} with in_place_mode {pl.get('in_place_mode')}"
    serial = [o["index"] for o in ops if "_serial" in (o.get("kernel") or "")]
    cs = pl.get("channel_serial")
    if cs is None and serial:
        yield f"ops {serial} run channel by channel, and planner.channel_serial is absent"
    if cs is not None:
        if pl.get("in_place_mode") != "size":
            yield f"planner.channel_serial with in_place_mode {pl.get('in_place_mode')}"
        if cs["ops"] != serial:
            yield f"planner.channel_serial.ops {cs['ops']}, the ops' kernels say {serial}"
        if not cs["inplace_bound"] < cs["inplace_bound_before"]:
            yield ("channel-serial kernels did not lower the in-place bound "
                   f"({cs['inplace_bound_before']} -> {cs['inplace_bound']})")
        scratch = sum(a["size"] for a in arenas if a["role"] == "scratch")
        if cs["scratch"] != scratch:
            yield f"planner.channel_serial.scratch {cs['scratch']}, the scratch arenas add up to {scratch}"
    if m["ops"] != len(ops):
        yield f"model.ops is {m['ops']} but ops lists {len(ops)}"
    if [o["index"] for o in ops] != list(range(len(ops))):
        yield "ops are not indexed 0..n-1 in order"
    for o in ops:
        for t in o["inputs"] + o["outputs"]:
            if t >= m["tensors"]:
                yield f"op {o['index']} names tensor {t}, beyond model.tensors {m['tensors']}"
    regions = {a["region_id"] for a in arenas} | {a["source_region_id"] for a in arenas if "source_region_id" in a}
    ids = {t["id"] for t in tensors}
    for t in tensors:
        tid = t["id"]
        if t["region_id"] not in regions:
            yield f"tensor {tid}: region {t['region_id']} is not an arena"
        if (t["start_op"] is None) != (t["role"] != "scratch"):
            yield f"tensor {tid}: a {t['role']} tensor with start_op {t['start_op']}"
        if t["start_op"] is not None and not 0 <= t["start_op"] <= t["end_op"] < len(ops):
            yield f"tensor {tid}: lifetime [{t['start_op']}, {t['end_op']}] outside the {len(ops)} ops"
        if t["alias_of"] is not None and t["alias_of"] not in ids:
            yield f"tensor {tid}: alias_of {t['alias_of']} is not a placed tensor"
        r = t["placement_reason"]
        # a view shares its root's storage, and with it the root's pin
        if (r["kind"] == "pinned" and not t["pinned"]) or (t["pinned"] and r["kind"] not in ("pinned", "alias")):
            yield f"tensor {tid}: pinned is {t['pinned']} but the reason is {r['kind']}"
        if r["kind"] == "alias" and r["alias_of"] != t["alias_of"]:
            yield f"tensor {tid}: the reason names alias {r['alias_of']}, alias_of is {t['alias_of']}"
        if r["kind"] == "spilled":
            s = r["spilled_from"]
            if s["memory"] == t["memory"]:
                yield f"tensor {tid}: spilled from {s['memory']}, where it is"
            if s["at_op"] is not None and not t["start_op"] <= s["at_op"] <= t["end_op"]:
                yield f"tensor {tid}: spilled at op {s['at_op']}, outside its lifetime"
    mt = rep.get("module_tables")
    if mt is not None:
        for sec in ("rodata", "data", "bss"):
            total = sum(i["size"] for i in mt["items"] if i["section"] == sec)
            if total != mt[sec]:
                yield f"module_tables.{sec} is {mt[sec]}, its items add up to {total}"
        if sum(i["size"] for i in mt["items"] if i["params"]) != mt["params"]:
            yield "module_tables.params is not the sum of its params items"
        names = [i["symbol"] for i in mt["items"]]
        if len(set(names)) != len(names):
            yield "module_tables: a symbol is listed twice"
        for mu in rep["memories"]:
            want = mt["rodata"] if mu["memory"] == mt["memory"] else 0
            if mu.get("tables") != want:
                yield f"memory {mu['memory']}: tables {mu.get('tables')}, module_tables says {want}"
    folder = os.path.dirname(os.path.abspath(path))
    for s in rep["sidecars"]:
        f = os.path.join(folder, s["file"])
        if s["region_id"] not in regions:
            yield f"sidecar {s['file']}: region {s['region_id']} is not an arena"
        try:
            data = open(f, "rb").read()
        except OSError:
            yield f"sidecar {s['file']} is missing"
            continue
        if len(data) != s["size"]:
            yield f"sidecar {s['file']}: {len(data)} bytes, the report says {s['size']}"
        if zlib.crc32(data) != s["crc32"]:
            yield f"sidecar {s['file']}: CRC-32 {zlib.crc32(data)}, the report says {s['crc32']}"
    if m["path"] != m["file"]:
        yield f"model.path {m['path']} is not the file name {m['file']}"
    for d in [folder, "."] + MODEL_DIRS:
        f = os.path.join(d, m["file"])
        if os.path.isfile(f):
            digest = hashlib.sha256(open(f, "rb").read()).hexdigest()
            if digest != m["sha256"]:
                yield f"model.sha256 {m['sha256']} is not the SHA-256 of {f} ({digest})"
            HASHED.append(f)
            break


MODEL_DIRS = []
HASHED = []


def main(argv):
    if "--" in argv:
        cut = argv.index("--")
        opts, argv = argv[:cut], argv[cut + 1:]
        if opts[:1] != ["--models"]:
            print(__doc__, file=sys.stderr)
            return 2
        MODEL_DIRS.extend(opts[1:])
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for path in argv:
        found = list(problems(path))
        if found:
            bad += 1
            print(f"FAIL {path}")
            for p in found:
                print(f"     {p}")
    print(f"{len(argv) - bad} of {len(argv)} residency reports valid ({len(HASHED)} model hashes checked)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
