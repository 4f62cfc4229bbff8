#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
# Debian's transformix 5.0.1 applies TP to IN into OUT; CHECK (CLITestVolumes) then
# compares its result.mhd with EXPECTED within TOLERANCE. Skipped (exit 0, "skipped")
# where elastix's own transformix is not installed.
#   debian-transformix.sh TP IN OUT EXPECTED CHECK TOLERANCE
set -eu
if ! command -v transformix > /dev/null || transformix --version | grep -q drop-in; then
  echo "transformix is not installed: skipped"
  exit 0
fi
mkdir -p "$3"
transformix -tp "$1" -in "$2" -out "$3" > "$3/stdout.txt"
"$5" close "$4" "$3/result.mhd" "$6"
