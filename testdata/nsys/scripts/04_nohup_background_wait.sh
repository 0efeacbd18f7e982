#!/bin/bash
LOG=server.log
nohup python3 serve.py --port 8080 > "$LOG" 2>&1 &
echo "server pid $!"
wait
