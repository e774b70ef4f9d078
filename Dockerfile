# One image for every role: --role api|worker|projector|all (see docker-compose.yml).
# Built in two stages: the TypeScript is compiled to dist/ in the first, and the image
# runs the compiled output (no TypeScript loader at run time) as the unprivileged `node`
# user, on Node 24 LTS.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workflows ./workflows
COPY projections ./projections
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
ENTRYPOINT ["node", "--conditions=production", "dist/src/main.js"]
CMD ["--role", "all"]
