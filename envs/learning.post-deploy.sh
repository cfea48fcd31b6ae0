#!/usr/bin/env bash
# Snakemake runs this once, inside the new conda environment, from its working directory (the
# repository root): install this checkout's genplan package, editable, so that the rules'
# `genplan` command is the repository's code. --no-deps: the pinned packages of the env file stay.
set -euo pipefail
if ! grep -qs '^name = "genplan"' pyproject.toml; then
    echo "post-deploy: $PWD is not the genplan repository root; run snakemake from there" >&2
    exit 1
fi
python -m pip install --no-deps --no-build-isolation --editable .
