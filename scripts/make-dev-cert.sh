#!/usr/bin/env bash
# Makes the self-signed certificate of the shipped config's HTTPS listener
# (conf/tls/self-signed.crt and .key, or in the folder given), unless it exists.
# usage: scripts/make-dev-cert.sh [DIR=conf/tls]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-conf/tls}
[ -s "$dir/self-signed.crt" ] && [ -s "$dir/self-signed.key" ] && exit 0
mkdir -p "$dir"
work=$(mktemp -d "$dir/.new-XXXXXX")
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 365 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$work/self-signed.key" -out "$work/self-signed.crt" 2>/dev/null
chmod 600 "$work/self-signed.key"
# Why move both at the end: an interrupted run leaves no half-made pair behind.
mv "$work/self-signed.key" "$dir/self-signed.key"
mv "$work/self-signed.crt" "$dir/self-signed.crt"
echo "made a self-signed certificate for localhost in $dir (curl --cacert $dir/self-signed.crt ...)" >&2
