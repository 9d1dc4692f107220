#!/usr/bin/env python3
"""Turn data/ops.yaml into a C source defining ops_builtin_yaml[] (so the
binary carries its registry and needs no data files at run time)."""
import sys

src, out = sys.argv[1], sys.argv[2]
data = open(src, 'rb').read()
with open(out, 'w') as f:
    f.write('/* generated from %s by data/embed.py; do not edit */\n' % src.split('/')[-1])
    f.write('const char ops_builtin_yaml[] = {\n')
    for i in range(0, len(data), 16):
        f.write(''.join('%d,' % (b - 256 if b > 127 else b) for b in data[i:i + 16]) + '\n')
    f.write('0};\n')
    f.write('const unsigned long ops_builtin_yaml_len = %d;\n' % len(data))
