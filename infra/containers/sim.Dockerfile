# syntax=docker/dockerfile:1
# Simulators (central-ledger admin API, oracle, payee and payer FSPs). Build from the repository root:
#   docker build -f infra/containers/sim.Dockerfile -t mojafast/sim .
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
RUN pnpm --filter "@mojafast/sim..." run build
# --legacy: the workspace links its packages instead of injecting them (pnpm 10 deploys injected ones only).
# --prod: no devDependencies. Each package, this one and the workspace packages it depends on, is copied as
# its package.json "files" field packs it: dist/ without source maps or declarations, never src/ or test/.
RUN --mount=type=secret,id=extra_ca --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi; \
    pnpm --filter @mojafast/sim deploy --legacy --prod /out

FROM ${NODE_IMAGE}
# admin = SIM_PORT_BASE, oracle +1, payee +2, payer +3 (docs/deployment.md, the images); 3001 is where a
# Mojaloop cluster finds central-ledger's admin API.
ENV NODE_ENV=production \
    SIM_PORT_BASE=3001
WORKDIR /app
# The application layer is the deploy output alone: package.json, dist/ and the production node_modules.
# Measure it without Docker: node packages/deploy-check/dist/image-size-cli.js (packages/deploy-check/docs/reference.md).
COPY --from=build /out ./
USER node
EXPOSE 3001 3002 3003 3004
# The simulators have no /health; the admin simulator answering for the Hub participant is the readiness
# signal (it is the first request the ALS makes).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.SIM_PORT_BASE}/participants/Hub`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "dist/sim.js"]
