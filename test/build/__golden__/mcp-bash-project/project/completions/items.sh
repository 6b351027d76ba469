#!/bin/sh
# Completion provider in mcp-bash's shape: suggestions for the demo.pick prompt.
echo '["hammer", "saw", "wrench"]'
