#!/bin/sh
# Usage: make/quietly.sh "one-line notice" command [arguments...]
#
# Prints the notice, runs the command with its output in .cache/logs/, and shows that output only
# when the command fails, so `make test` prints progress and results rather than installer logs.
notice=$1
shift
mkdir -p .cache/logs
log=".cache/logs/$(printf '%s' "$notice" | tr -c 'A-Za-z0-9.' '-' | cut -c1-60).log"
printf '%s\n' "$notice"
"$@" >"$log" 2>&1 || {
    status=$?
    printf 'failed (exit %s): %s\n' "$status" "$*" >&2
    tail -n 60 "$log" >&2
    printf '(whole log: %s)\n' "$log" >&2
    exit "$status"
}
