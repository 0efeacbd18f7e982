#!/usr/bin/env bash
CUDA_VISIBLE_DEVICES=0 FD_LOG_DIR=/tmp/log python3 -m fastdeploy.entrypoints.openai.api_server --port 8180
