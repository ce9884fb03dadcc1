#!/bin/sh
# Usage: make/together.sh "name" "command" ["name" "command" ...]
#
# Runs the commands at the same time, each with its output in .cache/logs/<name>.log. As each one
# ends it prints "name: " and the last line of its output (pytest's summary) with the CPU seconds
# it took (user + system, its processes included: what the machine's cores spent on it), and, when
# it failed, its whole output. Exits 1 if any failed, after all have ended.
mkdir -p .cache/logs
# The CPU seconds of the children of the shell that wrote FILE with `times` (its second line,
# "1m2.50s 0m3.25s": user, then system). `times` runs in that shell itself: in a subshell, such as
# $(times), it would count only that subshell's own children.
cpu_seconds() {
    awk 'NR == 2 {
        total = 0
        for (field = 1; field <= 2; field++) { split($field, part, "m"); total += part[1] * 60 + part[2] }
        printf "%.0f", total
    }' "$1"
}
pids=""
while [ $# -ge 2 ]; do
    log=".cache/logs/$(printf '%s' "$1" | tr -c 'A-Za-z0-9.' '-').log"
    (
        sh -c "$2" >"$log" 2>&1
        status=$?
        times >"$log.times"
        if [ "$status" = 0 ]; then
            printf '%s: %s (%s CPU s)\n' "$1" "$(tail -n 1 "$log")" "$(cpu_seconds "$log.times")"
        else
            cat "$log"
            printf '%s: failed (exit %s, %s CPU s), output above and in %s\n' \
                "$1" "$status" "$(cpu_seconds "$log.times")" "$log" >&2
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
