#!/bin/sh
# Kernel-level impairment for an agent in another process or language (docs/network.md, "netem"): a network
# namespace whose loopback carries a tc netem qdisc; run the harness and the agent inside it. Needs root.
#   scripts/netem_namespace.sh up NAME "delay 40ms 10ms loss 2%"   # create NAME, impair its loopback
#   ip netns exec NAME modylbench serve SCENARIO --host 127.0.0.1 --port 8765 &
#   ip netns exec NAME python examples/echo_agent.py ws://127.0.0.1:8765/meetings/<id> <token>
#   scripts/netem_namespace.sh down NAME
set -eu
cmd=$1 name=$2
case "$cmd" in
  up)
    ip netns add "$name"
    ip -n "$name" link set lo up
    # shellcheck disable=SC2086 # the netem arguments are words on purpose
    ip netns exec "$name" tc qdisc add dev lo root netem ${3:-delay 40ms}
    ;;
  down)
    ip netns del "$name"
    ;;
  *)
    echo "usage: $0 up NAME 'NETEM ARGS' | down NAME" >&2
    exit 2
    ;;
esac
