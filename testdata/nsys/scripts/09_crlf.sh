#!/bin/bash
export PORT=8080
python3 -m server --port $PORT
