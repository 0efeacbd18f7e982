#!/bin/bash
echo "nothing to start here"
./bin/server --port 8080
