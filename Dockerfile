# The engine's image: worker, simulator and CLI run from the TypeScript sources with tsx.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
USER node
CMD ["npm", "run", "worker"]
