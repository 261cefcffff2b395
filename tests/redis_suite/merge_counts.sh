#!/usr/bin/env bash
# Makes a counts file (tests/redis_suite/counts.own or counts) from two
# runs of run.sh kept with REDIS_SUITE_KEEP=1 REDIS_SUITE_RECORD=1, one with
# GOBLIN_SERVER=goblin-core and one with GOBLIN_SERVER=/usr/bin/redis-server,
# on the same machine:
#
#   bash tests/redis_suite/merge_counts.sh GOBLIN_DIR REDIS_DIR >counts.own
#
# One line per unit: "unit goblin-ok redis-ok", and where goblin-core's run
# stopped early "stops: " and the first [exception] or [TIMEOUT] line of
# its output (run.sh accepts the stop while that reason is recorded).
set -eu
goblin=$1 redis=$2
echo "# Redis 7.0.15's suite in its own mode (REDIS_SUITE_MODE=own), per unit:"
echo "#   unit  goblin-core-passed  redis-server-passed  [stops: why goblin-core's run ends early]"
echo "# Made by tests/redis_suite/merge_counts.sh from two kept runs of run.sh"
echo "# (docs/redis-suite.md, \"Own mode\"); raise a number when a fix passes more."
for f in "$goblin"/unit.*.result; do
    n=${f##*/unit.}
    n=${n%.result}
    read -r unit ok stopped <"$f"
    rf=$(grep -l "^$unit " "$redis"/unit.*.result | head -1)
    redis_ok=?
    [ -n "$rf" ] && read -r _ redis_ok _ <"$rf"
    line="$unit $ok $redis_ok"
    if [ "$stopped" = yes ]; then
        why=$(grep -m1 '\[exception\]\|\[TIMEOUT\]' "$goblin/unit.$n.out" | cut -c1-160 || true)
        line="$line stops: ${why:-no final summary}"
    fi
    echo "$n $line"
done | sort -n | cut -d' ' -f2-
