#!/usr/bin/env sh
# docs/ops.md from the registry: `ptoopt --list-ops` in a Markdown page.
# usage: docs/gen_ops_md.sh PTOOPT > docs/ops.md   (the build makes
# build/ops.md the same way; the test 'ops-doc' fails when they differ)
set -eu
tool=$1
n=$("$tool" --list-ops | wc -l | tr -d ' ')
cat <<HEAD
# The op registry

Generated from \`data/ops.yaml\` by \`docs/gen_ops_md.sh\` (\`ptoopt --list-ops\`); do not edit.
$n ops, sorted by name: each op's signature as the DSL takes it (keyword-only
arguments after \`*\`, defaults after \`=\`) and the arguments it writes, with
conditional effects (\`write; readwrite when atomic != 0\`). Everything else is
read. \`man ptoopt\` (--list-ops, --ops) and the header of \`data/ops.yaml\` explain
the registry.

\`\`\`
HEAD
"$tool" --list-ops
echo '```'
m=$("$tool" --list-dsl | wc -l | tr -d ' ')
cat <<DSL

## DSL spellings

Every op above is accepted under its own name. Besides, $m DSL names lower to an
op chosen by their arguments (\`ptoopt --list-dsl\`, sorted; a few are op names
too: \`pl.tensor.add\` with a scalar rhs is \`pl.tensor.adds\`). Each takes the
first case whose leading positional arguments have the listed kinds
(\`tensor\`, \`tile\`, \`scalar\`; \`...\` any further arguments), some only when the
call passes a keyword (\`with block_len=\`). A parenthesised parameter list after
the op binds the spelling's positional arguments to those parameters in that
order.

\`\`\`
DSL
"$tool" --list-dsl
echo '```'
