# krill in a container: docker build -t krill . && docker run -p 9092:9092 krill
FROM node:20-bookworm-slim AS build
WORKDIR /app
# python3, make and g++ build zstd-napi's native addon.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY protocol ./protocol
COPY src ./src
COPY bench ./bench
# zstd-napi is the one runtime dependency whose install step matters (it builds or fetches its addon), so
# scripts are skipped for the rest and it is rebuilt on its own.
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && npm rebuild zstd-napi \
 && npm run build \
 && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
VOLUME /data
EXPOSE 9092
# Listen on every interface inside the container; tell clients to come back through localhost.
# node runs krill as the container's own process (no npm, no shell in between), so `docker stop`'s SIGTERM
# reaches krill, which closes cleanly.
ENTRYPOINT ["node", "dist/src/bin/krill.cjs", "--host", "0.0.0.0", "--port", "9092", "--data-dir", "/data"]
CMD ["--set", "advertised.listeners=PLAINTEXT://localhost:9092"]
