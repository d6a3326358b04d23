#!/usr/bin/env bash
# Installs the external oracles the integration tests run against our emulators.
# kubectl ships with the machine image; moto and AWS CLI v1 come with its Python.
set -euo pipefail
command -v kubectl >/dev/null || { echo "ci: kubectl missing (the Kubernetes emulator tests need it)" >&2; exit 1; }
