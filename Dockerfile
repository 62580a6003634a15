# kiln's HTTP service as a container image (docs/operations.md). Two stages: the
# first installs every dependency and builds dist/ (the build needs the dev tools: tsc, esbuild,
# vite); the second holds only what the npm package ships (package.json's "files") and the
# production dependencies, so no compiler or test tool ends up in the image.
#
#   docker build -t kiln .
#   docker run --rm -p 4000:4000 --read-only --tmpfs /tmp --stop-timeout 35 kiln

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/src/core/registry ./src/core/registry
COPY --from=build /app/src/core/presets ./src/core/presets
COPY --from=build /app/src/core/schemas ./src/core/schemas
# Inside a container the service must listen on every interface to be reachable at all; the
# port mapping or the cluster's network policy decides who reaches it. /tmp is the one folder
# the service may write (the cache of registries named by --config): mount a tmpfs there and
# the root filesystem can be read-only.
ENV SERVICE_BIND=0.0.0.0 \
    SERVICE_PORT=4000 \
    XDG_CACHE_HOME=/tmp/kiln-cache
# the node image's unprivileged user, by number so Kubernetes' runAsNonRoot can verify it
USER 1000:1000
EXPOSE 4000
# Ready, not merely alive: /api/ready answers 503 while the workers start and while the
# service drains after SIGTERM. The image has no curl; Node's fetch asks instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SERVICE_PORT || 4000) + '/api/ready').then((answer) => process.exit(answer.ok ? 0 : 1), () => process.exit(1))"]
# node runs the service itself (not npm start, which builds, and not npm, which does not pass
# SIGTERM on), so the signal reaches kiln and it drains: it exits within --shutdown-timeout (25 s
# from the signal, the 5 s --drain-delay included); give a container engine more before it kills
# it (docker stop -t 35).
CMD ["node", "dist/cli/main.js", "serve"]
