#!/usr/bin/env bash
# Output files (issue #20, item 3): what -o, -o DIR, -i, --update and
# --dump-dir do to the files they replace.
#   - an empty or unusable --dump-dir and two inputs of one name under
#     -o DIR are usage errors (exit 2) before anything is written;
#   - writing onto a symbolic link writes the file it points to and keeps
#     the link (also a dangling one, and a chain of links);
#   - a replaced file keeps its owner, group and mode; run by root onto
#     another user's file, the owner stays; where the owner cannot be kept
#     (an unprivileged run), the set-user/group-ID bits are dropped;
#   - SIGTERM / SIGINT / SIGHUP while the result is being written remove the
#     temporary file and exit 143 / 130 / 129;
#   - an input cut short while it is mapped is an error, and nothing is
#     written.
#
# usage: output_files.sh PTOOPT EXAMPLE.pto
set -u
tool=${1:?usage: $0 PTOOPT EXAMPLE.pto}
example=${2:?usage: $0 PTOOPT EXAMPLE.pto}
case $tool in /*) ;; *) tool=$PWD/$tool ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-out.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

expected=$("$tool" "$example") || { echo "cannot run $tool on $example"; exit 1; }
same() { [ "$(cat "$1")" == "$expected" ]; }
leftovers() { find "$tmp" -name '*.tmp??????' | grep -q .; }

# ---- usage errors before writing anything
mkdir -p "$tmp/d1" "$tmp/d2" "$tmp/out"
cp "$example" "$tmp/d1/x.pto"
cp "$example" "$tmp/d2/x.pto"
( cd "$tmp" && "$tool" --passes=convert-to-ssa --dump-dir= d1/x.pto d2/x.pto > /dev/null 2> err )
rc=$?
if [ $rc -eq 2 ] && grep -q "dump-dir" "$tmp/err" && [ ! -e /NAME ]; then ok; else bad "--dump-dir= : exit $rc"; fi
: > "$tmp/afile"
"$tool" --passes=convert-to-ssa --dump-dir="$tmp/afile" "$tmp/d1/x.pto" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "not a directory" "$tmp/err"; then ok; else bad "--dump-dir onto a file: exit $rc"; fi
"$tool" -o "$tmp/out" "$tmp/d1/x.pto" "$tmp/d2/x.pto" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "would both be written to" "$tmp/err" && [ -z "$(ls "$tmp/out")" ]; then ok
else bad "-o DIR with two x.pto: exit $rc, $(ls "$tmp/out")"; fi

# ---- symbolic links: the target is written, the link stays
mkdir -p "$tmp/real"
echo old > "$tmp/real/target.pto"
ln -s real/target.pto "$tmp/link.pto"
"$tool" "$example" -o "$tmp/link.pto"
if [ -L "$tmp/link.pto" ] && same "$tmp/real/target.pto"; then ok; else bad "-o onto a link replaced the link"; fi
cp "$example" "$tmp/real/in.pto"
ln -s "$tmp/real/in.pto" "$tmp/in-link.pto"      # absolute
ln -s in-link.pto "$tmp/in-link2.pto"            # a chain
printf '\n\n' >> "$tmp/real/in.pto"              # -i changes something
"$tool" -i "$tmp/in-link2.pto"
if [ -L "$tmp/in-link.pto" ] && [ -L "$tmp/in-link2.pto" ] && same "$tmp/real/in.pto"; then ok
else bad "-i through a chain of links"; fi
echo stale > "$tmp/real/golden.pto"
ln -s real/golden.pto "$tmp/golden-link.pto"
"$tool" "$example" --expect="$tmp/golden-link.pto" --update > /dev/null
if [ -L "$tmp/golden-link.pto" ] && same "$tmp/real/golden.pto"; then ok; else bad "--update through a link"; fi
ln -s real/new.pto "$tmp/dangling.pto"
"$tool" "$example" -o "$tmp/dangling.pto"
if [ -L "$tmp/dangling.pto" ] && same "$tmp/real/new.pto"; then ok; else bad "-o onto a dangling link"; fi
if leftovers; then bad "temporary files left: $(find "$tmp" -name '*.tmp??????')"; else ok; fi

# ---- owner, group and mode of a replaced file
mode_of() { stat -c %a "$1"; }
owner_of() { stat -c %u:%g "$1"; }
cp "$example" "$tmp/m.pto"
chmod 0640 "$tmp/m.pto"
"$tool" -i "$tmp/m.pto"
if [ "$(mode_of "$tmp/m.pto")" = 640 ]; then ok; else bad "-i changed mode 0640 to $(mode_of "$tmp/m.pto")"; fi
if [ "$(id -u)" = 0 ]; then
    cp "$example" "$tmp/u.pto"
    chown 1234:2345 "$tmp/u.pto"
    chmod 04750 "$tmp/u.pto"
    "$tool" -i "$tmp/u.pto"
    if [ "$(owner_of "$tmp/u.pto")" = 1234:2345 ] && [ "$(mode_of "$tmp/u.pto")" = 4750 ]; then ok
    else bad "root -i: $(owner_of "$tmp/u.pto") $(mode_of "$tmp/u.pto"), want 1234:2345 4750"; fi
    cp "$example" "$tmp/o.pto"
    chown 1234:2345 "$tmp/o.pto"
    "$tool" "$example" -o "$tmp/o.pto"
    if [ "$(owner_of "$tmp/o.pto")" = 1234:2345 ]; then ok; else bad "root -o: owner $(owner_of "$tmp/o.pto")"; fi
    # an unprivileged writer cannot keep another user's ownership: no set-ID bits
    if command -v setpriv > /dev/null; then
        chmod 0755 "$tmp"
        mkdir -m 0777 "$tmp/shared"
        cp "$example" "$tmp/shared/s.pto"
        printf '\n\n' >> "$tmp/shared/s.pto"
        chown 1234:2345 "$tmp/shared/s.pto"
        chmod 06777 "$tmp/shared/s.pto"
        setpriv --reuid=65534 --regid=65534 --clear-groups "$tool" -i "$tmp/shared/s.pto"
        m=$(mode_of "$tmp/shared/s.pto")
        if [ "$(stat -c %u "$tmp/shared/s.pto")" = 65534 ] && [ "$m" = 777 ]; then ok
        else bad "unprivileged -i onto another user's 06777 file: $(owner_of "$tmp/shared/s.pto") $m, want 65534:* 777"; fi
    fi
fi

# ---- a signal while writing: no temporary file left, exit 128 + N
# A large result is printed straight into the temporary file; the writer is
# stopped once the file exists, signalled, then continued.
big="$tmp/big.pto"
{
    sed -n '1,/^class/p' "$example"
    awk 'BEGIN { for (i = 1; i <= 12000; i++) {
        printf "    @pl.function\n    def f%d(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:\n", i
        for (j = 0; j < 20; j++) print "        x = pl.add(x, x)"
        print "        return x" } }'
} > "$big"
for sig in TERM INT HUP; do
    case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
    rm -rf "$tmp/sig"; mkdir "$tmp/sig"
    # (a background job of a script starts with SIGINT ignored, and under
    # nohup SIGHUP is; ptoopt leaves an ignored signal ignored, as nohup
    # wants: give all three the default)
    env --default-signal=INT,HUP,TERM "$tool" "$big" -o "$tmp/sig/out.pto" &
    pid=$!
    seen=0
    for _ in $(seq 1 20000); do
        if compgen -G "$tmp/sig/out.pto.tmp??????" > /dev/null; then
            # SIGSTOP lands asynchronously: wait until the writer is
            # stopped, then count it only if the temporary file is still
            # there (else the write finished first: not checked)
            if kill -STOP $pid 2> /dev/null; then
                for _ in $(seq 1 2000); do
                    st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' /proc/$pid/stat 2> /dev/null)
                    case $st in T|t|Z|"") break ;; esac
                done
                compgen -G "$tmp/sig/out.pto.tmp??????" > /dev/null && seen=1
                [ $seen = 1 ] || kill -CONT $pid 2> /dev/null
            fi
            break
        fi
        kill -0 $pid 2> /dev/null || break
    done
    if [ $seen = 1 ]; then
        kill -$sig $pid
        kill -CONT $pid
    fi
    wait $pid
    rc=$?
    if [ $seen = 0 ]; then
        echo "note: SIG$sig: the write finished before it could be interrupted (rc $rc); not checked"
    elif [ $rc -eq $want ] && ! find "$tmp/sig" -name '*.tmp??????' | grep -q . && [ ! -e "$tmp/sig/out.pto" ]; then ok
    else bad "SIG$sig while writing: exit $rc (want $want), left: $(ls "$tmp/sig")"; fi
done

# ---- the input made shorter while ptoopt has it mapped (file_read.c maps
# a large regular file): an error naming it, exit 1, nothing written.  The
# run is stopped once the mapping is in /proc/PID/maps, the file cut short,
# the run continued; where the parse had already read all of it, the run
# succeeds (not checked).
cp "$big" "$tmp/shrink.pto"
"$tool" -j1 --passes=convert-to-ssa "$tmp/shrink.pto" -o "$tmp/shrunk.pto" 2> "$tmp/shrink.err" &
pid=$!
seen=0
for _ in $(seq 1 20000); do
    if grep -q 'shrink\.pto' /proc/$pid/maps 2> /dev/null; then
        if kill -STOP $pid 2> /dev/null; then
            for _ in $(seq 1 2000); do
                st=$(sed -n 's/^[0-9]* ([^)]*) \(.\).*/\1/p' /proc/$pid/stat 2> /dev/null)
                case $st in T|t|Z|"") break ;; esac
            done
            truncate -s 100 "$tmp/shrink.pto" && seen=1
            kill -CONT $pid
        fi
        break
    fi
    kill -0 $pid 2> /dev/null || break
done
wait $pid
rc=$?
if [ $seen = 0 ] || [ $rc -eq 0 ]; then
    echo "note: input cut short: the run had read it first (rc $rc); not checked"
elif [ $rc -eq 1 ] && grep -q "^ptoopt: error: '$tmp/shrink.pto' was made shorter while it was read$" "$tmp/shrink.err" &&
    [ ! -e "$tmp/shrunk.pto" ] && ! find "$tmp" -name 'shrunk.pto.tmp??????' | grep -q .; then ok
else bad "input cut short while mapped: exit $rc, stderr: $(head -c 300 "$tmp/shrink.err"), left: $(ls "$tmp" | grep shrunk)"; fi

echo "output files: $pass passed, $fail failed"
[ $fail -eq 0 ]
