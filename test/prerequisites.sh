#!/usr/bin/env bash
# What `npm test` needs beyond Node and the npm packages, installed from Debian's packages when missing (run as root,
# or through sudo): pdftotext (poppler-utils) reads exported PDFs back; Debian's chromium is the real browser of the
# page tests (playwright-core downloads none); espeak-ng gives the voices their phonemes and Apertium translates the
# pairs Debian packages. The product runs without any of them (voices and those translations then say they are
# unavailable); the tests exercise them. `npm run test:prerequisites` runs this; CI's .ci/run does too.
set -uo pipefail
missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v apertium >/dev/null 2>&1 || missing+=(apertium)
for pair in apertium-eng-spa apertium-eng-cat apertium-en-gl; do
  dpkg -s "$pair" >/dev/null 2>&1 || missing+=("$pair")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "test prerequisites: all present"
  exit 0
fi
echo "test prerequisites: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}") || {
  echo "test prerequisites: not installed: ${missing[*]} (the tests that need them fail)" >&2
  exit 1
}
