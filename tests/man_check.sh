#!/usr/bin/env bash
# The manual page renders without warnings (groff -man -ww -z), and every long
# option `ptoopt --help` shows is documented in it.
#
# usage: man_check.sh PTOOPT MANPAGE
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 PTOOPT MANPAGE" >&2
    exit 2
fi
tool=$1
page=$2
fail=0
if ! command -v groff > /dev/null; then
    echo "man_check: groff is not installed (Debian: groff-base)" >&2
    exit 1
fi
warnings=$(groff -man -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
    echo "FAIL groff warnings:"
    echo "$warnings" | sed 's/^/    /'
    fail=1
fi
# the page as text, with groff's hyphen escapes undone
text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$page")
opts=$("$tool" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] || { echo "FAIL no long options in --help"; fail=1; }
n=0
for o in $opts; do
    n=$((n + 1))
    if ! grep -qF -- "$o" <<< "$text"; then
        echo "FAIL $o is in --help but not in $page"
        fail=1
    fi
done
# and the other way round: every long option the page lists is in --help
for o in $(grep -oE '^\.B[IR]? +\\-\\-[a-z][a-z\\-]*' "$page" | sed 's/^[^\\]*//; s/\\-/-/g' | sort -u); do
    if ! "$tool" --help | grep -qF -- "$o"; then
        echo "FAIL $o is in $page but not in --help"
        fail=1
    fi
done
[ $fail = 0 ] && echo "man_check: $n long options of --help documented, no groff warnings"
exit $fail
