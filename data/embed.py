#!/usr/bin/env python3
"""Turn data/ops.yaml into a C source defining ops_builtin_yaml[] (so the
binary carries its registry and needs no data files at run time), plus an
index of its entries (ops_builtin_index[]): the name, byte range and line of
each `ops:` / `sugar:` list item, so that ptoopt parses only the entries a
program uses instead of the whole file at every start.  When the file is not
laid out as the index expects (top-level `ops:` / `sugar:` lists of items
starting with "  - "), the index is empty (ops_builtin_nindex = -1) and the
registry is loaded whole."""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()


def index_entries(text):
    """[(is_sugar, name, offset, length, line)] or None."""
    entries = []
    section = None
    cur = None  # [is_sugar, name, offset, end, line]
    offset = 0
    for lineno, raw in enumerate(text.split(b'\n'), 1):
        start, offset = offset, offset + len(raw) + 1  # byte offsets
        line = raw.decode('utf-8')
        stripped = line.strip()
        if line and not line[0].isspace() and not line.startswith('#'):
            cur = None
            if line.rstrip() in ('ops:', 'sugar:'):
                section = line.rstrip()[:-1]
                continue
            return None
        if line.startswith('  - '):
            if section is None:
                return None
            key = 'op' if section == 'ops' else 'name'
            m = re.match(r'\s*-\s*\{?\s*' + key + r':\s*([A-Za-z0-9_.]+)\s*[,}]?', line)
            if not m:
                return None
            cur = [section == 'sugar', m.group(1), start, start + len(raw), lineno]
            entries.append(cur)
        elif line.startswith('    ') and stripped:
            if cur is None:
                if stripped.startswith('#'):
                    continue  # an indented comment between items
                return None
            cur[3] = start + len(raw)  # comments inside an item stay with it
        else:
            if stripped and not stripped.startswith('#'):
                return None
            cur = None  # a comment or blank line ends the item
    names = [(e[0], e[1]) for e in entries]
    if len(set(names)) != len(names):
        seen, dups = set(), []
        for e in entries:
            if (e[0], e[1]) in seen:
                dups.append('%s (line %d)' % (e[1], e[4]))
            seen.add((e[0], e[1]))
        raise SystemExit('data/ops.yaml: declared twice: ' + ', '.join(dups))
    return [(e[0], e[1], e[2], e[3] - e[2], e[4]) for e in entries]


try:
    index = index_entries(data)
except UnicodeDecodeError:
    index = None

with open(out, 'w') as f:
    f.write('/* generated from %s by data/embed.py; do not edit */\n' % src.split('/')[-1])
    f.write('#include "ptoopt/op_registry.h"\n')
    f.write('const char ops_builtin_yaml[] = {\n')
    for i in range(0, len(data), 16):
        f.write(''.join('%d,' % (b - 256 if b > 127 else b) for b in data[i:i + 16]) + '\n')
    f.write('0};\n')
    f.write('const unsigned long ops_builtin_yaml_len = %d;\n' % len(data))
    f.write('const OpsBuiltinEntry ops_builtin_index[] = {\n')
    for sugar, name, off, length, line in index or []:
        f.write('\t{ %s, "%s", %d, %d, %d },\n' % ('true' if sugar else 'false', name, off, length, line))
    f.write('\t{ false, 0, 0, 0, 0 },\n};\n')
    f.write('const int ops_builtin_nindex = %d;\n' % (len(index) if index is not None else -1))
