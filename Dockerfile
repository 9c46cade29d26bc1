# syntax=docker/dockerfile:1
#
# The Hosted Agents server image: one image, three roles chosen by the command
# (`api`, `worker`, `migrate`; see cli/main.ts). The `build` stage compiles the server to
# JavaScript and prebuilds the workflow bundle and the embed (`npm run build:embed` and
# `npm run build:server`, the server's part of `npm run build`); the image starts from that
# build/ (docs/operations.md: Start-up). The TypeScript sources are in the image too: bin/hosted-agents.js
# compares them with build/ and would run them through tsx (a runtime dependency) if build/ were
# missing or older.
#
#   docker build -t hosted-agents .
#   docker run --rm -e DATABASE_URL=postgres://… -e TEMPORAL_ADDRESS=temporal:7233 hosted-agents migrate
#   docker run --rm -p 8080:8080 -e DATABASE_URL=… -e TEMPORAL_ADDRESS=… hosted-agents            # api
#   docker run --rm -e DATABASE_URL=… -e TEMPORAL_ADDRESS=… hosted-agents worker
#
# docker-compose.yml runs the whole set (postgres, Temporal's schema set-up, server, namespace and
# UI, migrate, api, worker).

# A maintained LTS line for the image (Node 22, supported into 2027); the code also runs on Node 20,
# which development and CI machines here use.
ARG NODE_IMAGE=node:22-bookworm-slim

# --- deps: production node_modules only -----------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# The lockfile covers the npm workspace `sdk`, so `npm ci` needs its package.json (only that:
# the server does not import the SDK; its one runtime dependency is installed and unused).
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/package.json
# Platform packages (Temporal core bridge, @swc/core for the workflow bundler, esbuild for tsx)
# are prebuilt for linux/glibc, so no compiler toolchain is needed here.
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- build: build/ (compiled server, workflow bundle) and embed/dist ---------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/package.json
# All dependencies: tsc (typescript) is a devDependency.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY cli ./cli
COPY config ./config
COPY api ./api
COPY workers ./workers
COPY workflows ./workflows
COPY activities ./activities
COPY db ./db
COPY domain ./domain
COPY infra ./infra
COPY services ./services
COPY turns ./turns
COPY embe[d] ./embed/
# The SDK's build (the rest of `npm run build`) is not needed here: the server does not use it.
RUN npm run build:embed && npm run build:server

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# MALLOC_ARENA_MAX=2: glibc otherwise gives each allocating thread (Temporal's Rust core has many)
# an arena of its own and keeps freed memory in it; two arenas cut the worker's peak RSS at no
# measurable cost in turns/s (bench/README.md: Worker memory).
ENV NODE_ENV=production \
    PORT=8080 \
    MALLOC_ARENA_MAX=2
WORKDIR /app

# Code and dependencies stay owned by root (read-only to the service user).
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY sdk/package.json ./sdk/package.json
COPY bin ./bin
COPY cli ./cli
COPY config ./config
COPY api ./api
COPY workers ./workers
COPY workflows ./workflows
COPY activities ./activities
COPY db ./db
COPY domain ./domain
COPY infra ./infra
COPY services ./services
COPY turns ./turns
# `embed` may be empty (git does not keep empty folders); the wildcard lets the build go on
# without it and copies its contents when it has any.
COPY embe[d] ./embed/
# What the image runs: the compiled server and workflow bundle (build/embed/dist links to
# embed/dist). The sources above came from the same build context with the same mtimes, so
# bin/build-state.js finds build/ fresh.
COPY --from=build /app/embed/dist ./embed/dist
COPY --from=build /app/build ./build

# The only writable place: DATA_DIR for `hosted-agents start` (embedded mode). The production
# roles keep no local state.
RUN mkdir -p /app/.data && chown node:node /app/.data

# The `node` user (uid 1000) ships with the official image.
USER node

EXPOSE 8080

# Liveness of the API role (`GET /healthz` touches nothing). Slim images have no curl: use
# Node's fetch. Roles that serve no HTTP (worker, migrate) disable this in docker-compose.yml.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

ENTRYPOINT ["node", "bin/hosted-agents.js"]
CMD ["api"]
