# syntax=docker/dockerfile:1
# Production image: the site's Express server on Node 24 LTS, as a non-root user, behind tini.
#   docker build -t agency-site .      (podman: add --format docker, or HEALTHCHECK is dropped)
#   docker run -d -p 3000:3000 --read-only -v agency-site-data:/app/data -e FORM_ACCESS_KEY=... agency-site
# tests/ops/image.spec.ts builds it with podman and runs it as an operator would.

# ---- build: every dependency, then the production build ---------------------------------------
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `npm install`, not `npm ci`: the lockfile lacks rollup's platform packages for other systems, so
# `npm ci` refuses it (docs/decisions/0003-npm-install-not-ci.md). npm install keeps the locked
# versions. The cache mount keeps npm's download cache out of the layers.
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund
COPY remix.config.js remix.env.d.ts tsconfig.json ./
COPY app ./app
COPY server ./server
COPY scripts/build-server.mjs ./scripts/
COPY public ./public
RUN npm run build
# The runtime's node_modules: only the files the built server can load (decision 0022).
COPY scripts/container/runtime-files.mjs ./scripts/container/
RUN node scripts/container/runtime-files.mjs /app/runtime

# ---- runtime: the traced node_modules, the build and the public files, nothing else ------------
FROM node:24-bookworm-slim AS runtime
# tini as PID 1: forwards SIGTERM to node and reaps zombies (node does neither as PID 1). apt's
# lists and caches are deleted in the same layer, or they stay in the image.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
WORKDIR /app
ENV NODE_ENV=production PORT=3000 OUTBOX_FILE=/app/data/outbox.jsonl
# package.json only for `npm run leads` (the lead command); no npm install here.
COPY package.json ./
COPY --from=build /app/runtime/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
# The only writable place: the lead store and the outbox used when FORM_ACCESS_KEY is unset. Mount
# a volume here to keep them across containers (a new named volume takes this owner and mode). It
# holds visitors' personal data, so only the server's user may enter it. The app files stay
# root-owned, read-only to the server, so the root file system can be mounted read-only.
RUN mkdir -p data && chown node:node data && chmod 0700 data
USER node
EXPOSE 3000
# No curl in the slim image: node's own fetch asks /healthz, which never touches the form service.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# The server directly, not `npm start`: npm would sit between tini and node and add nothing.
CMD ["node", "build/server/index.js"]
