# syntax=docker/dockerfile:1
# One image for the API, the worker and the migrations (see docs/runbook.md):
#   docker run IMAGE                                              the API (node dist/apps/api/src/main.js)
#   docker run IMAGE node dist/apps/worker/src/main.js            the worker
#   docker run IMAGE node dist/apps/api/src/migrate.js            the migrations (MIGRATION_DATABASE_URL)
ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Compile TypeScript with swc (needs the dev dependencies).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY .swcrc tsconfig.json nest-cli.json ./
COPY apps apps
COPY libs libs
RUN npm run build

# 2. Production dependencies only (argon2 ships prebuilt binaries for linux-x64 and linux-arm64).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. The runtime: compiled code, production node_modules, the SQL migrations and static pages.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    ENGRAM_DATA_DIR=/app/data
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY db/migrations db/migrations
COPY apps/api/src/inspector/public apps/api/src/inspector/public
COPY --from=build /app/dist dist
# Code stays owned by root (read-only for the app); only the embedded data directory is writable.
RUN mkdir -p /app/data && chown node:node /app/data
# The image's own non-root user "node" (uid 1000), numeric so Kubernetes can check runAsNonRoot.
USER 1000:1000
EXPOSE 3000 9464
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/api/src/main.js"]
