# syntax=docker/dockerfile:1
# switchyard serve --http in a container: built in one stage, run from a Debian slim Node image with the
# built package and its production dependencies only (no compiler, no npm cache, no sources), as the
# image's unprivileged `node` user. See docs/deploy.md.
#
#   docker build -t switchyard .
#   docker run -p 8080:8080 -v "$PWD/switchyard.config.json:/etc/switchyard/switchyard.config.json:ro" \
#     -e SWITCHYARD_SESSION_KEY -e GATEWAY_TOKEN switchyard

ARG NODE_IMAGE=node:22-bookworm-slim

# --- build: the TypeScript compiled and bundled into dist/ ------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/ scripts/
COPY src/ src/
RUN npm run build

# --- deps: production dependencies only; the native SQLite binding is built here when no prebuilt one fits
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- the image: node, dist/ and node_modules/, nothing else ------------------------------------------
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /src/dist ./dist
COPY --chown=root:root package.json ./
# The files the code owns stay root's and read-only to the process; it runs as `node` (uid 1000). The
# config is mounted at /etc/switchyard (a ConfigMap, a volume); its secrets come from the environment.
USER node
ENV HOME=/home/node
EXPOSE 8080
# /healthz answers while the process serves; docker and compose restart it when it stops answering.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["--config", "/etc/switchyard/switchyard.config.json", "serve", "--http", "8080", "--host", "0.0.0.0"]
