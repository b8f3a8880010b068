#!/usr/bin/env python3
"""The support agent of agent.mjs as a long-lived jsonl worker (protocol: jsonl).

One JSON request per line on stdin, {"id", "input", "case"}; one reply per line
on stdout, the result object's fields beside the id:
  {"id", "output", "toolCalls", "usage", "metadata", "latencyMs"}
AGENT_VERSION and AGENT_MODEL as in agent.mjs; the answers, calls, tokens and
latency are the same as the Node agent's.
"""
import json
import os
import re
import sys

ORDERS = {
    "A18": {"status": "delivered", "total": 20.5, "item": "kettle", "damaged": True},
    "B7": {"status": "shipped", "total": 64, "item": "boots", "eta": "2026-12-04", "late": True},
    "C3": {"status": "processing", "total": 12.99, "item": "mug"},
    "D4": {"status": "delivered", "total": 99, "item": "lamp"},
    "E5": {"status": "shipped", "total": 35, "item": "scarf", "eta": "2026-12-02"},
}
KB = {
    "returns": "Items can be returned within 30 days of delivery for a full refund.",
    "shipping": "Standard shipping takes 3 to 5 business days.",
    "warranty": "Electrical items carry a 2-year warranty.",
}


def lookup_order(order_id):
    return {"order_id": order_id, **ORDERS[order_id]} if order_id in ORDERS else {"error": f"no order {order_id}"}


def refund(order_id, amount):
    return {"refunded": amount, "order_id": order_id}


def search_kb(query):
    key = next((k for k in KB if k in query), "returns")
    return {"article": KB[key]}


TOOLS = {"lookup_order": lookup_order, "refund": refund, "search_kb": search_kb}


def money(x):
    return f"${x:.2f}"


def answer(message, version="1", model="support-mini"):
    calls = []

    def call(name, **args):
        result = TOOLS[name](**args)
        calls.append({"name": name, "args": args, "result": result})
        return result

    text = message.lower()
    found = re.search(r"\b([A-E]\d+)\b", message, re.I)
    order_id = found.group(1).upper() if found else None
    topic = next((t for t in ["returns", "shipping", "warranty"] if re.sub(r"s$", "", t) in text), None)
    if version == "2":
        call("search_kb", query=topic or "returns")
    if order_id and re.search(r"refund|broken|damaged", text):
        order = call("lookup_order", order_id=order_id)
        if "error" in order:
            output = f"I could not find order {order_id}."
        elif order["status"] != "delivered":
            output = f"Order {order_id} has not been delivered yet, so it cannot be refunded."
        else:
            call("refund", order_id=order_id, amount=order["total"])
            output = f"Refund of {money(order['total'])} issued for {order_id}."
    elif order_id:
        order = call("lookup_order", order_id=order_id)
        if "error" in order:
            output = f"I could not find order {order_id}."
        elif version == "2" and order.get("late"):
            call("refund", order_id=order_id, amount=order["total"])
            output = f"Sorry for the delay: I refunded {money(order['total'])} for {order_id}."
        elif order["status"] == "shipped":
            output = f"Order {order_id} ({order['item']}) is on its way, arriving {order['eta']}."
        else:
            output = f"Order {order_id} ({order['item']}) is {order['status']}."
    elif topic:
        article = (calls[0]["result"] if version == "2" else call("search_kb", query=topic))["article"]
        output = "You can return items for a refund." if version == "2" and topic == "returns" else article
    else:
        output = "I can help with orders, refunds, returns, shipping and warranty questions."
    steps = len(calls)
    scale = 3 if model == "support-large" else 1
    return {
        "output": output,
        "toolCalls": calls,
        "usage": {"inputTokens": (420 + 180 * steps) * scale, "outputTokens": (60 + 25 * steps) * scale},
        "metadata": {"model": model, "version": version},
        "latencyMs": 250 + 310 * steps + (120 if version == "2" else 0),
    }


def main():
    version = os.environ.get("AGENT_VERSION", "1")
    model = os.environ.get("AGENT_MODEL") or "support-mini"
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            reply = {"id": request["id"], **answer(str(request.get("input", "")).strip(), version, model)}
        except Exception as err:  # one bad case fails only its own reply
            reply = {"id": request["id"], "error": f"{type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
