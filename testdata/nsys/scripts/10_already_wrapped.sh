#!/bin/bash
# >>> dslint nsys (added by `dslint nsys wrap`; delete through the closing marker to undo)
NSYS_OUTPUT_DIR="${NSYS_OUTPUT_DIR:-/tmp/nsys_record}"
mkdir -p "$NSYS_OUTPUT_DIR"
NSYS_OUTPUT="$NSYS_OUTPUT_DIR/$(date +%Y%m%d_%H%M%S)_nsys"
echo "$NSYS_OUTPUT" > "$NSYS_OUTPUT_DIR/.dslint_nsys_output"
NSYS_CMD="nsys profile -c cudaProfilerApi --output $NSYS_OUTPUT"
# <<< dslint nsys
${NSYS_CMD} python3 server.py
