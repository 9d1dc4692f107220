#!/usr/bin/env bash
# Command-line behaviour of ptoopt: options, exit codes (0 ok, 1 input or
# pass error, 2 usage error), standard input, and the atomic -o output.
#
# usage: cli.sh PTOOPT
set -u

if [ $# -ne 1 ]; then
    echo "usage: $0 PTOOPT" >&2
    exit 2
fi
tool=$1
case $tool in /*) ;; *) tool="$PWD/$tool" ;; esac

suite=cli
. "$(dirname "$0")/check_lib.sh"

cat > in.pto <<'EOF'
import pypto.language as pl

@pl.program
class Cli:
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y: pl.Tensor[[64], pl.FP32] = self.k(x)  # call
        return y
EOF
# text-format.md §1, §2.1, §4.11
cat > expected.pto <<'EOF'
# pypto.program: Cli
import pypto.language as pl

@pl.program
class Cli:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        # call
        y: pl.Tensor[[64], pl.FP32] = self.k(x)
        return y
EOF
printf 'import pypto.language as pl\n\n@pl.program\nclass B:\n    @pl.function\n    def f(self):\n        y = $\n' > bad.pto

only_files() { # only_files NAME...: the working directory holds exactly these (plus the fixtures)
    local want=" in.pto expected.pto bad.pto out err $* " f
    for f in * .[!.]*; do
        [ -e "$f" ] || continue
        case "$want" in *" $f "*) ;; *) echo "$f"; return 1 ;; esac
    done
    return 0
}

# ---------------------------------------------------------------- info options
current=help
run --help
if expect_rc 0; then
    if ! grep -q '^usage: ptoopt' out; then bad "no usage line on stdout"
    elif [ -s err ]; then bad "stderr not empty"
    else ok; fi
fi

current=help-short
run -h
expect_rc 0 && { grep -q '^usage: ptoopt' out && ok || bad "no usage line"; }

current=help-mentions-options
run --help
missing=""
for o in --passes -o --output --list-passes --help --version --config --print-pipeline --pass-option --ops --verify-each --in-place --diff --color --expect --expect-mode --update --print-after-all --print-changed --dump-dir --time-passes; do
    grep -q -- "$o" out || missing="$missing $o"
done
[ -z "$missing" ] && ok || bad "help does not mention:$missing"

current=version
run --version
if expect_rc 0; then
    if grep -Eq '^ptoopt [0-9]+\.[0-9]+\.[0-9]+$' out && [ "$(wc -l < out)" -eq 1 ]; then ok
    else bad "unexpected version output: $(head -c 100 out)"; fi
fi

current=list-passes
run --list-passes
if expect_rc 0; then
    if ! grep -q '^convert-to-ssa ' out; then bad "convert-to-ssa not listed"
    elif grep -Eqv '^[a-z][a-z0-9-]* +[^ ]' out; then bad "a line does not start with a pass name"
    elif [ "$(wc -l < out)" -lt 2 ]; then bad "fewer than two passes listed"
    elif ! grep -q '^pypto-default .*: inline-functions,unroll-loops,ctrl-flow-transform,convert-to-ssa,simplify,normalize-stmt-structure,flatten-call-expr,outline-hierarchy,outline-incore,outline-cluster$' out
    then bad "the pypto-default pipeline and its expansion not listed"
    else ok; fi
fi

# ---------------------------------------------------------------- usage errors: exit 2
current=unknown-long-option
run --bogus in.pto
if expect_rc 2; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! grep -q -- '--bogus' err; then bad "the message does not name --bogus"
    else ok; fi
fi

current=bad-jobs
# --jobs takes a count of processes, 1 to 1024; each spelling takes it
for j in --jobs=0 --jobs=x -j0 --jobs=2000 "--jobs="; do
    run "$j" in.pto
    expect_rc 2 || continue
    grep -q "^ptoopt: error: invalid --jobs" err || bad "$j: got: $(head -1 err)"
done
ok
current=jobs-spellings
# -j2, -j 2, --jobs=2, --jobs 2: the program printed as without them
run --passes=convert-to-ssa,outline-incore in.pto
cp out serial.out
for j in -j2 "-j 2" --jobs=2 "--jobs 2" -j1; do
    # shellcheck disable=SC2086  # the option's words
    run $j --passes=convert-to-ssa,outline-incore in.pto
    expect_rc 0 || continue
    cmp -s out serial.out || bad "$j: the output differs from the run without it"
done
rm -f serial.out
ok

current=unknown-short-option
run -x in.pto
expect_rc 2 && { [ -s out ] && bad "stdout not empty" || ok; }

current=misspelt-option-suggests
# one line naming what was typed, the nearest option, a hint; not the usage text
run --pases=convert-to-ssa in.pto
if expect_rc 2; then
    if ! grep -qx "ptoopt: error: unknown option '--pases'; did you mean '--passes'?" err; then bad "got: $(head -1 err)"
    elif grep -q '^usage:' err; then bad "the whole usage text was printed"
    elif ! grep -q -- "--help" err || [ "$(wc -l < err)" -ne 2 ]; then bad "want the message and a --help hint: $(cat err)"
    else ok; fi
fi

current=single-dash-long-option
# -passes=... as mlir-opt takes it; an error after another option names the right word
run -passes=convert-to-ssa in.pto
expect_rc 0 && { grep -q "def main" out && ok || bad "no program printed"; }
run --diff -pases=convert-to-ssa in.pto
expect_rc 2 && { grep -q "unknown option '-pases'; did you mean '--passes'" err && ok || bad "got: $(head -1 err)"; }

current=print-ir-before-after-function
run --passes=convert-to-ssa,outline-incore --print-ir-before=outline-incore --print-ir-after=convert-to-ssa --print-ir-function=k in.pto
if expect_rc 0; then
    heads=$(grep '^# \*\*\* IR Dump' err | tr '\n' '|')
    if [ "$heads" != "# *** IR Dump After convert-to-ssa (in.pto) ***|# *** IR Dump Before outline-incore (in.pto) ***|" ]; then bad "dump headers: $heads"
    elif grep -q 'def main' err || ! grep -q 'def k' err; then bad "--print-ir-function=k dumps more or less than k"
    elif ! grep -q 'def main' out; then bad "the result lost a function"
    else ok; fi
fi
run --passes=convert-to-ssa --print-ir-before=convert-to-sa in.pto
expect_rc 2 && { grep -q "did you mean 'convert-to-ssa'" err && ok || bad "got: $(head -1 err)"; }
run --passes=convert-to-ssa --print-before-all in.pto
expect_rc 0 && { [ "$(grep -c '^# \*\*\* IR Dump Before convert-to-ssa' err)" = 1 ] && ok || bad "no Before dump"; }

current=stdin-directory-named-stdin
"$tool" < /tmp > out 2> err
rc=$?
if [ $rc -ne 1 ]; then bad "exit $rc"
elif ! grep -q "'<stdin>' is a directory" err; then bad "got: $(head -1 err)"
else ok; fi

current=source-line-bytes-escaped
# a byte of 0x80 and up in the shown source line prints as '?', as control bytes do
printf 'import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(self):\n        y = \342\200\250 $\n' > u8.pto
"$tool" u8.pto > out 2> err
if LC_ALL=C grep -q $'\342' err; then bad "a raw byte >= 0x80 reached the terminal"
elif ! grep -q '^  *y = ??? \$$' err; then bad "got: $(cat err)"
else ok; fi
rm -f u8.pto

current=output-dash-is-stdout
run -o - in.pto
if expect_rc 0; then
    if [ -e ./- ]; then bad "a file named '-' was written"
    elif ! cmp -s out expected.pto; then bad "standard output differs"
    else ok; fi
fi
rm -f ./-

current=output-needs-argument
run in.pto -o
expect_rc 2 && { [ -s out ] && bad "stdout not empty" || ok; }

current=passes-needs-argument
run in.pto --passes
expect_rc 2 && ok

current=stdin-twice
run - -
if expect_rc 2; then
    [ -s out ] && bad "stdout not empty" || ok
fi

current=unknown-pass
run --passes=nope in.pto
if expect_rc 2; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! grep -q "nope" err; then bad "the message does not name the unknown pass"
    elif ! grep -q "convert-to-ssa" err || ! grep -q "outline-incore" err; then bad "the message does not list the known passes"
    else ok; fi
fi

current=unknown-pass-in-list
run --passes=convert-to-ssa,nope in.pto
expect_rc 2 && { grep -q "nope" err && ok || bad "the message does not name the unknown pass"; }

current=unknown-pass-checked-before-input
run --passes=nope does-not-exist.pto
expect_rc 2 && ok

# ---------------------------------------------------------------- input errors: exit 1
current=missing-file
run does-not-exist.pto
if expect_rc 1; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! grep -q "does-not-exist.pto" err; then bad "the message does not name the file"
    else ok; fi
fi

current=directory-as-input
mkdir adir
run adir
expect_rc 1 && { grep -q "adir" err && ok || bad "the message does not name the directory"; }
rmdir adir

current=empty-input
: > empty.pto
run empty.pto
if expect_rc 1; then
    grep -q '^empty.pto:1:1: error: ' err && ok || bad "no located message"
fi
rm -f empty.pto

current=parse-error-names-file-as-given
mkdir -p sub
run ./sub/../bad.pto
if expect_rc 1; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! grep -q '^\./sub/\.\./bad\.pto:7:13: error: ' err; then bad "expected './sub/../bad.pto:7:13: error: ...'"
    else ok; fi
fi
rmdir sub

current=error-shows-line-and-caret
run bad.pto
if expect_rc 1; then
    if ! grep -qx '          y = \$' err; then bad "the source line is not quoted"
    elif ! grep -qx '              ^' err; then bad "no caret under column 13"
    else ok; fi
fi

# ---------------------------------------------------------------- success and stdin
current=file-to-stdout
run in.pto
if expect_rc 0; then
    if ! cmp -s out expected.pto; then bad "output differs from the expected canonical text"
    elif [ -s err ]; then bad "stderr not empty"
    else ok; fi
fi

current=output-is-a-fixpoint
run expected.pto
expect_rc 0 && { cmp -s out expected.pto && ok || bad "the canonical text does not print back unchanged"; }

current=stdin-dash
run_stdin in.pto -
expect_rc 0 && { cmp -s out expected.pto && ok || bad "output differs"; }

current=stdin-no-argument
run_stdin in.pto
expect_rc 0 && { cmp -s out expected.pto && ok || bad "output differs"; }

current=stdin-from-pipe
cat in.pto | "$tool" > out 2> err
rc=$?
expect_rc 0 && { cmp -s out expected.pto && ok || bad "output differs"; }

current=stdin-error-named-stdin
run_stdin bad.pto -
if expect_rc 1; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! grep -q '^<stdin>:7:13: error: ' err; then bad "expected '<stdin>:7:13: error: ...'"
    else ok; fi
fi

current=stdin-empty
run_stdin /dev/null
expect_rc 1 && { grep -q '^<stdin>:1:1: error: ' err && ok || bad "no located message for empty stdin"; }

current=options-after-file
run in.pto --output=opt.pto
if expect_rc 0; then
    cmp -s opt.pto expected.pto && ok || bad "-o after the file name was not honoured"
fi
rm -f opt.pto

# ---------------------------------------------------------------- -o
current=output-file
run -o o1.pto in.pto
if expect_rc 0; then
    if [ -s out ]; then bad "stdout not empty with -o"
    elif ! cmp -s o1.pto expected.pto; then bad "the file differs from the stdout output"
    elif left=$(only_files o1.pto); [ $? -ne 0 ]; then bad "left behind: $left"
    else ok; fi
fi

current=output-long-and-attached
run --output=o2.pto in.pto
r1=$rc
run -oo3.pto in.pto
r2=$rc
if [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then bad "exit codes $r1 / $r2"
elif ! cmp -s o2.pto expected.pto || ! cmp -s o3.pto expected.pto; then bad "output differs"
else ok; fi
rm -f o2.pto o3.pto

current=output-permissions
perm=$(stat -c %a o1.pto 2>/dev/null)
[ "$perm" = 644 ] && ok || bad "a new output file has mode $perm, expected 644 under umask 022"

current=output-replaces-existing
echo "OLD CONTENT" > o1.pto
chmod 600 o1.pto
run -o o1.pto in.pto
if expect_rc 0; then
    if ! cmp -s o1.pto expected.pto; then bad "not replaced"
    elif left=$(only_files o1.pto); [ $? -ne 0 ]; then bad "left behind: $left"
    else ok; fi
fi

current=output-untouched-on-error
echo "OLD CONTENT" > o1.pto
run -o o1.pto bad.pto
if expect_rc 1; then
    if [ "$(cat o1.pto)" != "OLD CONTENT" ]; then bad "the existing output file was changed"
    elif left=$(only_files o1.pto); [ $? -ne 0 ]; then bad "left behind: $left"
    elif [ -s out ]; then bad "stdout not empty"
    else ok; fi
fi
rm -f o1.pto

current=output-not-created-on-error
run -o o4.pto bad.pto
if expect_rc 1; then
    if [ -e o4.pto ]; then bad "output file created"
    elif left=$(only_files); [ $? -ne 0 ]; then bad "left behind: $left"
    else ok; fi
fi

current=output-missing-directory
run -o no/such/dir/o.pto in.pto
if expect_rc 1; then
    if [ -e no ]; then bad "created a directory"
    elif [ -s out ]; then bad "stdout not empty"
    elif ! grep -q "no/such/dir/o.pto" err; then bad "the message does not name the output path"
    else ok; fi
fi

current=output-over-input
cp in.pto self.pto
run -o self.pto self.pto
if expect_rc 0; then
    cmp -s self.pto expected.pto && ok || bad "the input was not replaced by its canonical text"
fi
rm -f self.pto

current=output-to-device-node
# `-o /dev/null` must write to the device, not replace it with a regular file
# (checked on a private node: needs root for mknod; skipped otherwise)
if mknod nulldev c 1 3 2>/dev/null; then
    run -o nulldev in.pto
    if [ "$rc" -ne 0 ]; then bad "exit code $rc writing to a character device"
    elif [ ! -c nulldev ]; then bad "the character device was replaced by a regular file"
    elif left=$(only_files nulldev); [ $? -ne 0 ]; then bad "left behind: $left"
    else ok; fi
    rm -f nulldev
else
    echo "SKIP $current (mknod not permitted)"
fi

current=stdout-write-error
if [ -w /dev/full ]; then
    "$tool" in.pto > /dev/full 2> err
    rc=$?
    if [ "$rc" -ne 1 ]; then bad "exit code $rc when stdout cannot be written, expected 1"
    elif ! grep -qi "write" err; then bad "no write error message"
    else ok; fi
else
    echo "SKIP $current (no /dev/full)"
fi

current=large-output
# a canonical program of ~3 MB (more than the output chunk size): stdout and
# -o give the input back unchanged
{
    printf '# pypto.program: Big\nimport pypto.language as pl\n\n@pl.program\nclass Big:\n'
    printf '    @pl.function\n    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n'
    awk 'BEGIN { for (i = 0; i < 60000; i++) printf "        v%d: pl.Scalar[pl.INDEX] = n + %d\n", i, i }'
    printf '        return n\n'
} > big.pto
run big.pto
r1=$rc
cp out big-stdout.pto
run -o big-o.pto big.pto
if [ $r1 -ne 0 ] || [ $rc -ne 0 ]; then bad "exit codes $r1 / $rc"
elif ! cmp -s big-stdout.pto big.pto; then bad "stdout output differs from the canonical input"
elif ! cmp -s big-o.pto big.pto; then bad "-o output differs from the canonical input"
else ok; fi
rm -f big.pto big-stdout.pto big-o.pto

current=list-dsl
# --list-dsl: the unified ops' dispatch, in the order tried; an --ops file's
# sugar entry is listed too, and overrides the built-in one of its name
cat > sugar.yaml <<'EOF'
sugar:
  - {name: twice, dispatch: [{args: [tile, scalar], op: tile.muls}, {op: tensor.muls}]}
  - {name: exp, dispatch: [{op: tile.exp}]}
EOF
run --list-dsl
l_add=$(grep '^pl.add ' out)
l_mrg=$(grep '^pl.mrgsort ' out)
run --ops=sugar.yaml --list-dsl
if [ $rc -ne 0 ]; then bad "exit code $rc"
elif [ "$l_add" != "pl.add  (tensor, tensor, ...) -> pl.tensor.add | (tensor, scalar, ...) -> pl.tensor.adds | (tile, tile, ...) -> pl.tile.add | (tile, scalar, ...) -> pl.tile.adds | (scalar, scalar, ...) -> scalar a + b" ]; then bad "pl.add: $l_add"
elif [[ $l_mrg != "pl.mrgsort  (tensor, ...) with block_len= -> pl.tensor.mrgsort_format1 | (tensor, ...) -> pl.tensor.mrgsort_format2 |"* ]]; then bad "pl.mrgsort: $l_mrg"
elif ! grep -qx 'pl.twice  (tile, scalar, ...) -> pl.tile.muls | (...) -> pl.tensor.muls' out; then bad "the --ops sugar is not listed"
elif ! grep -qx 'pl.exp  (...) -> pl.tile.exp' out; then bad "the --ops override of pl.exp is not listed"
elif [ "$(grep -c '^pl.exp ' out)" -ne 1 ]; then bad "pl.exp listed twice"
else ok; fi
rm -f sugar.yaml

current="--split-input-file: a later part's error gives the file's line and shows that line"
{
    printf 'import pypto.language as pl\n\n@pl.program\nclass A:\n    @pl.function\n'
    printf '    def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        return x\n'
    printf '# -----\nimport pypto.language as pl\n\n\n@pl.program\nclass B:\n    @pl.function\n'
    printf '    def g(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        return y\n'
    printf '# ---------\nimport pypto.language as pl\n\n@pl.program\nclass C:\n    @pl.function\n'
    printf '    def h(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n        return x\n'
} > split3.pto
run --split-input-file split3.pto
if expect_rc 1; then
    if [ "$(sed -n 1p err)" != "split3.pto:16:16: error: Undefined variable 'y'" ]; then bad "first line: $(sed -n 1p err)"
    elif [ "$(sed -n 2p err)" != "          return y" ]; then bad "source line: $(sed -n 2p err)"
    elif [ "$(grep -c '^# -----$' out)" -ne 2 ] || ! grep -q '^class A:' out || ! grep -q '^class C:' out || grep -q '^class B:' out
    then bad "stdout is not parts 1 and 3 joined by two separators"
    else ok; fi
fi
rm -f split3.pto

current="pl.static_print: names and constants with their types, other expressions printed, floats as Python repr, f-strings"
cat > sp.pto <<'PTO'
import pypto.language as pl

K = 128
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INT32], m: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 128], pl.FP32]:
        pl.static_print(n + 1, 2.5, True, 0.1, 1e20, K * 2, 1.0 / 3, 1e-05, m * 2 + n, pl.add(x, x))
        pl.static_print(f"{n + 1} {0.1} {K}", f"{{m}} {m}")
        return x
PTO
run sp.pto
# the lines the reference (oracle) printed for this program
want='static_print [sp.pto:8]: pl.cast(n, pl.INDEX) + 1 2.5: pl.Scalar[pl.FP32] True: pl.Scalar[pl.BOOL] 0.1: pl.Scalar[pl.FP32] 1e+20: pl.Scalar[pl.FP32] 256: pl.Scalar[pl.INDEX] 0.3333333333333333: pl.Scalar[pl.FP32] 1e-05: pl.Scalar[pl.FP32] m * 2 + pl.cast(n, pl.INDEX) pl.tensor.add(x, x)
static_print [sp.pto:9]: pl.cast(n, pl.INDEX) + 1 0.1: pl.Scalar[pl.FP32] 128: pl.Scalar[pl.INDEX] {m} m: pl.Scalar[pl.INDEX]'
if expect_rc 0; then
    if [ "$(cat err)" != "$want" ]; then bad "stderr: $(cat err)"
    elif ! grep -q '^class P:' out; then bad "no program on stdout"
    else ok; fi
fi
rm -f sp.pto

finish
