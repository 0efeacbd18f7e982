#!/bin/bash
# Start the server. (The old way was: python old_server.py --port 1)
torchrun --nproc_per_node 2 serve.py --port 8080   # python serve.py for one GPU
# python afterwards.py
