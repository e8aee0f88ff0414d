# The engine's image: worker, codec server, onboarding API, `eca` CLI (and `eca setup`) and the simulator,
# run as the compiled package (`npm run build`: dist/, with the workflow bundles). docker-compose.yml and
# docs/operate.md show how it is run.
#
# Node 22 is an LTS line; the code needs Node >= 20.19. Debian bookworm-slim for glibc, which the Temporal
# SDK's native core is built against.
# Build stage: every dependency, the compiler, the workflow bundler.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:22-bookworm-slim

# ca-certificates: TLS to Temporal Cloud (API key or mTLS) and to the brokerage.
# tini: PID 1 that forwards SIGTERM to the process and reaps children, so that `docker stop` drains a worker.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV NODE_ENV=production

# Production dependencies only, from the lock file; a layer of its own so that a source change reuses it.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# The compiled code and the workflow bundles built once in the build stage: workers load the bundles
# (dist/workflow-bundles, found beside the compiled code) and never bundle at start.
COPY --from=build /src/dist ./dist
COPY bin ./bin

# Directories that named volumes are mounted on: a new volume takes the ownership of the directory it
# is mounted over, so the unprivileged user can write there from the first start. /app stays root's:
# the running code cannot change itself.
RUN mkdir -p /var/lib/eca/documents /var/lib/eca-simulator \
  && chown -R node:node /var/lib/eca /var/lib/eca-simulator
ENV ECA_DOCUMENT_STORE=/var/lib/eca/documents

USER node
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/workers/main.js"]
