#!/bin/bash
# Live sessions held at real time on the device's GPU (bench/realtime.ts), several settings in one call so that
# before and after are measured on the same machine. Each SPEC is label/engine threads/ENGINE_STEP_ROWS/levels, e.g.
#   bash bench/device/realtime.sh 'before/16/0/64,96' 'after/16/256/64,96,128'
# A run's first level also pays for the first passes of every engine thread (cuDNN picks algorithms per new
# encoder length): compare levels that come after another one.
export ENGINE_PROVIDER=cuda MODEL=${MODEL:-whisper-base} MODEL_FAST=${MODEL:-whisper-base} BENCH_REALTIME_OTHER_MODES=none
export BENCH_REALTIME_SECONDS=${SECONDS_PER_SESSION:-15} REALTIME_INTRA_OP_THREADS=2
for spec in "$@"; do
  IFS=/ read -r label threads rows levels <<< "$spec"
  echo "=== $label: REALTIME_ENGINE_THREADS=$threads ENGINE_STEP_ROWS=$rows levels $levels ($(date +%T))"
  REALTIME_ENGINE_THREADS=$threads ENGINE_STEP_ROWS=$rows BENCH_REALTIME_LEVELS=$levels timeout "${LEVEL_TIMEOUT:-200}" \
    node node_modules/tsx/dist/cli.mjs bench/realtime.ts 2>&1 | grep -v '^\s*at \|W:onnxruntime' | tail -12
done
echo "=== end $(date +%T)"
