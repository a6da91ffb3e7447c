#!/usr/bin/env bash
# Screenshots of TensorBoard's dashboards on a log directory, taken with a
# headless Chromium against a local tensorboard (how docs/images/tensorboard_*.png
# were made). Needs `apt-get install chromium` and `pip install tensorboard`;
# neither is a dependency of nabla.
#
#   scripts/tensorboard_screenshot.sh LOGDIR OUTDIR [dashboard ...]   (default: scalars graphs histograms)
set -euo pipefail
logdir=$1 outdir=$2
shift 2
[ $# -gt 0 ] && dashboards=("$@") || dashboards=(scalars graphs histograms)
port=$((20000 + RANDOM % 20000))
mkdir -p "$outdir"
tensorboard --logdir "$logdir" --port "$port" >/dev/null 2>&1 &
tb=$!
trap 'kill $tb 2>/dev/null' EXIT
for _ in $(seq 60); do curl -sf "http://localhost:$port" >/dev/null && break; sleep 1; done
for d in "${dashboards[@]}"; do
  # A virtual-time budget lets the page's scripts fetch and draw the data first.
  chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 \
    --virtual-time-budget=15000 --screenshot="$outdir/tensorboard_$d.png" "http://localhost:$port/?darkMode=false#$d" \
    2>/dev/null
done
ls -l "$outdir"/tensorboard_*.png
