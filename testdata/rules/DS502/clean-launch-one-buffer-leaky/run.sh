#!/bin/bash
# The broker branch's queue holds one buffer and drops the oldest: shorter
# than the preset's 2, and a full leaky queue never blocks the tee.
gst-launch-1.0 -e filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \
  nvstreammux name=m batch-size=1 batched-push-timeout=33333 \
  ! nvinfer batch-size=1 ! tee name=t \
  t. ! queue max-size-buffers=4 ! fakesink sync=0 \
  t. ! queue max-size-buffers=1 leaky=2 ! nvmsgconv config=msgconv.txt ! nvmsgbroker proto-lib=libnvds_kafka_proto.so conn-str="localhost;9092" topic=events
