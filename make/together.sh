#!/bin/sh
# Usage: make/together.sh "name" "command" ["name" "command" ...]
#
# Runs the commands at the same time, each with its output in .cache/logs/<name>.log. As each one
# ends it prints "name: " and the last line of its output (pytest's summary), and, when it failed,
# its whole output. Exits 1 if any failed, after all have ended.
mkdir -p .cache/logs
pids=""
while [ $# -ge 2 ]; do
    log=".cache/logs/$(printf '%s' "$1" | tr -c 'A-Za-z0-9.' '-').log"
    (
        if sh -c "$2" >"$log" 2>&1; then
            printf '%s: %s\n' "$1" "$(tail -n 1 "$log")"
        else
            status=$?
            cat "$log"
            printf '%s: failed (exit %s), output above and in %s\n' "$1" "$status" "$log" >&2
            exit 1
        fi
    ) &
    pids="$pids $!"
    shift 2
done
failed=0
for pid in $pids; do
    wait "$pid" || failed=1
done
exit "$failed"
