#!/usr/bin/env bash
# Pipelines and output modes of ptoopt (issue #7): pass contracts, inline pass
# options, pipeline files (--config, --print-pipeline), --diff, --print-after-all,
# --print-changed, --dump-dir, --time-passes, golden files (--expect,
# --expect-mode, --update), several inputs, -o DIR and --in-place.
#
# usage: pipeline.sh PTOOPT TESTDATA
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 PTOOPT TESTDATA" >&2
    exit 2
fi
tool=$1
data=$2
case $tool in /*) ;; *) tool="$PWD/$tool" ;; esac
case $data in /*) ;; *) data="$PWD/$data" ;; esac

unset NO_COLOR
suite=pipeline
. "$(dirname "$0")/check_lib.sh"

# The reference's output for --passes=convert-to-ssa,outline-incore on a
# non-SSA input (testdata/pipeline/README.md).
cp "$data/pipeline/incore_in_if.pto" in.pto
cp "$data/pipeline/incore_in_if.expected" expected.pto

# ================================================================ contracts
current=contract-violation-message
run in.pto --passes=outline-incore,outline-cluster
if expect_rc 1; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! has "in.pto: error: outline-incore requires SSA form; run convert-to-ssa first (--passes=convert-to-ssa,outline-incore,outline-cluster)" err
    then bad "not the contract message"
    elif ! grep -q '^in.pto:12:13: note: the input lacks SSA form: ' err; then bad "no note locating the non-SSA definition"
    else ok; fi
fi

current=contract-checked-before-running
mkdir dumps0
run in.pto --passes=convert-to-ssa,outline-cluster,derive-call-directions --dump-dir=dumps0
if expect_rc 1; then
    if [ -n "$(ls dumps0)" ]; then bad "a pass ran (dumps written) before the contract check"
    elif ! has "derive-call-directions requires outlined InCore scopes; run outline-incore first (--passes=convert-to-ssa,outline-cluster,outline-incore,derive-call-directions)" err
    then bad "not the contract message"
    else ok; fi
fi

current=contract-fix-chains-producers
run in.pto --passes=derive-call-directions
if expect_rc 1; then
    has "(--passes=convert-to-ssa,outline-incore,derive-call-directions)" err && ok || bad "the suggested pipeline does not add both producers"
fi

current=contract-suggestion-keeps-options
run in.pto '--passes=outline-incore,infer-directions{mode=raise-only}'
if expect_rc 1; then
    has "(--passes=convert-to-ssa,outline-incore,infer-directions{mode=raise-only})" err && ok || bad "options lost in the suggestion"
fi

current=contract-suggestion-works
run in.pto --passes=convert-to-ssa,outline-incore
expect_rc 0 && { cmp -s out expected.pto && ok || bad "the suggested pipeline does not give the reference's output"; }

current=ssa-input-runs-as-is
"$tool" --passes=convert-to-ssa in.pto > ssa.pto 2> err
run ssa.pto --passes=outline-incore
expect_rc 0 && { cmp -s out expected.pto && ok || bad "outline-incore on a convert-to-ssa dump differs from the chained run"; }

current=satisfied-input-property
# the result is outlined already: derive-call-directions needs nothing more
run expected.pto --passes=derive-call-directions
expect_rc 0 && { has "arg_directions" out && ok || bad "no arg_directions in the output"; }

current=verify-each-names-pass
run in.pto --passes=convert-to-ssa,outline-incore --verify-each
expect_rc 0 && { cmp -s out expected.pto && ok || bad "--verify-each changed the output"; }

# ================================================================ inline options
current=inline-options
run expected.pto '--passes=infer-directions{mode=raise-only,functions=main_incore_0,main}' --print-pipeline
if expect_rc 0; then
    if ! has 'mode: "raise-only"' out; then bad "mode not resolved"
    elif ! has 'functions: "main_incore_0,main"' out; then bad "a comma inside a value split the option"
    else ok; fi
fi

current=inline-bad-value
run in.pto '--passes=infer-directions{mode=sideways}'
if expect_rc 2; then
    has "invalid value 'sideways' for infer-directions.mode (valid: exact|raise-only)" err && ok || bad "message"
fi

current=inline-unknown-key
run in.pto '--passes=infer-directions{colour=red}'
expect_rc 2 && { has "has no option 'colour' (valid: mode, functions, reset)" err && ok || bad "message"; }

current=inline-unclosed
run in.pto '--passes=infer-directions{mode=exact'
expect_rc 2 && { has "missing '}'" err && ok || bad "message"; }

current=inline-on-pass-without-options
run in.pto '--passes=convert-to-ssa{x=1}'
expect_rc 2 && { has "pass 'convert-to-ssa' has no options (passes with options: infer-directions)" err && ok || bad "message"; }

current=pass-option-overrides-inline
run '--passes=infer-directions{mode=exact}' --pass-option infer-directions.mode=raise-only --print-pipeline
expect_rc 0 && { has 'mode: "raise-only"' out && ok || bad "the --pass-option setting did not win"; }

# ================================================================ pipeline files
current=example-config
run --config="$data/pipeline.yaml" in.pto
expect_rc 0 && { cmp -s out expected.pto && ok || bad "the example pipeline does not give the reference's output"; }

current=print-pipeline-round-trip
cat > p1.yaml <<'EOF'
passes:
  - convert-to-ssa
  - name: outline-incore
  - name: infer-directions
    options:
      mode: raise-only
      functions: [main_incore_0, main]
      reset: yes
output: diff
verify-each: true
time-passes: false
dump-dir: "my dumps"
EOF
"$tool" --config=p1.yaml --print-pipeline > p2.yaml 2> err
"$tool" --config=p2.yaml --print-pipeline > p3.yaml 2>> err
if ! cmp -s p2.yaml p3.yaml; then bad "--print-pipeline of a printed pipeline differs"
elif ! has 'functions: "main_incore_0,main"' p2.yaml || ! has 'reset: "true"' p2.yaml; then bad "options not resolved"
elif ! has 'output: diff' p2.yaml || ! has 'dump-dir: "my dumps"' p2.yaml || ! has 'verify-each: true' p2.yaml; then bad "settings lost"
else ok; fi

current=print-pipeline-same-result
# the printed pipeline of a command line runs as that command line does
"$tool" --passes=convert-to-ssa,outline-incore --print-pipeline > p4.yaml
"$tool" --passes=convert-to-ssa,outline-incore in.pto > want 2> /dev/null
run --config=p4.yaml in.pto
expect_rc 0 && { cmp -s out want && ok || bad "--config of the printed pipeline gives another result"; }

current=command-line-after-config-wins
run --config="$data/pipeline.yaml" --passes=convert-to-ssa --print-pipeline
if expect_rc 0; then
    if has "outline-incore" out; then bad "--passes after --config did not replace the passes"
    elif ! has "verify-each: true" out; then bad "the config's other settings were lost"
    else ok; fi
fi

# bad_config NAME EXPECTED-LOCATION EXPECTED-TEXT: the config in file NAME.yaml
# (from stdin) is rejected with exit 2 and a located message
bad_config() {
    current=config-$1
    cat > "$1.yaml"
    run --config="$1.yaml" in.pto
    if expect_rc 2; then
        if [ -s out ]; then bad "stdout not empty"
        elif ! grep -q "^$1.yaml:$2: error: " err; then bad "no '$1.yaml:$2: error:' message"
        elif ! has "$3" err; then bad "message lacks: $3"
        elif ! grep -q '^ *\^$' err; then bad "no caret line"
        else ok; fi
    fi
}
bad_config unknown-pass 3:5 "unknown pass 'outline-incor'; did you mean 'outline-incore'? (known passes: convert-to-ssa, outline-incore, outline-cluster, outline-hierarchy, infer-directions, derive-call-directions, inline-functions," <<'EOF'
passes:
  - convert-to-ssa
  - outline-incor
EOF
bad_config unknown-option 5:7 "pass 'infer-directions' has no option 'colour' (valid: mode, functions, reset)" <<'EOF'
passes:
  - name: infer-directions
    options:
      mode: exact
      colour: red
EOF
bad_config bad-option-value 4:13 "invalid value 'sideways' for infer-directions.mode (valid: exact|raise-only)" <<'EOF'
passes:
  - name: infer-directions
    options:
      mode: sideways
EOF
bad_config option-value-type 4:14 "option 'reset' of infer-directions expects a value or a list of names, got a mapping" <<'EOF'
passes:
  - name: infer-directions
    options:
      reset: {a: 1}
EOF
bad_config option-on-pass-without-options 4:9 "pass 'convert-to-ssa' has no options (passes with options: infer-directions)" <<'EOF'
passes:
  - name: convert-to-ssa
    options:
        level: 3
EOF
bad_config passes-not-a-list 1:9 "'passes' expects a list of passes, got a scalar" <<'EOF'
passes: convert-to-ssa
EOF
bad_config bool-type 2:14 "'verify-each' expects true or false, got a scalar 'often'" <<'EOF'
passes: []
verify-each: often
EOF
bad_config unknown-key 1:1 "unknown key 'pases'; did you mean 'passes'? (valid: passes, output, verify-each, print-after-all, print-changed, time-passes, dump-dir, ops, allow-unregistered-ops)" <<'EOF'
pases: [convert-to-ssa]
EOF
bad_config bad-output 1:9 "invalid value 'json' for 'output' (valid: program, diff)" <<'EOF'
output: json
EOF
bad_config unknown-pass-key 3:5 "unknown key 'option' in a pass (valid: name, options)" <<'EOF'
passes:
  - name: infer-directions
    option: {mode: exact}
EOF
bad_config pass-without-name 2:5 "a pass mapping needs 'name'" <<'EOF'
passes:
  - options: {mode: exact}
EOF
bad_config yaml-syntax 3:1 "YAML: " <<'EOF'
passes: [convert-to-ssa,
  outline-incore
EOF

current=config-missing-file
run --config=nope.yaml in.pto
expect_rc 2 && { has "nope.yaml" err && ok || bad "the message does not name the file"; }

current=config-empty-file
: > empty.yaml
run --config=empty.yaml in.pto
expect_rc 0 && ok

current=config-ops-files
cat > myops.yaml <<'EOF'
ops: []
EOF
printf 'ops:\n  - myops.yaml\n' > withops.yaml
run --config=withops.yaml --print-pipeline
if expect_rc 0; then has '  - "myops.yaml"' out && ok || bad "ops files not printed"; fi

# ================================================================ --diff
current=diff-like-gnu-diff
# GNU diff may place a change differently among equally short diffs: compare
# the headers, the hunk ranges and the number of changed lines
run in.pto --passes=convert-to-ssa,outline-incore --diff
if expect_rc 0; then
    diff -u --label in.pto --label in.pto in.pto expected.pto > want
    if [ "$(head -n 2 out)" != "$(printf -- '--- in.pto\n+++ in.pto')" ]; then bad "headers"
    elif [ "$(grep '^@@' out)" != "$(grep '^@@' want)" ]; then bad "hunks: $(grep '^@@' out) vs $(grep '^@@' want)"
    elif [ "$(grep -c '^[-+]' out)" != "$(grep -c '^[-+]' want)" ]; then bad "not as short as diff -u's"
    else ok; fi
fi

current=diff-patch-applies
if command -v patch > /dev/null; then
    cp in.pto patched.pto
    "$tool" patched.pto --passes=convert-to-ssa,outline-incore --diff > d.patch 2> err
    patch -s patched.pto < d.patch > /dev/null 2>&1 && cmp -s patched.pto expected.pto && ok || bad "the diff does not patch the input into the result"
else ok; fi

current=diff-no-change-is-empty
run expected.pto --diff
expect_rc 0 && { [ -s out ] && bad "a diff for an unchanged program" || ok; }

current=diff-color-always
run in.pto --passes=convert-to-ssa --diff --color=always
if expect_rc 0; then
    if ! grep -q $'^\033\\[31m-' out || ! grep -q $'^\033\\[32m+' out || ! grep -q $'\033\\[36m@@' out; then bad "no colours"
    else ok; fi
fi

current=diff-color-never-and-pipe
run in.pto --passes=convert-to-ssa --diff --color=never
expect_rc 0 && { grep -q $'\033' out && bad "colour with --color=never" || ok; }
run in.pto --passes=convert-to-ssa --diff
expect_rc 0 && { grep -q $'\033' out && bad "colour on a pipe with --color=auto" || ok; }

current=diff-no-color-env
if command -v script > /dev/null; then
    # a terminal: colour by default, none with NO_COLOR set
    script -qec "'$tool' '$PWD/in.pto' --passes=convert-to-ssa --diff" /dev/null > tty.out 2>&1 < /dev/null
    NO_COLOR=1 script -qec "'$tool' '$PWD/in.pto' --passes=convert-to-ssa --diff" /dev/null > tty-nc.out 2>&1 < /dev/null
    if ! grep -q $'\033\\[3' tty.out; then bad "no colour on a terminal"
    elif grep -q $'\033\\[3' tty-nc.out; then bad "colour on a terminal despite NO_COLOR"
    else ok; fi
else ok; fi

current=diff-bad-color
run in.pto --diff --color=sometimes
expect_rc 2 && { has "auto, always, never" err && ok || bad "message"; }

# ================================================================ stderr dumps
current=print-after-all
run in.pto --passes=convert-to-ssa,outline-incore --print-after-all
if expect_rc 0; then
    if ! cmp -s out expected.pto; then bad "stdout changed"
    elif [ "$(grep -c '^# \*\*\* IR Dump After ' err)" -ne 2 ]; then bad "not one dump per pass"
    elif ! has "# *** IR Dump After outline-incore (in.pto) ***" err; then bad "header"
    else
        # the last dump is the result
        sed -n '/IR Dump After outline-incore/,$p' err | tail -n +2 > last
        cmp -s last expected.pto && ok || bad "the last dump is not the result"
    fi
fi

current=print-changed
# infer-directions changes nothing here (no kernel yet)
run in.pto --passes=convert-to-ssa,infer-directions,outline-incore --print-changed
if expect_rc 0; then
    if ! has "# *** IR Dump At Start (in.pto) ***" err; then bad "no start dump"
    elif [ "$(grep -c '^# \*\*\* IR Dump After' err)" -ne 3 ]; then bad "not one line per pass"
    elif ! has "# *** IR Dump After convert-to-ssa (in.pto) ***" err; then bad "convert-to-ssa not dumped"
    elif ! has "# *** IR Dump After infer-directions (in.pto) omitted because no change ***" err; then bad "infer-directions not reported unchanged"
    elif ! cmp -s out expected.pto; then bad "stdout changed"
    else ok; fi
fi

current=dump-dir
run in.pto --passes=convert-to-ssa,outline-incore,infer-directions --dump-dir=dumps/sub
if expect_rc 0; then
    if [ "$(ls dumps/sub | tr '\n' ' ')" != "01_after_convert-to-ssa.pto 02_after_outline-incore.pto 03_after_infer-directions.pto " ]; then
        bad "dump files: $(ls dumps/sub | tr '\n' ' ')"
    elif ! cmp -s dumps/sub/02_after_outline-incore.pto expected.pto; then bad "the outline-incore dump is not its result"
    elif ! "$tool" dumps/sub/01_after_convert-to-ssa.pto --passes=outline-incore 2> err | cmp -s - expected.pto; then bad "a dump does not read back"
    else ok; fi
fi

current=dump-dir-unwritable
: > afile
run in.pto --passes=convert-to-ssa --dump-dir=afile/x
expect_rc 1 && { [ -s out ] && bad "stdout not empty" || ok; }

current=time-passes
run in.pto --passes=convert-to-ssa,outline-incore --time-passes
if expect_rc 0; then
    if ! cmp -s out expected.pto; then bad "stdout changed"
    elif ! grep -Eq '^ *[0-9]+\.[0-9]{6} +[0-9.]+  convert-to-ssa$' err; then bad "no convert-to-ssa row"
    elif ! grep -Eq '^ *[0-9]+\.[0-9]{6} +[0-9.]+  outline-incore$' err; then bad "no outline-incore row"
    elif ! grep -Eq '^ *[0-9]+\.[0-9]{6} +100\.0  total$' err; then bad "no total row"
    else ok; fi
fi

# ================================================================ golden files
current=golden-workflow
mkdir golden
cp "$data/pipeline/kernel_directions.pto" k.pto
K='--passes=infer-directions{mode=raise-only}'
# generate the golden file
run k.pto "$K" --expect=golden/k.pto --update
if expect_rc 0; then
    "$tool" k.pto "$K" > want 2> /dev/null
    if ! cmp -s golden/k.pto want || ! has "def k(a: pl.InOut[pl.Tensor[[64], pl.FP32]])" golden/k.pto; then
        bad "--update did not write the result"
    else
        # nothing changed: passes, prints nothing
        run k.pto "$K" --expect=golden/k.pto
        if ! expect_rc 0; then :
        elif [ -s out ]; then bad "output when the golden file matches"
        else
            # a pass option changed: fails with the diff
            run k.pto '--passes=infer-directions{mode=exact}' --expect=golden/k.pto
            if ! expect_rc 1; then :
            elif ! grep -q '^--- golden/k.pto$' out || ! grep -q '^+++ k.pto$' out || ! grep -q '^@@ -4,7 +4,7 @@$' out; then bad "no diff on stdout"
            elif ! grep -qF -- '-    def k(a: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:' out ||
                 ! grep -qF -- '+    def k(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:' out; then bad "the diff does not show the direction change"
            elif ! has "the result differs from 'golden/k.pto'" err; then bad "no message on stderr"
            else
                # a renamed golden file: text mode fails, structural mode passes
                sed 's/\ba\b/src/g; s/\bb\b/bumped/g; s/\by\b/res/g' golden/k.pto > golden/renamed.pto
                run k.pto "$K" --expect=golden/renamed.pto
                if ! expect_rc 1; then :
                elif cmp -s golden/renamed.pto golden/k.pto; then bad "the renaming changed nothing"
                else
                    run k.pto "$K" --expect=golden/renamed.pto --expect-mode=structural
                    if expect_rc 0; then
                        # --update in structural mode leaves a structurally equal file alone
                        cp golden/renamed.pto keep.pto
                        run k.pto "$K" --expect=golden/renamed.pto --expect-mode=structural --update
                        if expect_rc 0; then
                            cmp -s keep.pto golden/renamed.pto && ok || bad "--update rewrote a structurally equal golden file"
                        fi
                    fi
                fi
            fi
        fi
    fi
fi

current=golden-update-rewrites
run k.pto '--passes=infer-directions{mode=exact}' --expect=golden/k.pto --update
if expect_rc 0; then
    "$tool" k.pto '--passes=infer-directions{mode=exact}' > want 2> /dev/null
    if ! cmp -s golden/k.pto want; then bad "not rewritten"
    elif ls golden | grep -q tmp; then bad "a temporary file was left"
    else ok; fi
fi

current=golden-missing-suggests-update
run k.pto "$K" --expect=golden/nope.pto
expect_rc 1 && { has "cannot read the golden file 'golden/nope.pto': No such file or directory (run with --update to create it)" err && ok || bad "got: $(head -1 err)"; }

current=golden-directory
# several inputs: --expect=DIR compares each with DIR/NAME; --update fills it
mkdir -p gd a b
cp k.pto a/k1.pto
cp k.pto b/k2.pto
"$tool" k.pto "$K" > want-k 2> /dev/null
run a/k1.pto b/k2.pto "$K" --expect=gd --update
if expect_rc 0; then
    if ! cmp -s gd/k1.pto want-k || ! cmp -s gd/k2.pto want-k; then bad "--update did not write DIR/NAME"
    else
        run a/k1.pto b/k2.pto "$K" --expect=gd
        if expect_rc 0; then
            printf '\n' >> gd/k2.pto
            run a/k1.pto b/k2.pto "$K" --expect=gd
            expect_rc 1 && { has "the result differs from 'gd/k2.pto'" err && ! has "gd/k1.pto" err && ok || bad "got: $(cat err)"; }
        fi
    fi
fi
cp k.pto b/k1.pto
run a/k1.pto b/k1.pto "$K" --expect=gd
expect_rc 2 && { has "would both be compared with 'gd/k1.pto'" err && ok || bad "got: $(head -1 err)"; }
run a/k1.pto b/k2.pto "$K" --expect=want-k
expect_rc 2 && { has "name a directory of golden files" err && ok || bad "got: $(head -1 err)"; }

P='--passes=convert-to-ssa,outline-incore'
current=golden-structural-still-sees-changes
# a different constant, a different op and a swapped use are differences
sed 's/pl.tensor.mul(x__ssa_v0, x__ssa_v0)/pl.tensor.add(x__ssa_v0, x__ssa_v0)/' expected.pto > g-op.pto
sed 's/main_incore_0/main_incore_9/g' expected.pto > g-fn.pto
sed 's/pl.FP32/pl.FP16/g' expected.pto > g-ty.pto
all=1
for g in g-op g-fn g-ty; do
    run in.pto "$P" --expect=$g.pto --expect-mode=structural
    expect_rc 1 || { all=0; break; }
    has "(variables renamed)" out || { bad "$g: no diff"; all=0; break; }
done
[ $all = 1 ] && ok

current=golden-structural-bad-golden
printf 'not a program\n' > g-bad.pto
run in.pto "$P" --expect=g-bad.pto --expect-mode=structural
expect_rc 1 && { grep -q '^g-bad.pto:1:1: error: ' err && ok || bad "no located error in the golden file"; }

current=golden-update-repairs-broken-golden
printf 'not a program\n' > g-broken.pto
run in.pto "$P" --expect=g-broken.pto --expect-mode=structural --update
if expect_rc 0; then
    if ! cmp -s g-broken.pto expected.pto; then bad "not rewritten"
    elif [ -s err ]; then bad "an error message although the file was rewritten"
    else ok; fi
fi

current=golden-missing-file
run in.pto "$P" --expect=nope.pto
expect_rc 1 && { has "nope.pto" err && ok || bad "message"; }

current=golden-usage-errors
run in.pto --update
expect_rc 2 && { has "--update needs --expect" err && ok || bad "message"; }
run in.pto in.pto --expect=expected.pto
expect_rc 2 && ok
run in.pto --expect=expected.pto --expect-mode=fuzzy
expect_rc 2 && { has "text, structural" err && ok || bad "message"; }
run in.pto --expect=expected.pto -o x.pto
expect_rc 2 && { [ -e x.pto ] && bad "wrote -o" || ok; }
run in.pto --expect=expected.pto --diff
expect_rc 2 && ok

# ================================================================ files
current=several-inputs-stdout-in-order
cp in.pto second.pto
run in.pto second.pto "$P"
if expect_rc 0; then
    cat expected.pto expected.pto > want
    cmp -s out want && ok || bad "not both results in order"
fi

current=several-inputs-one-fails
printf 'garbage\n' > broken.pto
run in.pto broken.pto second.pto "$P"
if expect_rc 1; then
    cat expected.pto expected.pto > want
    if ! cmp -s out want; then bad "the good inputs were not processed"
    elif ! grep -q '^broken.pto:1:1: error: ' err; then bad "no located error"
    else ok; fi
fi

current=several-inputs-to-dir
mkdir outdir
run in.pto second.pto "$P" -o outdir
if expect_rc 0; then
    cmp -s outdir/in.pto expected.pto && cmp -s outdir/second.pto expected.pto && ok || bad "outdir/NAME not written"
fi

current=several-inputs-to-file
run in.pto second.pto "$P" -o one.pto
if expect_rc 2; then
    [ -e one.pto ] && bad "wrote one.pto" || { has "-o names a directory" err && ok || bad "message"; }
fi

current=stdin-among-files
run_stdin in.pto second.pto - "$P"
if expect_rc 0; then
    cat expected.pto expected.pto > want
    cmp -s out want && ok || bad "stdin not processed in order"
fi

current=in-place
cp in.pto ip.pto
chmod 640 ip.pto
run ip.pto "$P" --in-place
if expect_rc 0; then
    if [ -s out ]; then bad "stdout not empty"
    elif ! cmp -s ip.pto expected.pto; then bad "the file was not replaced by the result"
    elif [ "$(stat -c %a ip.pto)" != 640 ]; then bad "permissions not kept: $(stat -c %a ip.pto)"
    else ok; fi
fi

current=in-place-error-keeps-file
cp in.pto ip2.pto
run ip2.pto --passes=outline-incore -i
if expect_rc 1; then
    if ! cmp -s ip2.pto in.pto; then bad "the file changed"
    elif ls | grep -q tmp; then bad "a temporary file was left behind"
    else ok; fi
fi

current=in-place-several
cp in.pto ip3.pto
cp in.pto ip4.pto
run -i ip3.pto ip4.pto "$P"
expect_rc 0 && { cmp -s ip3.pto expected.pto && cmp -s ip4.pto expected.pto && ok || bad "not both replaced"; }

current=effect-by-kwarg-symbol
# set_arg_effect of pld.tensor.put: Write, ReadWrite when atomic is not None_;
# the kwarg's own symbols decide (pld.AtomicType.Add / None_)
run "$data/pipeline/put_atomic_symbol.pto" --passes=convert-to-ssa,outline-incore
if expect_rc 0; then
    if ! grep -q 'def main_incore_0(data__ssa_v0: pl.InOut\[' out; then bad "atomic=Add: not InOut"
    elif ! grep -q 'def main_incore_1(data__ssa_v0: pl.Out\[' out; then bad "atomic=None_: not Out"
    else ok; fi
fi

current=yaml-guards
# nesting is bounded before libyaml spends quadratic time on it; duplicate
# keys, a second document, an op declared twice are located errors; a
# missing --ops file is named (also one named in a config)
awk 'BEGIN { printf "ops: "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' > deep-ops.yaml
awk 'BEGIN { printf "passes: "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' > deep-cfg.yaml
awk 'BEGIN { for (i = 0; i < 200; i++) { for (j = 0; j < i; j++) printf " "; printf "k%d:\n", i } }' > deep-block.yaml
printf 'ops:\n  - {op: tensor.zz, result: {rule: none}}\n  - {op: tensor.zz, result: {rule: none}}\n' > dup-op.yaml
printf 'ops:\n  - {op: tensor.zz, op: tensor.yy, result: {rule: none}}\n' > dup-key.yaml
printf 'ops: []\n---\nops: []\n' > two-docs.yaml
printf 'passes: [convert-to-ssa]\npasses: [outline-incore]\n' > dup-cfg.yaml
printf 'ops: [no-such-ops.yaml]\n' > cfg-missing-ops.yaml
all=1
check_yaml() { # check_yaml RC MESSAGE ARGS...
    local want=$1 msg=$2; shift 2
    run "$@" in.pto
    if [ "$rc" != "$want" ] || ! has "$msg" err; then bad "$*: exit $rc, $(head -1 err)"; all=0; fi
}
check_yaml 1 "deep-ops.yaml:1:69: error: invalid YAML: nested deeper than 64 levels" --ops=deep-ops.yaml
check_yaml 2 "deep-cfg.yaml:1:72: error: YAML: nested deeper than 64 levels" --config=deep-cfg.yaml
check_yaml 2 "deep-block.yaml:65:65: error: YAML: nested deeper than 64 levels" --config=deep-block.yaml
check_yaml 1 "dup-op.yaml:3:5: error: op 'tensor.zz' declared twice in this file" --ops=dup-op.yaml
check_yaml 1 "dup-key.yaml:2:21: error: invalid YAML: key 'op' given twice" --ops=dup-key.yaml
check_yaml 1 "two-docs.yaml:2:1: error: invalid YAML: a second document" --ops=two-docs.yaml
check_yaml 2 "dup-cfg.yaml:2:1: error: YAML: key 'passes' given twice" --config=dup-cfg.yaml
check_yaml 1 "cannot open the op registry file 'nope.yaml'" --ops=nope.yaml
check_yaml 2 "cannot open the op registry file 'no-such-ops.yaml'" --config=cfg-missing-ops.yaml
[ $all = 1 ] && ok

current=ops-redefined-300-times
# the same op redefined by 300 --ops files: the registry's arena grows into
# huge-page blocks; under ASan, LeakSanitizer must find nothing (it does not
# scan mmap'd memory unless the arena registers it)
printf 'ops:\n  - {op: tensor.exp, params: [{name: input, kind: tensor}], result: {rule: tensor-unary, arg: 0}}\n' > redef.yaml
many=()
for i in $(seq 300); do many+=(--ops=redef.yaml); done
run "${many[@]}" in.pto
if expect_rc 0; then
    if [ -s err ]; then bad "stderr: $(head -3 err)"; else ok; fi
fi

current=in-place-refuses-to-drop-text
# a module comment, a tail-of-block comment, a docstring and a module
# constant: the reference's printer drops all four, so -i keeps the file
cat > lossy.pto <<'EOF'
# module comment
import pypto.language as pl

N = 64

@pl.program
class P:
    """Docstring."""
    @pl.function
    def f(self, x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        y = pl.add(x, x)  # trailing: kept above its statement
        return y
        # end of block
EOF
cp lossy.pto lossy-keep.pto
run -i lossy.pto
if expect_rc 1; then
    if ! cmp -s lossy.pto lossy-keep.pto; then bad "the file changed"
    elif ! has "lossy.pto:1:1: error: printing drops the comment 'module comment'" err || ! has "lossy.pto:4:1: error: printing drops the module-level constant 'N'" err ||
         ! has "lossy.pto:8:5: error: printing drops the docstring 'Docstring.'" err || ! has "lossy.pto:13:9: error: printing drops the comment 'end of block'" err; then
        bad "not every lost piece reported: $(cat err)"
    elif has "trailing" err; then bad "a trailing comment the printer keeps was reported"
    else ok; fi
fi
run lossy.pto -o lossy.pto
expect_rc 1 && { cmp -s lossy.pto lossy-keep.pto && ok || bad "-o onto the input changed it"; }
run --check-lossless lossy.pto
expect_rc 1 && { [ -s out ] && bad "--check-lossless wrote output" || ok; }
run --check-lossless expected.pto
expect_rc 0 && { [ -s out ] && bad "--check-lossless wrote output" || ok; }
run -i --allow-lossy lossy.pto
expect_rc 0 && { grep -q 'module comment' lossy.pto && bad "not rewritten" || ok; }

current=in-place-usage-errors
run -i "$P"
expect_rc 2 && ok
run -i in.pto -o x.pto
expect_rc 2 && { [ -e x.pto ] && bad "wrote -o" || ok; }

finish
