# krill in a container: docker build -t krill . && docker run -p 9092:9092 krill
FROM node:20-bookworm-slim AS build
WORKDIR /app
# python3, make and g++ build zstd-napi's native addon.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY protocol ./protocol
COPY src ./src
COPY bench ./bench
# Install scripts are skipped so the test-only client addon (@confluentinc/kafka-javascript) is not built;
# zstd-napi is the one runtime dependency with an install step.
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
ENTRYPOINT ["node", "dist/krill.mjs", "--host", "0.0.0.0", "--port", "9092", "--data-dir", "/data"]
CMD ["--set", "advertised.listeners=PLAINTEXT://localhost:9092"]
