#!/usr/bin/env python3
"""A jsonl worker for evalgate (target.protocol: jsonl), Python 3 standard library only.

evalgate starts it once (or target.workers times) and keeps it running:

  stdin,  one request per line: {"id": "7", "input": "What is 6 * 7?", "case": {"id": ..., "name": ..., "tags": [...]}}
  stdout, one reply per line:   {"id": "7", "output": "42"}   or   {"id": "7", "error": "why it failed"}

Load models and clients once, at the top, then write {"ready": true}: no case's
latency then includes the start-up. Stdout is for replies only: log to
stderr. Flush after every reply. Exit when stdin ends.
"""
import json
import re
import sys

CAPITALS = {"ireland": "Dublin", "france": "Paris", "australia": "Canberra", "japan": "Tokyo"}


def answer(value):
    """Stands in for the model call."""
    question = str(value).lower()
    for country, capital in CAPITALS.items():
        if "capital" in question and country in question:
            return capital
    match = re.search(r"(-?\d+)\s*([+*-])\s*(-?\d+)", question)
    if match:
        a, op, b = int(match.group(1)), match.group(2), int(match.group(3))
        return str(a + b if op == "+" else a - b if op == "-" else a * b)
    if "json" in question:
        return json.dumps({"status": "ok", "items": [1, 2, 3]})
    raise ValueError(f"no answer for {value!r}")


def main():
    # started (imports done, clients made): the requests waiting are timed from here
    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    # readline, not `for line in sys.stdin`: each request is handled as soon as it arrives
    for line in iter(sys.stdin.readline, ""):
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            reply = {"id": request["id"], "output": answer(request["input"])}
        except Exception as err:  # the case fails with this message; the worker goes on
            reply = {"id": request["id"], "error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
