#!/bin/bash
# The device machine's side of the GPU measurements (pack.sh says how the pieces travel). Pieces are kept in
# /root/ship while the machine stays warm (30 s after each call); once all are there, the tar is unpacked to /root/g
# and the repository's node_modules points at its packages.
#   stash                          keep the carried .gpu/ship.part.* (nothing else)
#   check                          nvidia-smi, then check.mjs: the provider's kernels against the CPU
#   realtime SPEC…                 bench/device/realtime.sh (live sessions held at real time; SPEC label/threads/stepRows/levels)
#   engine-thread [stepRows…]      bench/device/engine-thread.ts (one engine thread's capacity and where its time goes)
#   compare DIR 'levels before' 'levels after' [threads]
#                                  before and after a change in the same call: DIR (carried) holds the engine's
#                                  files before it (`git archive REV workers/engine | tar x -C DIR --strip-components=2`);
#                                  engine-thread on both, then realtime.sh on the change and on a copy of the tree
#                                  with DIR in place of workers/engine
# Logs and nvidia-smi dmon go to $OUT.
set -u
STASH=/root/ship
G=/root/g
mkdir -p "$STASH" "$G"
for piece in .gpu/ship.part.*; do [ -f "$piece" ] && cp "$piece" "$STASH/"; done
ls "$STASH"

unpack() {
  cat "$STASH"/ship.part.* | xz -dc | tar xf - -C "$G" 2>&1 | tail -2
  export PATH="$G/bin:$PATH" FFMPEG_PATH="$G/ffmpeg"
  # The CUDA 13 libraries the provider links against (and cuDNN, which it opens when a kernel needs it).
  local lib dir
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcudnn.so.9; do
    dir=$(dirname "$(find /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -1)" 2>/dev/null)
    if [ "$dir" != "." ] && [ -n "$dir" ]; then LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:$dir"; else echo "missing $lib"; fi
  done
  export LD_LIBRARY_PATH
  # The working tree arrives without node_modules (ignored); one that has its own keeps it.
  if [ ! -e node_modules ] || [ -L node_modules ]; then ln -sfn "$G/node_modules" node_modules; fi
}

case "${1:-stash}" in
  stash) ;;
  check)
    unpack
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    node "$G/check.mjs" 2>&1 | tail -3 ;;
  realtime)
    shift
    unpack
    node "$G/check.mjs" 2>&1 | tail -1
    nvidia-smi dmon -s um -d 2 > "$OUT/dmon.txt" 2>&1 &
    bash bench/device/realtime.sh "$@" 2>&1 | tee "$OUT/realtime.log" ;;
  engine-thread)
    shift
    unpack
    settings=("$@")
    [ ${#settings[@]} -gt 0 ] || settings=(0 256)
    for rows in "${settings[@]}"; do
      echo "=== ENGINE_STEP_ROWS=$rows streams ${N:-16}, ${S:-8} s each"
      rm -rf /tmp/profile
      ENGINE_PROVIDER=cuda ENGINE_STEP_ROWS=$rows BENCH_PCM="$G/lecture.f32" timeout "${T:-150}" \
        node --cpu-prof --cpu-prof-dir=/tmp/profile --import tsx bench/device/engine-thread.ts 2>&1 | grep -v 'W:onnxruntime'
      node bench/device/profile-summary.mjs /tmp/profile | head -20
    done 2>&1 | tee "$OUT/engine-thread.log" ;;
  compare)
    before_engine=$2 before_levels=$3 after_levels=$4 threads=${5:-16}
    unpack
    node "$G/check.mjs" 2>&1 | tail -1
    rm -rf /tmp/before && mkdir /tmp/before && tar --exclude=./node_modules --exclude=./.gpu -cf - . | tar xf - -C /tmp/before
    cp -r "$before_engine"/. /tmp/before/workers/engine/ && ln -sfn "$G/node_modules" /tmp/before/node_modules
    here=$PWD
    nvidia-smi dmon -s um -d 2 > "$OUT/dmon.txt" 2>&1 &
    for side in before after; do
      tree=$here; [ $side = before ] && tree=/tmp/before
      echo "=== engine-thread $side, ENGINE_STEP_ROWS=256, streams ${N:-16}, ${S:-8} s each"
      (cd "$tree" && ENGINE_PROVIDER=cuda ENGINE_STEP_ROWS=256 BENCH_PCM="$G/lecture.f32" timeout "${T:-75}" \
        node --import tsx bench/device/engine-thread.ts 2>&1 | grep -v 'W:onnxruntime')
    done 2>&1 | tee "$OUT/engine-thread.log"
    (LEVEL_TIMEOUT=${LEVEL_TIMEOUT:-170} bash bench/device/realtime.sh "after/$threads/256/$after_levels"
     cd /tmp/before && LEVEL_TIMEOUT=${LEVEL_TIMEOUT:-170} bash "$here/bench/device/realtime.sh" "before/$threads/256/$before_levels") 2>&1 | tee "$OUT/realtime.log" ;;
esac
