#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright the CudaImageFilters contributors
"""Which of SlicerElastix's presets the elastix drop-in serves, and which key stops each
of the others.

  check-presets.py ELASTIX PRESETS_DIR

ELASTIX: the drop-in; PRESETS_DIR: SlicerElastix's Resources/RegistrationParameters
(ElastixParameterSetDatabase.xml and its parameter files). The drop-in reads every
parameter file before any image, so a run on missing images tells whether the files are
served (the error is then the missing image) or names the first refusal.
"""
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    elastix, presets = sys.argv[1], Path(sys.argv[2])
    database = ElementTree.parse(presets / "ElastixParameterSetDatabase.xml").getroot()
    served, stopped = [], {}
    with tempfile.TemporaryDirectory() as out:
        for preset in database.iter("ParameterSet"):
            files = [presets / f.get("Name") for f in preset.iter("File")]
            missing = [f.name for f in files if not f.exists()]
            if missing:
                stopped[preset.get("id")] = "missing file " + ", ".join(missing)
                continue
            command = [elastix, "-f", "no-such-fixed.mha", "-m", "no-such-moving.mha", "-out", out]
            for f in files:
                command += ["-p", str(f)]
            text = subprocess.run(command, capture_output=True, text=True).stdout
            error = next((line for line in text.splitlines() if line.startswith("ERROR: ")), "")
            if "no-such-fixed.mha" in error:
                served.append(preset.get("id"))
            else:
                reason = re.sub(r"^ERROR: .*?/([^/]+:\d+: )", r"\1", error)
                stopped[preset.get("id")] = reason
    print(f"{len(served)} of {len(served) + len(stopped)} presets served: {', '.join(served)}")
    for preset, reason in stopped.items():
        print(f"- {preset}: {reason}")


if __name__ == "__main__":
    main()
