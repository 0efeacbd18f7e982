#!/bin/sh
cd "$(dirname "$0")"
exec python3 -m vllm.entrypoints.openai.api_server --model /models/llama --port 8000
