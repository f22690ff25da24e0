#!/bin/sh
# Install the engine's build and run dependencies with apt-get, only if any is missing.
# Silent when everything is already present, so CI logs stay clean.
set -eu
PACKAGES="g++ make libopenmpi-dev openmpi-bin libopenblas-dev"
missing=""
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # word splitting of the package list is intended
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
