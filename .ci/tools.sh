#!/usr/bin/env bash
# Installs the external oracles the integration tests run against our emulators; quick and
# idempotent when they are already there.
# - kubectl ships with the machine image (Kubernetes emulator tests).
# - AWS CLI v2 (/usr/bin/aws, Debian package awscli) drives the AWS emulator (packages/sandbox/test/aws/cli.test.ts).
# - moto 5 (`python3 -m moto.server`) is the AWS emulator's differential oracle; it comes with the
#   machine's Python, as does AWS CLI v1.
set -euo pipefail
command -v kubectl >/dev/null || { echo "ci: kubectl missing (the Kubernetes emulator tests need it)" >&2; exit 1; }

cli_version() { [ -x /usr/bin/aws ] && /usr/bin/aws --version 2>&1 || true; }
version=$(cli_version)
if [[ "$version" != aws-cli/2.* ]]; then
  echo "ci: installing AWS CLI v2 (Debian package awscli)"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends awscli >/dev/null
  version=$(cli_version)
  [[ "$version" == aws-cli/2.* ]] || { echo "ci: AWS CLI v2 not usable at /usr/bin/aws after install" >&2; exit 1; }
fi
echo "ci: $version"

if ! python3 -c 'import moto.server' 2>/dev/null; then
  # No Debian package carries moto; try PyPI, which only some machines reach.
  echo "ci: moto missing from python3; trying pip install 'moto[server]'"
  python3 -m pip install --quiet 'moto[server]>=5,<6' || true
  python3 -c 'import moto.server' 2>/dev/null || { echo "ci: moto is not importable by python3 (the AWS emulator's differential tests need it)" >&2; exit 1; }
fi
echo "ci: moto $(python3 -c 'import moto; print(moto.__version__)')"
