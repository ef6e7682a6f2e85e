# The query service image (docker compose's `paperkg` service): `kg` with the explorer's renderer
# bundled.  The graph folder is mounted at /data/out; build it on the host with `kg build`.
FROM node:22-slim AS renderer
WORKDIR /src/kg/viz/js
COPY kg/viz/js/ ./
RUN npm ci && npm run build

FROM python:3.11-slim
WORKDIR /src
COPY pyproject.toml README.md ./
COPY kg/ kg/
COPY --from=renderer /src/kg/viz/static/vendor.js kg/viz/static/vendor.js
RUN pip install --no-cache-dir . && useradd --system paperkg
USER paperkg
EXPOSE 8000
ENTRYPOINT ["kg"]
