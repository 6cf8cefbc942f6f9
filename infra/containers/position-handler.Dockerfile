# syntax=docker/dockerfile:1
# central-ledger position handler (batch). Build from the repository root:
#   docker build -f infra/containers/position-handler.Dockerfile -t mojafast/position-handler .
# Pin the base by digest for reproducible builds:
#   --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:<digest>
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Unset unless given: "0" turns off corepack's check of the pnpm tarball's registry signature, for a registry
# (a mirror or proxy) whose metadata carries none. infra/images gives it only when the registry has none.
ARG COREPACK_INTEGRITY_KEYS
WORKDIR /src
# corepack installs the pnpm version named in package.json's packageManager field, the same one CI uses.
RUN corepack enable
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm applies patches/ (kafkajs: the TimeoutNegativeWarning guard) while it installs.
COPY patches ./patches
# Dependencies come from the lockfile alone, so this layer is reused until the lockfile changes.
# The steps that reach the npm registry trust the host's extra CA (a TLS-intercepting proxy) when the build
# is given one as the secret extra_ca (infra/images does, from NODE_EXTRA_CA_CERTS): a secret is mounted for
# the step alone and never reaches a layer, this stage's or the runtime image's.
RUN --mount=type=secret,id=extra_ca --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; pnpm fetch
COPY tsconfig.base.json tsconfig.json ./
COPY packages ./packages
RUN --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm install --offline --frozen-lockfile
# The package and the workspace packages it depends on, each with its own build script, in dependency
# order (independent of tsconfig project references).
RUN pnpm --filter "@mojafast/position-handler..." run build
# --legacy: the workspace links its packages instead of injecting them (pnpm 10 deploys injected ones only).
# --prod: no devDependencies. Each package, this one and the workspace packages it depends on, is copied as
# its package.json "files" field packs it: dist/ without source maps or declarations, never src/ or test/.
RUN --mount=type=secret,id=extra_ca --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    pnpm --filter @mojafast/position-handler deploy --legacy --prod /out

FROM ${NODE_IMAGE}
# The handler binds 127.0.0.1 by default (a developer's machine); in a container /health and /metrics must
# be reachable from the kubelet and Prometheus, on central-ledger's admin port 3001 as the original.
ENV NODE_ENV=production \
    POSITION_HTTP_HOST=0.0.0.0 \
    POSITION_HTTP_PORT=3001
# central-ledger's own working directory: Mojaloop's charts mount its config at /opt/app/config (older ones
# at /opt/central-ledger/config, linked here) and run `node src/handlers/index.js handler --positionbatch`.
WORKDIR /opt/app
# Code stays owned by root and read-only to the service user; on-demand CPU profiles go to a writable dir.
# The application layer is the deploy output alone: package.json, dist/ and the production node_modules,
# plus the original's entry point (infra/containers/entry/), which only imports dist/position.js.
# Measure it without Docker: node packages/deploy-check/dist/image-size-cli.js (packages/deploy-check/docs/reference.md).
COPY --from=build /out ./
COPY infra/containers/entry/position-handler/ ./
# Any user may write profiles (the charts run uid 1001); with a read-only root it is a volume or nothing.
RUN ln -s /opt/app /opt/central-ledger && mkdir /profiles && chown node:node /profiles && chmod 1777 /profiles
ENV POSITION_PROFILE_DIR=/profiles
USER node
EXPOSE 3001
# The slim image has no curl or wget; Node's fetch asks the port the service really listens on. /health is
# 200 only while both the broker connection and the database answer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.POSITION_HTTP_PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# On SIGTERM the handler finishes the batch in hand, commits its offsets and leaves the consumer group, so a
# rolling update loses nothing; exec form keeps Node as the process that receives the signal.
STOPSIGNAL SIGTERM
CMD ["node", "dist/position.js"]
