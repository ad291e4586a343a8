#!/usr/bin/env python3
"""README.md against the tree (issue 15).

  check_readme.py            check: README starts with its two commands (run, then test), and
                             its map names every folder, firmware source, document and tool
  check_readme.py --commands print the two commands, one a line (what .ci/run executes)

The map is the code block under "## Map of the tree". A folder is named as `name/`, a firmware
source (.c/.S under boot/ kernel/ drivers/ net/ apps/) by its stem as a word, a docs/ or tools/
file by its name. Only files git tracks count, so build outputs never need a mention.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FIRMWARE_FLOORS = ("boot", "kernel", "drivers", "net", "apps")


def code_blocks(text):
    """(heading the block is under, its lines) for every fenced block, in order."""
    blocks, heading, inside, lines = [], None, False, []
    for line in text.splitlines():
        if line.startswith("```"):
            if inside:
                blocks.append((heading, lines))
            inside, lines = not inside, []
        elif inside:
            lines.append(line)
        elif line.startswith("#"):
            heading = line.lstrip("#").strip()
    return blocks


def readme_commands(text):
    """The first code block's commands, comments stripped. It must come before any heading."""
    blocks = code_blocks(text)
    if not blocks or blocks[0][0] not in (None, "wirespeed"):
        raise ValueError("README.md must open with a code block holding its two commands")
    cmds = [ln.split("#", 1)[0].strip() for ln in blocks[0][1]]
    cmds = [c for c in cmds if c]
    if len(cmds) != 2:
        raise ValueError(f"README.md's first code block must hold exactly two commands "
                         f"(run, then test), not {len(cmds)}: {cmds}")
    return cmds


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [f for f in out.split("\0") if f and os.path.exists(os.path.join(ROOT, f))]


def missing_from_map(map_text, files):
    """Everything the map must name and does not, as readable lines."""
    missing = []
    dirs = sorted({"/".join(f.split("/")[:d]) for f in files
                   for d in (1, 2) if f.count("/") >= d})
    for d in dirs:
        if f"{d.split('/')[-1]}/" not in map_text:
            missing.append(f"folder {d}/")
    for f in files:
        parts = f.split("/")
        if len(parts) == 2 and parts[0] in ("docs", "tools"):
            if not re.search(r"(?<![\w.-])" + re.escape(parts[1]) + r"(?![\w-])", map_text):
                missing.append(f"file {f}")
        elif parts[0] in FIRMWARE_FLOORS and f.endswith((".c", ".S")):
            stem = os.path.splitext(parts[-1])[0]
            if not re.search(r"\b" + re.escape(stem) + r"\b", map_text):
                missing.append(f"source {f}")
    return missing


def main():
    text = open(os.path.join(ROOT, "README.md")).read()
    try:
        cmds = readme_commands(text)
    except ValueError as e:
        print(f"check-readme: {e}", file=sys.stderr)
        return 1
    if sys.argv[1:] == ["--commands"]:
        print("\n".join(cmds))
        return 0
    maps = [lines for heading, lines in code_blocks(text) if heading == "Map of the tree"]
    if len(maps) != 1:
        print("check-readme: README.md needs one code block under '## Map of the tree'",
              file=sys.stderr)
        return 1
    missing = missing_from_map("\n".join(maps[0]), tracked_files())
    for m in missing:
        print(f"check-readme: README.md's map does not name {m}", file=sys.stderr)
    if missing:
        print(f"check-readme: {len(missing)} missing; add them to the map under "
              "'## Map of the tree'", file=sys.stderr)
        return 1
    print(f"check-readme: commands {cmds[0]!r} and {cmds[1]!r}; the map names the whole tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
