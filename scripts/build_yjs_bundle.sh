#!/usr/bin/env bash
# Rebuild channels/static/vendor/yjs-bundle.mjs: one ES module exporting Y (yjs), syncProtocol
# (y-protocols/sync), encoding and decoding (lib0), so the web page and the Node tests need no CDN
# and no npm install. Needs node and npm; the output is committed, so users never run this.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --silent yjs@13.6.33 y-protocols@1.0.7 lib0 esbuild
cat > entry.mjs <<'JS'
export * as Y from 'yjs'
export * as syncProtocol from 'y-protocols/sync'
export * as encoding from 'lib0/encoding'
export * as decoding from 'lib0/decoding'
JS
npx esbuild entry.mjs --bundle --format=esm --minify --outfile="$root/channels/static/vendor/yjs-bundle.mjs" --log-level=warning
echo "wrote $root/channels/static/vendor/yjs-bundle.mjs"
