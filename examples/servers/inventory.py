#!/usr/bin/env python3
"""inventory -- warehouse stock levels as a hand-written MCP server (stdio).

    python3 examples/servers/inventory.py

Python 3 standard library only. Speaks newline-delimited JSON-RPC 2.0 on
stdin/stdout and implements MCP protocol revision 2024-11-05 only: whatever
version the client asks for, it answers protocolVersion "2024-11-05" (a
client that cannot speak it is expected to disconnect). Capabilities: tools.

Methods: initialize, ping, tools/list, tools/call; notifications/initialized
and any other notification are accepted silently. Unknown request methods get
-32601, an unknown tool name -32602. Bad tool arguments give a tool result
with isError: true. Logs go to stderr only; the process exits when stdin
closes or on SIGTERM.

Tools: check_stock(sku), list_skus().
"""

import datetime
import json
import re
import signal
import sys

PROTOCOL_VERSION = "2024-11-05"
SERVER_INFO = {"name": "inventory", "version": "1.0.0"}

# sku -> (product name, warehouse, on hand, reserved, restock expected in N days or None)
STOCK = {
    "SKU-1001": ("无线蓝牙耳机", "上海仓", 128, 12, None),
    "SKU-1002": ("智能手表", "上海仓", 6, 4, 5),
    "SKU-1003": ("Type-C 快充数据线", "广州仓", 940, 35, None),
    "SKU-1004": ("机械键盘", "北京仓", 0, 0, 12),
    "SKU-1005": ("移动电源", "广州仓", 57, 3, None),
    "SKU-1006": ("降噪头戴式耳机", "北京仓", 14, 9, None),
    "SKU-1007": ("扫地机器人", "杭州仓", 2, 2, 20),
    "SKU-1008": ("护眼台灯", "杭州仓", 73, 0, None),
}
LOW_STOCK = 10
SKU_PATTERN = re.compile(r"^SKU-\d{4}$")

TOOLS = [
    {
        "name": "check_stock",
        "description": (
            "Check the current stock of one product by SKU: product name, warehouse, units on hand, units reserved "
            "for open orders, units available to sell, a status (in_stock / low_stock / out_of_stock) and the "
            "expected restock date if any. Use list_skus to find a SKU from a product name."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "sku": {
                    "type": "string",
                    "pattern": "^SKU-\\d{4}$",
                    "description": 'Stock keeping unit: "SKU-" followed by 4 digits, e.g. "SKU-1001".',
                }
            },
            "required": ["sku"],
            "additionalProperties": False,
        },
    },
    {
        "name": "list_skus",
        "description": "List every SKU in the inventory with its product name and warehouse. Takes no parameters.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    },
]


def log(msg):
    sys.stderr.write("[inventory] %s\n" % msg)
    sys.stderr.flush()


