# agentls headless, anywhere a container runs (Kubernetes Jobs, any CI): mount or clone the
# repository at /workspace, pass the model and its key, and the entry script runs the
# agent once on a new branch (see docs/ci.md). bubblewrap sandboxes the commands the agent
# runs; it needs a container allowed to create user namespaces.
FROM python:3.11-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY . /opt/agentls
RUN python -m pip install --no-cache-dir /opt/agentls \
    && useradd --create-home agent
USER agent
WORKDIR /workspace
ENV AGENTLS_WORKSPACE=/workspace AGENTLS_OUTPUT_DIR=/tmp/agentls-output
ENTRYPOINT ["bash", "/opt/agentls/ci/run-agent.sh"]
