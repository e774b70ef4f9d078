# One image for every role: --role api|worker|projector|all (see docker-compose.yml).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY projections ./projections
USER node
EXPOSE 3000
ENTRYPOINT ["node", "--import", "tsx", "src/main.ts"]
CMD ["--role", "all"]
