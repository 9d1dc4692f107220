#!/usr/bin/env bash
# print(parse(print(x))) == print(x): for every input that ptoopt accepts
# (the .pto files under each DIR: the repository's test data and, when it
# is there, the whole conformance corpus, each distinct text once), its
# print must parse again and print to the same bytes.  A print the parser
# rejects, or one that is not a fixed point (a name printed twice and
# renamed on the second round), fails the test.
#
# The work is tests/corpus.py's: both rounds go through --split-input-file
# batches; a text whose second round differs is checked again on its own.
#
# usage: print_fixpoint.sh PTOOPT DIR...   (a missing DIR is skipped)
tool=${1:?usage: $0 PTOOPT DIR...}
shift
exec python3 "$(dirname "$0")/corpus.py" fixpoint "$tool" "$@"
