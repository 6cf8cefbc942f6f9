# syntax=docker/dockerfile:1
# Account-Lookup-Service. Build from the repository root:
#   docker build -f infra/containers/als.Dockerfile -t mojafast/als .
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
RUN pnpm --filter "@mojafast/als..." run build
# --legacy: the workspace links its packages instead of injecting them (pnpm 10 deploys injected ones only).
# --prod: no devDependencies. Each package, this one and the workspace packages it depends on, is copied as
# its package.json "files" field packs it: dist/ without source maps or declarations, never src/ or test/.
RUN --mount=type=secret,id=extra_ca --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    pnpm --filter @mojafast/als deploy --legacy --prod /out

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    ALS_HOST=0.0.0.0 \
    ALS_PORT=4002 \
    ALS_ADMIN_PORT=4001
# account-lookup-service's own working directory: Mojaloop's charts mount its config at /opt/app/config (an
# older admin chart at /opt/account-lookup-service/config, linked here) and run `node src/index.js server
# --api` or `--admin`.
WORKDIR /opt/app
# Code stays owned by root and read-only to the service user.
# The application layer is the deploy output alone: package.json, dist/ (with the FSPIOP schemas it
# validates with, generated at build time: packages/als/scripts/fspiop-schemas.ts), config/ (the embedded
# oracles.json, read relative to dist/) and the production node_modules (no @mojaloop/api-snippets).
# Measure it without Docker: node packages/deploy-check/dist/image-size-cli.js (packages/deploy-check/docs/reference.md).
COPY --from=build /out ./
# The original's entry points (infra/containers/entry/), which only import dist/als.js.
COPY infra/containers/entry/als/ ./
# On-demand CPU profiles (SIGUSR2) need a writable place; the code directory is not. Any user may write
# there (the charts run uid 1001); with a read-only root it is a volume or nothing.
RUN ln -s /opt/app /opt/account-lookup-service && mkdir /profiles && chown node:node /profiles && chmod 1777 /profiles
ENV ALS_PROFILE_DIR=/profiles
USER node
EXPOSE 4002 4001
# The slim image has no curl or wget; Node's fetch asks the admin port the service really listens on.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.ALS_ADMIN_PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The service drains in-flight callbacks on SIGTERM (ALS_SHUTDOWN_TIMEOUT_MS); exec form keeps Node as the
# process that receives it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/als.js"]
