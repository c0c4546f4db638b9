#!/usr/bin/env python3
"""operator_table.py — the README's operator table, written from the
conformance corpus's manifest and the expected refusals.

    operator_table.py [--corpus DIR] [--refusals FILE] [--write FILE | --check FILE]

Prints the table: one row per operator of the manifest, its cases per
element type (int8, int16, float32, then the other types and conversions),
and the cases `memplan convert` refuses today with the reason it gives
(the "case" lines of tests/expected_refusals.txt).  The counts are the
manifest's; every case convert accepts must match TFLM and every case it
refuses must be listed, or the conformance suite fails, so the table says
what that suite proves.  Then one line of totals.

--write FILE replaces the table in FILE (between the two marker comments
below) with the one printed; --check FILE exits 1, printing the difference,
when FILE's table is not the one printed (tests/suite_readme.sh).  DIR is
$MEMPLAN_CONFORMANCE, default ../shared/conformance; FILE for the
refusals is $MEMPLAN_EXPECTED_REFUSALS, default tests/expected_refusals.txt.
It does not run memplan: the suites do.
"""
import difflib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conform_gen  # noqa: E402  (the list's reader)

BEGIN = ("<!-- the operator table: written by tests/conformance/operator_table.py from the "
         "conformance corpus and tests/expected_refusals.txt; do not edit -->")
END = "<!-- end of the operator table -->"
COLUMNS = ["int8", "int16", "float32"]


def die(msg):
    sys.exit("operator_table: " + msg)


def thousands(n):
    return "{:,}".format(n)


def type_name(dtype):
    return dtype.replace("_to_", " to ")


def cell(folders, refused):
    """A row's cases of one type: the total, each variant folder's share
    (its suffix after the type: "edge scales"), the cases refused."""
    total = sum(folders.values())
    text = str(total)
    if len(folders) > 1:
        names = sorted(folders, key=len)
        base = names[0]
        parts = [str(folders[base])] + ["%d %s" % (folders[f], f[len(base) + 1:].replace("_", " "))
                                        for f in names[1:]]
        text += " (%s)" % ", ".join(parts)
    if refused:
        text += ", %d refused" % refused
    return text


def table(manifest, entries, path):
    cases = manifest["cases"]
    rows, order = {}, []
    for c in cases:
        if c["op"] not in rows:
            rows[c["op"]] = {}
            order.append(c["op"])
        folders = rows[c["op"]].setdefault(c["dtype"], {})
        folder = c["folder"].split("/")[0]
        folders[folder] = folders.get(folder, 0) + 1
    corpus = {c["folder"]: [c["op"], c["dtype"]] for c in cases}
    for e in entries:
        row = corpus.get(e["folder"])
        if row is None:
            die("%s:%d: the corpus has no case %s" % (path, e["line"], e["folder"]))
        if row != [e["op"], e["dtype"]]:
            die("%s:%d: %s is a case of %s %s, not of %s %s"
                % (path, e["line"], e["folder"], row[0], row[1], e["op"], e["dtype"]))
    lines = [BEGIN, "",
             "| operator | int8 | int16 | float32 | other types | refused by `convert` today |",
             "| --- | ---: | ---: | ---: | --- | --- |"]
    for op in sorted(order):
        types = rows[op]
        refused = {}
        for e in entries:
            if e["op"] == op:
                refused.setdefault(e["dtype"], []).append(e)
        cells = [cell(types[t], len(refused.get(t, []))) if t in types else "—" for t in COLUMNS]
        others = ", ".join("%s: %s" % (type_name(t), cell(types[t], len(refused.get(t, []))))
                           for t in sorted(types) if t not in COLUMNS)
        reasons = {}
        for t in sorted(refused, key=lambda t: (t not in COLUMNS, COLUMNS.index(t) if t in COLUMNS else t)):
            for e in refused[t]:
                why = e["reason"][len(op) + 2:] if e["reason"].startswith(op + ": ") else e["reason"]
                reasons.setdefault(why, {}).setdefault(t, 0)
                reasons[why][t] += 1
        said = "; ".join("%s: %s" % (", ".join("%s %d" % (type_name(t), n) for t, n in per.items()), why)
                         for why, per in reasons.items())
        lines.append("| %s | %s | %s | %s |" % (op, " | ".join(cells), others or "", said))
    n_refused = len(entries)
    said = ("`convert` accepts all of them, each matching TFLM" if not n_refused else
            "`convert` accepts %s, each matching TFLM, and refuses %d, as `tests/expected_refusals.txt` lists"
            % (thousands(len(cases) - n_refused), n_refused))
    lines += ["", "%s cases in %d rows (operator, type): %s."
              % (thousands(len(cases)), sum(len(t) for t in rows.values()), said), "", END]
    return "\n".join(lines) + "\n"


def main(argv):
    args, i = {}, 1
    while i < len(argv):
        if argv[i] not in ("--corpus", "--refusals", "--write", "--check") or i + 1 >= len(argv):
            die("bad argument %s\n%s" % (argv[i], __doc__.split("\n\n")[1]))
        args[argv[i][2:]] = argv[i + 1]
        i += 2
    if "write" in args and "check" in args:
        die("--write or --check, not both")
    corpus = args.get("corpus") or os.environ.get("MEMPLAN_CONFORMANCE") or "../shared/conformance"
    path = args.get("refusals") or conform_gen.REFUSALS
    manifest = json.load(open(os.path.join(corpus, "manifest.json")))
    text = table(manifest, conform_gen.load_refusals(path), path)
    target = args.get("write") or args.get("check")
    if not target:
        sys.stdout.write(text)
        return 0
    doc = open(target).read()
    a, b = doc.find(BEGIN), doc.find(END)
    if a < 0 or b < a:
        die("%s has no operator table between the markers '%s' and '%s'" % (target, BEGIN, END))
    have = doc[a:b + len(END) + 1]
    if "write" in args:
        with open(target, "w") as f:
            f.write(doc[:a] + text + doc[b + len(END) + 1:])
        return 0
    if have == text:
        print("ok   %s: the operator table is the one the corpus and the expected refusals give" % target)
        return 0
    print("FAIL %s: the operator table differs from what tests/conformance/operator_table.py writes "
          "(run it with --write %s):" % (target, target))
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), text.splitlines(True),
                                               target, "generated", n=0))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
