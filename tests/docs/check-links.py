#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Every relative link of README.md and docs/*.md leads somewhere.

    check-links.py ROOT [FILE.md...]     check (default: README.md docs/*.md)
    check-links.py --self-test ROOT      the slug cases, the tree, and a
                                         scratch copy with a dead link and
                                         a dead anchor planted: must fail
    check-links.py --planted ROOT        only that scratch copy (exit 1)

A relative link [text](path#anchor) (also ![img](path), <a href>, <img
src> and [ref]: path definitions) must name a file or directory inside
ROOT, and its #anchor a heading of the target Markdown file, slugged as
GitHub does (github-slugger: the heading's text lower-cased, everything
but letters, digits, '_', '-' and ' ' dropped, each space a '-', a
repeated slug suffixed -1, -2, ...), or an <a name/id> there.  Links in
code (fenced, indented or `inline`) are not links.  Absolute URLs
(scheme:) are not checked.  Exit 0 when all resolve, 1 naming each that
does not (FILE:LINE: ...), 2 on bad usage.
"""
import os
import re
import shutil
import sys
import tempfile

FENCE = re.compile(r'^\s*(```+|~~~+)')
ATX = re.compile(r'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
INLINE = re.compile(r'!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^)\s]*)'
                    r'(?:\s+("[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
REFDEF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)')
HTMLREF = re.compile(r'<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*"([^"]*)"',
                     re.I)
HTMLANCHOR = re.compile(r'<a\b[^>]*?\b(?:name|id)\s*=\s*"([^"]*)"', re.I)
CODESPAN = re.compile(r'(`+)(.+?)\1')


def heading_text(raw):
    """The text GitHub renders for a heading's Markdown."""
    t = raw.strip()
    t = re.sub(r'!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)', r'\1', t)
    t = CODESPAN.sub(lambda m: m.group(2).strip(), t)
    t = re.sub(r'<[^>]+>', '', t)
    t = re.sub(r'(\*\*|__|\*)(?=\S)(.+?)(?<=\S)\1', r'\2', t)
    return t


def slug(text):
    """github-slugger's slug of a heading's rendered text."""
    return re.sub(r'[^\w\- ]', '', text.lower()).replace(' ', '-')


def scan(path):
    """(anchors, links): the file's anchors, and (line, target) per link."""
    anchors, seen, links = set(), {}, []
    in_fence, fence = False, ''
    prev = ''
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if in_fence:
            if m and m.group(1)[0] == fence[0] and \
               len(m.group(1)) >= len(fence) and \
               line.strip() == m.group(1):
                in_fence = False
            prev = ''
            continue
        if m:
            in_fence, fence = True, m.group(1)
            prev = ''
            continue
        if line.startswith('    ') and prev == '' and \
           not re.match(r'^\s*([-*+]|\d+[.)])\s', line):
            continue        # an indented code block (outside a list)
        text = None
        h = ATX.match(line)
        if h:
            text = h.group(2) or ''
        elif prev.strip() and SETEXT.match(line) and \
                not prev.lstrip().startswith('|'):
            text = prev
        if text is not None:
            s = slug(heading_text(text))
            base, k = s, seen.get(s, 0)
            while s in anchors:
                k += 1
                s = '%s-%d' % (base, k)
            seen[base] = k
            anchors.add(s)
        for a in HTMLANCHOR.findall(line):
            anchors.add(a)
        bare = CODESPAN.sub('', line)
        for m in INLINE.finditer(bare):
            links.append((n, m.group(2).strip('<>')))
        m = REFDEF.match(bare)
        if m:
            links.append((n, m.group(1).strip('<>')))
        for t in HTMLREF.findall(bare):
            links.append((n, t))
        prev = line
    return anchors, links


def check(root, files):
    root = os.path.realpath(root)
    cache, errors = {}, []

    def anchors_of(p):
        if p not in cache:
            cache[p] = scan(p)[0]
        return cache[p]

    for rel in files:
        src = os.path.join(root, rel)
        for n, target in scan(src)[1]:
            if not target or re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:', target):
                continue
            path, _, anchor = target.partition('#')
            if path:
                dest = os.path.realpath(os.path.join(os.path.dirname(src),
                                                     path))
                if os.path.commonpath([root, dest]) != root:
                    errors.append('%s:%d: %s leaves the tree' %
                                  (rel, n, target))
                    continue
                if not os.path.exists(dest):
                    errors.append('%s:%d: %s: no such file' %
                                  (rel, n, target))
                    continue
            else:
                dest = src
            if anchor and dest.endswith('.md') and \
               anchor not in anchors_of(dest):
                errors.append('%s:%d: %s: no heading #%s in %s' %
                              (rel, n, target, anchor,
                               os.path.relpath(dest, root)))
    return errors


def default_files(root):
    files = ['README.md']
    d = os.path.join(root, 'docs')
    if os.path.isdir(d):
        files += sorted('docs/' + f for f in os.listdir(d)
                        if f.endswith('.md'))
    return files


def planted(root):
    """A scratch copy of the docs with one dead link and one dead anchor."""
    tmp = tempfile.mkdtemp(prefix='hvb-docs-')
    try:
        shutil.copy(os.path.join(root, 'README.md'), tmp)
        shutil.copytree(os.path.join(root, 'docs'), os.path.join(tmp, 'docs'))
        with open(os.path.join(tmp, 'README.md'), 'a') as f:
            f.write('\nSee [gone](docs/no-such-guide.md) and '
                    '[the hole](docs/seeds.md#no-such-heading).\n')
        return check(tmp, default_files(tmp))
    finally:
        shutil.rmtree(tmp)


SLUG_CASES = [
    # (heading markdown, its GitHub anchor)
    ('Quick start (Debian 12)', 'quick-start-debian-12'),
    ("libvirt's lock convoy (seed 003)", 'libvirts-lock-convoy-seed-003'),
    ('`run --shard K/N` and `merge`', 'run---shard-kn-and-merge'),
    ('Reproducing the seeds: `hvbench reproduce`',
     'reproducing-the-seeds-hvbench-reproduce'),
    ('Two builds in one run: gate --base-bin',
     'two-builds-in-one-run-gate---base-bin'),
    ('xenctrl `domain_getinfolist` (seed 002)',
     'xenctrl-domain_getinfolist-seed-002'),
    ('**boot-storm**: every slot at once', 'boot-storm-every-slot-at-once'),
    ('[A link](x.md) in a heading', 'a-link-in-a-heading'),
    ('NUMA × zones → pages', 'numa--zones--pages'),
]


def self_test(root):
    bad = 0
    for md, want in SLUG_CASES:
        got = slug(heading_text(md))
        if got != want:
            print('slug of %r is %r, GitHub makes %r' % (md, got, want))
            bad += 1
    tmp = tempfile.mkdtemp(prefix='hvb-docs-dup-')
    try:
        with open(os.path.join(tmp, 'a.md'), 'w') as f:
            f.write('# T\n\n## Same\n\n## Same\n\n```\n# not a heading\n```\n'
                    '\n[x](#same-1) [y](#same-2) [z](#not-a-heading)\n'
                    '`[in code](#nowhere)`\n')
        errs = check(tmp, ['a.md'])
        want = ['a.md:11: #same-2: no heading #same-2 in a.md',
                'a.md:11: #not-a-heading: no heading #not-a-heading in a.md']
        if errs != want:
            print('duplicates and fences: got %r, want %r' % (errs, want))
            bad += 1
    finally:
        shutil.rmtree(tmp)
    errs = check(root, default_files(root))
    for e in errs:
        print(e)
    bad += len(errs)
    got = planted(root)
    n = len(open(os.path.join(root, 'README.md')).read().split('\n')) + 1
    want = ['README.md:%d: docs/no-such-guide.md: no such file' % n,
            'README.md:%d: docs/seeds.md#no-such-heading: no heading '
            '#no-such-heading in docs/seeds.md' % n]
    # The copy's problems: the tree's own (above) and the two planted.
    if sorted(got) != sorted(errs + want):
        print('negative control: the planted copy gave %r, want %r' %
              (got, errs + want))
        bad += 1
    else:
        print('negative control: the planted dead link and dead anchor '
              'are caught:')
        for e in want:
            print('  ' + e)
    print('%d file(s), %s' % (len(default_files(root)),
                              'ok' if not bad else '%d problem(s)' % bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[0] == '--self-test':
        return self_test(argv[1])
    if len(argv) == 2 and argv[0] == '--planted':
        errs = planted(argv[1])
    elif argv and not argv[0].startswith('-'):
        errs = check(argv[0], argv[1:] or default_files(argv[0]))
    else:
        sys.stderr.write(__doc__)
        return 2
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
