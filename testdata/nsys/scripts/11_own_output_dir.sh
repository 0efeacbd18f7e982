#!/bin/bash
export NSYS_OUTPUT_DIR=/data/profiles
deepspeed --num_gpus 1 serve.py
