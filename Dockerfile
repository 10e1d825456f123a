# citewise serve in a container, on the official Node.js image (Debian slim), as the unprivileged `node` user,
# with keys, credits, the console's accounts and the `citewise index` index in the /data volume.
#
#   docker build -t citewise .
#   docker run -d --name citewise -p 8787:8787 -v citewise-data:/data citewise
#   docker exec citewise cat /data/first-key.txt                 # the first API key
#   docker exec citewise node bin/citewise.js keys create        # more keys, same database
#
# Node.js 24 runs the TypeScript sources directly (no build step). Sign-up on the console is invite-only in
# this image, which listens on every address of the container; the operator's one-time setup link is in
# /data/operator-setup-link.txt. For --store redis://… or postgres://…, build with
# --build-arg EXTRA_PACKAGES="ioredis pg". See docs/operations/docker.md.

FROM node:24-bookworm-slim
ARG EXTRA_PACKAGES=""
ENV NODE_ENV=production \
    CITEWISE_HOST=0.0.0.0 \
    CITEWISE_PORT=8787 \
    CITEWISE_DATA_DIR=/data \
    CITEWISE_SIGNUP=invite-only
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund \
    && if [ -n "$EXTRA_PACKAGES" ]; then npm install --no-save --no-audit --no-fund $EXTRA_PACKAGES; fi \
    && npm cache clean --force
COPY bin ./bin
COPY src ./src
COPY adapters ./adapters
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/citewise.js", "serve"]
