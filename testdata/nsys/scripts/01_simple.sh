#!/bin/bash
set -e
export MODEL=/models/ernie-4.5
python -m fastdeploy.entrypoints.openai.api_server --model "$MODEL" --port 8080
