#!/usr/bin/env python3
"""check_readme_blocks.py — every tool output block of a Markdown file is
what the tool prints today.

A tool output block is a fenced block (``` with no language) whose first
line is a command: `$ build/release/memplan ...` or `$ build/release/mkmodel
...`.  Its `$ ` lines are run in order, in a scratch copy of the
repository's examples/ folder, with build/release/ standing for the folder
of the binaries under test; an HTML comment `<!-- setup: SHELL -->` on the
line just before the fence runs first (to make a typo'd config, a truncated
model).  Every other line of the block is expected output (stdout and
stderr together), in order: consecutive lines must be consecutive in the
output, and a line `...` stands for any number of lines.  A block with no
expected line is refused, as is a file with no tool output block.

usage: check_readme_blocks.py FILE.md BINDIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOL = re.compile(r"^\$ build/release/(memplan|mkmodel)\b")


def blocks(text):
    """(line number, setup or None, lines) of each tool output block."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            body = lines[i + 1:j]
            if lines[i].strip() == "```" and body and TOOL.match(body[0]):
                setup = None
                m = re.match(r"^<!-- setup: (.*) -->$", lines[i - 1]) if i else None
                if m:
                    setup = m.group(1)
                out.append((i + 1, setup, body))
            i = j + 1
        else:
            i += 1
    return out


def matches(want, got):
    """Does `got` hold `want` in order, `...` skipping lines?  Returns None or
    the first expected line not found."""
    pos = 0
    free = True  # the next expected line may come anywhere from pos on
    for w in want:
        if w == "...":
            free = True
            continue
        if free:
            k = pos
            while k < len(got) and got[k] != w:
                k += 1
            if k == len(got):
                return w
            pos = k + 1
        else:
            if pos >= len(got) or got[pos] != w:
                return w
            pos += 1
        free = False
    return None


def main():
    path, bindir = sys.argv[1], os.path.abspath(sys.argv[2])
    root = os.path.dirname(os.path.abspath(path))
    with open(path, encoding="utf-8") as f:
        found = blocks(f.read())
    if not found:
        print(f"FAIL {path}: no tool output block")
        return 1
    fail = 0
    for line, setup, body in found:
        cmds = [b[2:] for b in body if b.startswith("$ ")]
        want = [b.rstrip() for b in body if not b.startswith("$ ")]
        if not [w for w in want if w != "..."]:
            print(f"FAIL {path}:{line}: a tool output block with no expected output")
            fail += 1
            continue
        tmp = tempfile.mkdtemp()
        try:
            shutil.copytree(os.path.join(root, "examples"), os.path.join(tmp, "examples"))
            got = []
            script = [setup] if setup else []
            for c in cmds:
                script.append(c.replace("build/release/", bindir + "/", 1))
            for c in script:
                r = subprocess.run(["bash", "-c", c + " 2>&1"], cwd=tmp, stdout=subprocess.PIPE)
                got += r.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
            miss = matches(want, [g.rstrip() for g in got])
            if miss is None:
                print(f"ok   {path}:{line}: {cmds[0][:60]}")
            else:
                print(f"FAIL {path}:{line}: {cmds[0]}: the tool no longer prints:\n    {miss}")
                print("  it prints:")
                for g in got[:60]:
                    print("    " + g)
                fail += 1
        finally:
            shutil.rmtree(tmp)
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
