"""The MCP server itself: the official SDK's low-level ``Server``, with handlers for tools and
resources that hand each call to :mod:`~statewright_compiler.mcp_server.tools` and
:mod:`~statewright_compiler.mcp_server.resources` in a worker thread (stores and machines are
synchronous; the SDK is anyio).

The idempotency key of a ``send_event`` without one of its own is the MCP request's id, scoped
to its connection: a retried delivery of the same request is not applied twice, while request
``3`` of the next connection (ids start again at each connection) is a new call. Over stdio a
process serves one connection, named by a random nonce drawn at start; over streamable HTTP a
connection is its ``Mcp-Session-Id``, and a request outside a session gets a key of its own (it
cannot be told from another client's request with the same id). A key a client passes
(``idempotency_key``) holds across connections and restarts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS
from statewright import Store

from statewright_compiler import __version__
from statewright_compiler.mcp_server.hosting import MachineType
from statewright_compiler.mcp_server.instances import Instances, ToolError
from statewright_compiler.mcp_server.resources import HISTORY_TEMPLATE, ResourceMissing, Resources
from statewright_compiler.mcp_server.settings import Settings
from statewright_compiler.mcp_server.tools import Tool, call_tool, request_key, served_tools

__all__ = ["build_server", "request_key"]

_INSTRUCTIONS = (
    "Stored state machine instances. list_instances finds them; read_instance shows one "
    "instance's state and the events legal in it (legal_events, each with the JSON Schema of "
    "its arguments); send_event sends one of those events. Only a legal event is taken: any "
    "other is an error that changes nothing and names the legal ones."
)


def build_server(settings: Settings, store: Store, machine_types: Sequence[MachineType]) -> Server:
    """The server for ``settings``, serving ``machine_types`` from ``store``."""
    instances = Instances(
        store, machine_types, prefix=settings.instance_prefix, history=settings.history
    )
    tools = served_tools(
        machine_types, read_only=settings.read_only, allow_create=settings.allow_create
    )
    resources = Resources(settings.root, machine_types, instances)
    nonce = os.urandom(8).hex()

    def connection_of(ctx: ServerRequestContext[Any, Any]) -> str | None:
        if settings.transport == "stdio":
            return nonce
        headers = getattr(ctx.request, "headers", None)
        session = None if headers is None else headers.get("mcp-session-id")
        return None if session is None else f"{nonce}/{session}"

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_tool(tool) for tool in tools])

    async def on_call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        key = request_key(connection_of(ctx), ctx.request_id)
        run = partial(call_tool, instances, tools, params.name, params.arguments, key)
        try:
            result = await anyio.to_thread.run_sync(run)
        except ToolError as error:
            if error.kind == "unknown_tool":  # a protocol error, not the tool's: see the spec
                raise MCPError(INVALID_PARAMS, error.message) from None
            return _result(error.as_dict(), error.message, is_error=True)
        return _result(result, json.dumps(result, ensure_ascii=False))

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=resource.uri,
                    name=resource.name,
                    description=resource.description,
                    mime_type=resource.mime_type,
                )
                for resource in resources.listed()
            ]
        )

    async def list_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        history = types.ResourceTemplate(
            uri_template=HISTORY_TEMPLATE,
            name="instance history",
            description="every retained transition of an instance, oldest first (JSON)",
            mime_type="application/json",
        )
        return types.ListResourceTemplatesResult(resource_templates=[history])

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        try:
            text, mime_type = await anyio.to_thread.run_sync(resources.read, params.uri)
        except ResourceMissing as error:
            raise MCPError(INVALID_PARAMS, str(error)) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=mime_type, text=text)]
        )

    return Server(
        "statewright",
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=dict(tool.input_schema),
        annotations=types.ToolAnnotations(read_only_hint=tool.read_only),
    )


def _result(structured: Any, text: str, *, is_error: bool = False) -> types.CallToolResult:
    """A tool's answer as JSON text (what a model reads) and as structured content."""
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=is_error
    )
