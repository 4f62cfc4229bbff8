#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Checks (default) or adds (--apply) the Apache-2.0 header of every source file
in git: C++ and CUDA files get ITK's header block, CMake, shell and Python files a
two-line comment after any #! line. Exit status 1 names the files without it."""
import subprocess
import sys

C_HEADER = """/*=========================================================================
 *
 *  Copyright the CudaImageFilters contributors
 *
 *  Licensed under the Apache License, Version 2.0 (the "License");
 *  you may not use this file except in compliance with the License.
 *  You may obtain a copy of the License at
 *
 *         https://www.apache.org/licenses/LICENSE-2.0.txt
 *
 *  Unless required by applicable law or agreed to in writing, software
 *  distributed under the License is distributed on an "AS IS" BASIS,
 *  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 *  See the License for the specific language governing permissions and
 *  limitations under the License.
 *
 *=========================================================================*/
"""
HASH_HEADER = "# SPDX-License-Identifier: Apache-2.0\n# Copyright the CudaImageFilters contributors\n"
C_SUFFIXES = (".h", ".hxx", ".cxx", ".cu", ".cuh", ".h.in", ".cu.in")
HASH_SUFFIXES = (".cmake", "CMakeLists.txt", ".cmake.in", ".sh", ".py")
HASH_NAMES = (".ci/run", ".ci/setup", ".ci/check-cuda-architectures")


def kind(path):
    if path.endswith(C_SUFFIXES):
        return "c"
    if path.endswith(HASH_SUFFIXES) or path in HASH_NAMES or path.startswith(".ci/"):
        return "hash"
    return None


def main():
    apply = "--apply" in sys.argv[1:]
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    missing = []
    for path in files:
        k = kind(path)
        if k is None:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "SPDX-License-Identifier: Apache-2.0" in text[:400] or text.startswith(C_HEADER):
            continue
        missing.append(path)
        if not apply:
            continue
        if k == "c":
            text = C_HEADER + text
        elif text.startswith("#!"):
            first, _, rest = text.partition("\n")
            text = first + "\n" + HASH_HEADER + rest
        else:
            text = HASH_HEADER + text
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    if missing and not apply:
        print("files without the Apache-2.0 header (Utilities/license-headers.py --apply adds it):")
        print("\n".join("  " + m for m in missing))
        return 1
    if apply:
        print(f"header added to {len(missing)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
