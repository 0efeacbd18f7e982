#!/bin/bash
python3 metrics_exporter.py --port 9100 &
sleep 2
python3 -m sglang.launch_server --model-path /models/qwen --port 30000
