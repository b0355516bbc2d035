"""A scripted MCP client on the official Python SDK (tests/cli/mcp.rs drives it).

usage: mcp_client.py stdio SCRIPT.json COMMAND [ARGS...]
       mcp_client.py http SCRIPT.json URL

SCRIPT.json maps a task id to its steps, [[tool, arguments], ...]; the client takes tasks with
`next_task` until it returns {}, replays each task's steps (the last one `submit_answer`) and
fails on any tool error. It prints {"done": [ids], "tools": [names]} as JSON on stdout.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


def is_error(result):
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def drive(session, script):
    await session.initialize()
    tools = sorted(t.name for t in (await session.list_tools()).tools)
    done = []
    while True:
        result = await session.call_tool("next_task", {})
        if is_error(result):
            raise SystemExit("next_task failed: " + text_of(result))
        task = json.loads(text_of(result))
        if not task:
            break
        if set(task) != {"id", "type", "query", "instruction"}:
            raise SystemExit("next_task returned other fields: %s" % sorted(task))
        for name, args in script[task["id"]]:
            result = await session.call_tool(name, args)
            if is_error(result):
                raise SystemExit("%s: %s failed: %s" % (task["id"], name, text_of(result)[:400]))
        done.append(task["id"])
    print(json.dumps({"done": done, "tools": tools}))


async def main():
    mode, script_path, target = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    if mode == "stdio":
        params = StdioServerParameters(command=target, args=sys.argv[4:])
        async with stdio_client(params) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await drive(session, script)
    elif mode == "http":
        async with streamable_http_client(target) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await drive(session, script)
    else:
        raise SystemExit("mode must be stdio or http")


asyncio.run(main())
