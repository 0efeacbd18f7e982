#!/bin/bash
if [ "$MODE" = "vllm" ]; then
  python3 -m vllm.entrypoints.openai.api_server --port 8000
else
  python3 -m fastdeploy.entrypoints.openai.api_server --port 8000
fi
