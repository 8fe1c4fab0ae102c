# The evidence-gate bot as a container: `evidence-gate bot` on port 3000 of every interface.
# Build from a checkout whose dist/ is built (it is committed; `npm ci && npm run build` rebuilds it):
#   docker build -t evidence-gate-bot .
#   docker run --rm -p 3000:3000 -e APP_ID=… -e WEBHOOK_SECRET=… -e PRIVATE_KEY_PATH=/run/secrets/app.pem \
#     -v "$PWD/app.pem:/run/secrets/app.pem:ro" evidence-gate-bot
# The CLI bundle (esbuild) is dist/cli.js and the chunks it loads per command (dist/cli-*.js), so the image
# needs Node and those files only.
FROM node:24-alpine
WORKDIR /app
COPY package.json LICENSE ./
COPY dist/cli.js dist/cli-*.js ./dist/
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD wget -qO- "http://127.0.0.1:${PORT}/healthz" || exit 1
ENTRYPOINT ["node", "dist/cli.js", "bot"]
