# syntax=docker/dockerfile:1
# Portico in a container: the daemon with the console and portal bundles.
#   sim   (default target) the simulated device; touches nothing, runs unprivileged
#   linux the linux driver: configures the container's own network namespace, runs as root
#         with NET_ADMIN (see the stage)
# docker-compose.yml builds both; deploy/compose/README.md says how to try them.
# Every RUN is an argument array: no shell in the image build either.

ARG NODE_IMAGE=node:20-bookworm-slim
# The Debian release the Node image is built on: the node binary copied below needs only its libc
# and libstdc++.
ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 fetches a prebuilt addon for this Node when one is published and compiles it
# with node-gyp otherwise, which needs python3, make and g++.
RUN --mount=type=bind,source=deploy/container/debian-packages.mjs,target=/mnt/debian-packages.mjs \
    ["node", "/mnt/debian-packages.mjs", "python3", "make", "g++"]
WORKDIR /src
# The workspace manifests first, so the install layer is reused until one of them changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY scripts/pnpm.mjs scripts/
COPY apps/daemon/package.json apps/daemon/
COPY apps/console/package.json apps/console/
COPY apps/portal/package.json apps/portal/
COPY apps/ap-agent/package.json apps/ap-agent/
COPY packages/schema/package.json packages/schema/
COPY packages/i18n/package.json packages/i18n/
COPY tests/package.json tests/
# The pinned pnpm (scripts/pnpm.mjs), exactly the locked versions.
RUN --mount=type=cache,target=/root/.npm --mount=type=cache,target=/root/.local/share/pnpm/store \
    ["node", "scripts/pnpm.mjs", "install", "--frozen-lockfile", "--reporter=append-only"]
COPY . .
# The project's own build: apps/daemon/dist (bundle), apps/console/dist, apps/portal/dist.
RUN --mount=type=cache,target=/root/.npm ["npm", "run", "build"]
# Only the files better-sqlite3 loads at run time (its JavaScript, the addon, bindings).
RUN ["node", "deploy/container/runtime-node-modules.mjs", "/runtime"]

# What the daemon needs to run and nothing else: node, the bundle, better-sqlite3, the bundles.
FROM ${DEBIAN_IMAGE} AS runtime
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=build /runtime/node_modules node_modules
COPY --from=build /src/apps/daemon/dist apps/daemon/dist
COPY --from=build /src/apps/console/dist apps/console/dist
COPY --from=build /src/apps/portal/dist apps/portal/dist
COPY deploy/container/healthcheck.mjs healthcheck.mjs
# The daemon's settings (apps/daemon/src/settings.ts) and the allocator settings every launcher
# passes (apps/daemon/launch-flags.mjs). State lives in the volume.
ENV PORTICO_STATE_DIR=/var/lib/portico \
    PORTICO_HOST=0.0.0.0 \
    PORTICO_PORT=8080 \
    PORTICO_PORTAL_PORT=2050 \
    MALLOC_MMAP_THRESHOLD_=32768 \
    MALLOC_ARENA_MAX=2
EXPOSE 8080 2050
# Asks the console port for the console page (deploy/container/healthcheck.mjs).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
# The entry point `npm start` runs, with the Node flags of apps/daemon/launch-flags.mjs.
CMD ["node", "--max-semi-space-size=1", "--interrupt-budget=270336", "apps/daemon/dist/main.mjs"]

# The linux driver applies the configuration to the container's own network namespace: links
# and addresses (iproute2), the ruleset (nftables), sysctl (procps), DHCP and DNS for the LAN
# (dnsmasq), WAN DHCP (busybox udhcpc), WAN probes (ping) and connection tracking (conntrack).
# It runs as root: it writes rendered files under / (PORTICO_SYSTEM_ROOT), starts dnsmasq on
# ports 53 and 67, and the tools it runs take their privilege from the process that starts
# them; container capabilities given to a non-root user reach none of them. Root here is still
# confined to the container: compose adds only NET_ADMIN and NET_RAW to Docker's default set, and
# the namespace it configures is the container's, not the host's.
FROM runtime AS linux
RUN --mount=type=bind,source=deploy/container/debian-packages.mjs,target=/mnt/debian-packages.mjs \
    ["node", "/mnt/debian-packages.mjs", "iproute2", "nftables", "dnsmasq-base", "iputils-ping", "conntrack", "procps", "busybox"]
ENV PORTICO_DRIVER=linux
RUN ["install", "-d", "-m", "0700", "/var/lib/portico"]
VOLUME ["/var/lib/portico"]

# The simulated device (default target): it only reads and writes its state folder, so it runs
# as an unprivileged user with no added capability.
FROM runtime AS sim
RUN ["useradd", "--system", "--uid", "10001", "--user-group", "--home-dir", "/var/lib/portico", "--no-create-home", "--shell", "/usr/sbin/nologin", "portico"]
RUN ["install", "-d", "-o", "portico", "-g", "portico", "-m", "0700", "/var/lib/portico"]
ENV PORTICO_DRIVER=sim
USER portico
VOLUME ["/var/lib/portico"]
