#!/bin/sh
# A lane's part "wait=N:SECONDS" (scripts/device-lanes.sh): waits until lane N has run all its
# parts, so that a two-GPU part after it in this lane has both cards to itself.
while [ ! -e "/tmp/lanes/lane${PART:-0}.done" ]; do sleep 1; done
echo "lane ${PART:-0} is done"
