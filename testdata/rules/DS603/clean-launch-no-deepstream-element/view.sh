#!/bin/bash
# Watch the camera's stream. The decode on the GPU did not work on this board:
#gst-launch-1.0 rtspsrc location=rtsp://127.0.0.1:8554/cam latency=0 ! rtph264depay ! h264parse ! nvv4l2decoder ! nvvideoconvert ! autovideosink

gst-launch-1.0 -v rtspsrc location=rtsp://127.0.0.1:8554/cam ! rtph264depay ! avdec_h264 ! videoconvert ! autovideosink sync=false