class ParamError(Exception):
    pass


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def text_result(text, is_error=False):
    result = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def describe(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean %s" % ("true" if value else "false")
    if isinstance(value, str):
        return "string %s" % json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return str(value)
    return "an array" if isinstance(value, list) else "an object"


def check_args(args, allowed):
    if not isinstance(args, dict):
        raise ParamError("invalid parameter: arguments must be a JSON object")
    unknown = [k for k in args if k not in allowed]
    if unknown:
        valid = ("valid parameters are: " + ", ".join(allowed)) if allowed else "this tool takes no parameters"
        raise ParamError("invalid parameter: unknown parameter %s; %s" % (", ".join('"%s"' % k for k in unknown), valid))


def check_stock(args):
    check_args(args, ["sku"])
    if "sku" not in args:
        raise ParamError('invalid parameter: sku is required and must be "SKU-" followed by 4 digits, e.g. "SKU-1001"')
    raw = args["sku"]
    if not isinstance(raw, str) or not SKU_PATTERN.match(raw.strip().upper()):
        raise ParamError(
            'invalid parameter: sku must be "SKU-" followed by 4 digits, e.g. "SKU-1001" (got %s)' % describe(raw)
        )
    sku = raw.strip().upper()
    if sku not in STOCK:
        raise ParamError(
            "invalid parameter: sku %s is not in the inventory; known SKUs: %s" % (sku, ", ".join(sorted(STOCK)))
        )
    name, warehouse, on_hand, reserved, restock_in_days = STOCK[sku]
    restock = None
    if restock_in_days is not None:
        today = datetime.datetime.now(datetime.timezone.utc).date()
        restock = (today + datetime.timedelta(days=restock_in_days)).isoformat()
    available = on_hand - reserved
    if available <= 0:
        status = "out_of_stock"
    elif available < LOW_STOCK:
        status = "low_stock"
    else:
        status = "in_stock"
    record = {
        "sku": sku,
        "product_name": name,
        "warehouse": warehouse,
        "on_hand": on_hand,
        "reserved": reserved,
        "available": available,
        "status": status,
        "restock_date": restock,
    }
    summary = "%s %s: %d available (%d on hand, %d reserved) at %s, %s" % (
        sku, name, available, on_hand, reserved, warehouse, status)
    if restock:
        summary += ", restock expected %s" % restock
    return text_result(summary + ".\n" + json.dumps(record, ensure_ascii=False, separators=(",", ":")))


def list_skus(args):
    check_args(args, [])
    rows = [{"sku": sku, "product_name": v[0], "warehouse": v[1]} for sku, v in sorted(STOCK.items())]
    return text_result("%d SKUs.\n%s" % (len(rows), json.dumps(rows, ensure_ascii=False, separators=(",", ":"))))


HANDLERS = {"check_stock": check_stock, "list_skus": list_skus}


def handle_request(method, params):
    if method == "initialize":
        wanted = params.get("protocolVersion") if isinstance(params, dict) else None
        if wanted != PROTOCOL_VERSION:
            log("client asked for protocol %s; answering %s (the only version supported)" % (wanted, PROTOCOL_VERSION))
        client = params.get("clientInfo", {}) if isinstance(params, dict) else {}
        log("initialize from %s %s" % (client.get("name", "?"), client.get("version", "")))
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": SERVER_INFO,
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            raise RpcError(-32602, "tools/call needs params.name (a string)")
        name = params["name"]
        handler = HANDLERS.get(name)
        if handler is None:
            raise RpcError(-32602, "Unknown tool: %s (available: %s)" % (name, ", ".join(HANDLERS)))
        args = params.get("arguments")
        if args is None:
            args = {}
        try:
            return handler(args)
        except ParamError as err:
            return text_result(str(err), is_error=True)
        except Exception as err:  # a bug in a tool is reported as a tool error, not a crash
            log("tool %s failed: %r" % (name, err))
            return text_result("internal error in %s: %s" % (name, err), is_error=True)
    raise RpcError(-32601, "Method not found: %s" % method)


def handle_message(msg):
    """Returns the response object, or None for notifications and responses."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    if "method" not in msg:
        return None  # a response to a request we never sent: ignore
    method = msg["method"]
    if "id" not in msg:  # notification
        if method == "notifications/initialized":
            log("client initialized")
        elif method == "notifications/cancelled":
            pass  # requests are answered synchronously; nothing to cancel
        else:
            log("ignoring notification %s" % method)
        return None
    req_id = msg["id"]
    if not isinstance(method, str) or not (isinstance(req_id, (str, int)) and not isinstance(req_id, bool)):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    try:
        result = handle_request(method, msg.get("params") or {})
        return {"jsonrpc": "2.0", "id": req_id, "result": result}
    except RpcError as err:
        return {"jsonrpc": "2.0", "id": req_id, "error": {"code": err.code, "message": err.message}}


def send(obj):
    sys.stdout.buffer.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    log("ready on stdio (protocol %s)" % PROTOCOL_VERSION)
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            msg = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            log("parse error: %s" % err)
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        if isinstance(msg, list):  # JSON-RPC batch
            if not msg:
                send({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
                continue
            responses = [r for r in (handle_message(m) for m in msg) if r is not None]
            if responses:
                send(responses)
            continue
        response = handle_message(msg)
        if response is not None:
            send(response)
    log("stdin closed, exiting")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        pass
