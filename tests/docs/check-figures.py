#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every measured figure in the docs names its command, commit and machine.

    check-figures.py ROOT [FILE.md...]   check (default: README.md docs/*.md)
    check-figures.py --self-test ROOT    the rule on known cases, the tree,
                                         and a scratch copy with a figure's
                                         commit removed: must fail
    check-figures.py --planted ROOT      only that scratch copy (exit 1)

A section is the text between two headings.  It holds measured figures
when it says "measured" (in its heading or text) and has a table with a
short cell that carries a number with a unit (12 ms, 2.82x, 41%, 1.5
us/op; a header row does not count), or when a paragraph of its prose
says "measured" (not "the measured ...") and has such a number.  Such a section must
name, outside code:

  - the commit: "measured at commit `0faa28f`" (also "at `0faa28f`",
    "measured for 0d43130"): seven or more hex digits in a code span or
    bare, after "at" or "for"; in a git checkout the commit must exist;
  - the machine: "on the 2-vCPU AMD EPYC development VM", "on an Intel
    Xeon VM", "on the development VM" (the words "on", then within a few
    words "VM", "machine", "host" or a CPU's name);
  - the command: a code span or fenced block that runs something
    (hvbench, ctest, make, scripts/..., a .py or .sh, perf, valgrind).

The seed's own figures are quoted, not measured: a section that says none
of "measured", "here", "this machine", "this VM" about its table is a
quotation (the seeds' threads), and passes.  Exit 0 when every section
passes, 1 naming each that does not (FILE:LINE: heading: what is
missing), 2 on bad usage.  The figures of earlier runs that `hvbench
reproduce` prints (`.earlier` in harness/reproduce/reproduce_seeds.c) are
held to the same rule: "at COMMIT (YYYY-MM-DD) on MACHINE".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^\s*(```+|~~~+)')
ATX = re.compile(r'^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*$')
UNIT = (r'(?:ns|us|µs|ms|s|min|x|×|%|MiB/s|GiB/s|MB/s|GB/s|MiB|GiB|KiB|MB|'
        r'GB|KB|cycles|instructions)')
FIGURE = re.compile(r'(?<![\w.])[~≈]?\d[\d,]*(?:\.\d+)?\s?' + UNIT +
                    r'(?:/(?:op|page|s|request))?(?![\w])')
TABLE_ROW = re.compile(r'^\s*\|.*\|\s*$')
TABLE_SEP = re.compile(r'^\s*\|?\s*:?-{3,}')
MEASURED = re.compile(r'(?<!the )(?<!a )(?<!he )(?<!she )(?<!they )'
                      r'\b(?:[Mm]easured|[Mm]easures|on this machine|'
                      r'on this VM|[Mm]easured here)\b(?! by)')
# A confidence level is not a measured figure.
LEVEL = re.compile(r'\b9[059]%\s*(?:confidence|CI|interval)|'
                   r'bootstrap 9[059]%')
# A link to another document's section cites the figure's provenance there.
CITES = re.compile(r'\]\([\w./-]*\.md#[\w-]+\)')
COMMIT = re.compile(r'\b(?:at|for|commit)\s+(?:commit\s+)?`?([0-9a-f]{7,40})`?'
                    r'(?![\w])')
MACHINE = re.compile(r'\b[Oo]n\s+(?:\S+\s+){0,6}?(?:\S*VM|machine|host|'
                     r'EPYC|Xeon|Opteron|runner)s?\b', re.S)
COMMAND = re.compile(r'\b(?:hvbench|ctest|make|perf|valgrind|python3|'
                     r'scripts/[\w./-]+|[\w./-]+\.(?:py|sh))\b')
CODESPAN = re.compile(r'(`+)(.+?)\1')


def sections(lines):
    """(line number, heading, [(line number, text, in code)]) per section."""
    out, cur, fence = [], (1, "(top)", []), None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0]
            cur[2].append((n, line, True))
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence:
                fence = None
            cur[2].append((n, line, True))
            continue
        h = ATX.match(line)
        if h:
            out.append(cur)
            cur = (n, h.group(2), [])
            continue
        cur[2].append((n, line, False))
    out.append(cur)
    return out


def commit_exists(root, c):
    if not os.path.isdir(os.path.join(root, ".git")) and \
            not os.path.isfile(os.path.join(root, ".git")):
        return True
    r = subprocess.run(["git", "-C", root, "cat-file", "-e", c + "^{commit}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def figures_in_table(body):
    """A table's body row (not header, not separator) with a figure."""
    rows = [(n, t) for n, t, code in body if not code and TABLE_ROW.match(t)]
    for i, (n, t) in enumerate(rows):
        if TABLE_SEP.match(t):
            continue
        if i + 1 < len(rows) and TABLE_SEP.match(rows[i + 1][1]):
            continue  # a header row
        cells = [c.strip() for c in CODESPAN.sub("", t).strip().strip("|")
                 .split("|")]
        # A figure's cell is short ("2.80%", "48 / 25 ms = 1.92x"); a
        # reference table's long descriptions may name units too.
        if any(len(c) <= 48 and len(c.split()) <= 8 and FIGURE.search(c)
               for c in cells):
            return n
    return None


def check_section(root, path, sec):
    start, heading, body = sec
    prose = "\n".join(CODESPAN.sub(lambda m: " " + m.group(2) + " ", t)
                      for _, t, code in body if not code)
    plain = "\n".join(CODESPAN.sub(" ", t) for _, t, code in body if not code)
    table = figures_in_table(body)
    said = bool(MEASURED.search(heading + "\n" + plain))
    prose_fig = None
    para, first = "", None
    for n, t, code in body + [(0, "", False)]:
        if code or TABLE_ROW.match(t) or not t.strip():
            para = LEVEL.sub(" ", para)
            if MEASURED.search(para) and FIGURE.search(para) and \
                    not CITES.search(para):
                prose_fig = first
                break
            para, first = "", None
            continue
        para += " " + t
        first = first or n
    at = table if (table and said) else prose_fig
    if at is None:
        return []
    missing = []
    commits = COMMIT.findall(prose)
    if not commits:
        missing.append("no commit (\"measured at commit `abc1234`\")")
    else:
        gone = [c for c in commits if not commit_exists(root, c)]
        if gone and len(gone) == len(commits):
            missing.append("commit %s is not in this repository" % gone[0])
    if not MACHINE.search(plain):
        missing.append("no machine (\"on the 2-vCPU AMD EPYC VM\")")
    code = "\n".join(t for _, t, c in body if c) + "\n" + \
        "\n".join(m.group(2) for m in re.finditer(
            r'(`+)(.+?)\1', "\n".join(t for _, t, c in body if not c), re.S))
    if not COMMAND.search(code):
        missing.append("no command (a code span or block that runs it)")
    return ["%s:%d: %s: a measured figure (line %d): %s"
            % (path, start, heading, at, "; ".join(missing))] if missing else []


def check(root, files):
    errs = []
    for f in files:
        p = os.path.join(root, f)
        with open(p, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        for sec in sections(lines):
            errs += check_section(root, f, sec)
    return errs


EARLIER = re.compile(r'\.earlier\s*=\s*((?:\s*"(?:[^"\\]|\\.)*")+)')


def check_reproduce(root):
    """reproduce's earlier figures (harness/reproduce/reproduce_seeds.c):
    each names its commit (which exists), date and machine."""
    p = "harness/reproduce/reproduce_seeds.c"
    try:
        with open(os.path.join(root, p), encoding="utf-8") as fh:
            src = fh.read()
    except OSError:
        return []
    errs = []
    for m in EARLIER.finditer(src):
        text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        line = src.count("\n", 0, m.start()) + 1
        c = re.search(r'\bat ([0-9a-f]{7,40}) \(\d{4}-\d\d-\d\d\) on ', text)
        if c is None or not MACHINE.search(text):
            errs.append("%s:%d: an earlier figure without 'at COMMIT "
                        "(YYYY-MM-DD) on MACHINE': %s" % (p, line, text[:60]))
        elif not commit_exists(root, c.group(1)):
            errs.append("%s:%d: commit %s is not in this repository"
                        % (p, line, c.group(1)))
    return errs


def default_files(root):
    d = os.path.join(root, "docs")
    return ["README.md"] + sorted("docs/" + f for f in os.listdir(d)
                                  if f.endswith(".md"))


CASES = [
    # (section text, passes)
    ("| a | b |\n|---|---|\n| x | 12 ms |\n\nMeasured here with "
     "`hvbench run lookup`.\n", False),
    ("| a | b |\n|---|---|\n| x | 12 ms |\n\n*Measured at commit `%s` "
     "(2026-12-01) on the 2-vCPU AMD EPYC VM* with `hvbench run lookup`.\n",
     True),
    ("| a | b |\n|---|---|\n| x | 12 ms |\n\nThe seed's thread, quoted.\n",
     True),
    ("It measured 8.33x at a load of 3.2.\n", False),
    ("It measured 8.33x (`hvbench run x`), at `%s` on an Intel Xeon VM.\n",
     True),
    ("| a | b |\n|---|---|\n| x | 2 ms |\n\nMeasured at `%s` on the VM, no "
     "command.\n", False),
    ("| a | b |\n|---|---|\n| x | 2 ms |\n\nMeasured at `%s` on the VM "
     "with `hvbench run lookup`.\n", True),
]


def planted(root, tmp, quiet=False):
    """A copy of the docs whose first provenance line lost its commit."""
    shutil.copytree(os.path.join(root, "docs"), os.path.join(tmp, "docs"))
    shutil.copy(os.path.join(root, "README.md"), tmp)
    p = os.path.join(tmp, "docs", "running.md")
    with open(p, encoding="utf-8") as fh:
        s = fh.read()
    s2 = re.sub(r"measured at commit `[0-9a-f]{7,40}`", "measured recently",
                s, count=1)
    assert s2 != s, "no provenance line in docs/running.md to plant on"
    with open(p, "w", encoding="utf-8") as fh:
        fh.write(s2)
    errs = check(tmp, default_files(tmp))
    for e in errs if not quiet else []:
        print(e)
    return 1 if any(e.startswith("docs/running.md:") for e in errs) else 0


def self_test(root):
    head = subprocess.run(["git", "-C", root, "rev-parse", "--short=7",
                           "HEAD"], capture_output=True, text=True)
    c = head.stdout.strip() or "0000000"
    bad = 0
    for i, (text, want) in enumerate(CASES):
        text = text.replace("%s", c)
        got = not check_section(root, "case", (1, "case %d" % i,
                                               [(n, t, False) for n, t in
                                                enumerate(text.split("\n"),
                                                          1)]))
        if got != want:
            print("self-test case %d: %s, want %s" %
                  (i, "passes" if got else "fails", "pass" if want else
                   "fail"))
            bad = 1
    with tempfile.TemporaryDirectory() as tmp:
        if planted(root, tmp, quiet=True) != 1:
            print("self-test: the planted copy passed")
            bad = 1
    return bad


def main(argv):
    if len(argv) >= 3 and argv[1] == "--self-test":
        root = argv[2]
        bad = self_test(root)
        errs = check(root, default_files(root)) + check_reproduce(root)
    elif len(argv) >= 3 and argv[1] == "--planted":
        with tempfile.TemporaryDirectory() as tmp:
            return planted(argv[2], tmp)
    elif len(argv) >= 2 and not argv[1].startswith("-"):
        root, bad = argv[1], 0
        errs = check(root, argv[2:] or default_files(root))
        if not argv[2:]:
            errs += check_reproduce(root)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errs:
        print(e)
    return 1 if errs or bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
